// test_recording.cpp: a recording's text parsed, its accesses as warp instructions per line served
// by serve(), and a source prepared for recording (recording.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "bankviz/analysis.h"
#include "bankviz/from_source.h"
#include "bankviz/recording.h"

namespace bankviz {
namespace {

// A block of `threads` threads each making one access on `line`: address = f(thread).
template <typename F>
std::string one_line(int threads, uint32_t line, char kind, int width, F address,
                     uint64_t value = 0) {
  std::string s = "block " + std::to_string(threads) + " 1 1\narray t 3 0 16384\n";
  for (int t = 0; t < threads; ++t)
    s += std::to_string(t) + " " + std::to_string(line) + " " + kind + " " + std::to_string(width) +
         " " + std::to_string(address(t)) + " " + std::to_string(value) + "\n";
  return s + "end " + std::to_string(threads) + "\n";
}

std::vector<RecordedLine> lines_of(const std::string& text) {
  std::string why;
  const auto r = parse_recording(text, &why);
  EXPECT_TRUE(r) << why;
  if (!r) return {};
  const auto ins = recorded_instructions(*r, default_arch(), &why);
  EXPECT_TRUE(ins) << why;
  return ins ? recorded_lines(*ins) : std::vector<RecordedLine>{};
}

TEST(Recording, AColumnReadIsThirtyTwoWavefrontsPerWarpAndARowReadOne) {
  // 64 threads reading a 32x32 float tile down a column: each warp's lanes share one bank.
  auto l = lines_of(one_line(64, 7, 'L', 4, [](int t) { return (t % 32) * 128; }));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].line, 7u);
  EXPECT_EQ(l[0].ops, "ld");
  EXPECT_EQ(l[0].requests, 2);
  EXPECT_EQ(l[0].wavefronts, 64);
  EXPECT_EQ(l[0].ideal, 2);
  l = lines_of(one_line(64, 7, 'S', 4, [](int t) { return t * 4; }));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].ops, "st");
  EXPECT_EQ(l[0].wavefronts, 2);
}

// The recording as compiled (issue 30): a thread's neighbouring bytes in the line's wider
// instruction, a neighbouring line's accesses in the instruction of the line holding it, repeated
// loads kept in a register; what cannot be one wider instruction stays as recorded.
TEST(Recording, AsCompiledNeighbouringBytesAreOneWiderInstructionAndRepeatedLoadsOne) {
  std::string text = "block 64 1 1\narray t 3 0 16384\narray c 4 16384 16\narray x 5 16400 1024\n";
  auto add = [&](int t, int line, char kind, int addr) {
    text += std::to_string(t) + " " + std::to_string(line) + " " + kind + " 4 " +
            std::to_string(addr) + " 0\n";
  };
  for (int t = 0; t < 64; ++t) {
    for (int k = 0; k < 4; ++k) add(t, 10, 'S', t * 16 + k * 4);  // an unrolled run: one STS.128
    add(t, 11, 'S', 4096 + t * 8);                                // with line 12: one STS.64
    add(t, 12, 'S', 4096 + t * 8 + 4);
    add(t, 13, 'L', 8192 + t * 12);  // 12-byte rows: not aligned to 8, stays 4 bytes
    add(t, 13, 'L', 8192 + t * 12 + 4);
    add(t, 14, 'L', 4 * t);  // loaded twice: once
    add(t, 14, 'L', 4 * t);
    // An unrolled loop's first iteration: its two 8-byte loads neighbours, one LDS.128 on line
    // 20's; line 21 has LDS.64 of its own (the other iterations).
    for (int line : {20, 21})
      text += std::to_string(t) + " " + std::to_string(line) + " L 8 " +
              std::to_string(12288 + t * 16 + (line - 20) * 8) + " 0\n";
  }
  // One line, two subscripts: c[i % 4] (the same 16 bytes for every thread: one LDS.128, loaded
  // once) and x[t + i] (aligned for a quarter of the threads: as recorded).
  for (int t = 0; t < 64; ++t)
    for (int i = 0; i < 8; ++i) {
      text += std::to_string(t) + " 30 L 4 " + std::to_string(16384 + 4 * (i % 4)) + " 0 1\n";
      text += std::to_string(t) + " 30 L 4 " + std::to_string(16400 + 4 * (t + i)) + " 0 2\n";
    }
  text += "end " + std::to_string(64 * 12 + 64 * 16) + "\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  const std::vector<LineCompiledForm> forms = {{10, 0, 16}, {12, 0, 8}, {13, 8, 0}, {14, 4, 0},
                                               {20, 16, 0}, {21, 8, 0}, {30, 16, 0}};
  const CompiledRecording c = recording_as_compiled(*r, forms, true);
  const auto ins = recorded_instructions(c.recording, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  std::map<uint32_t, RecordedLine> by;
  for (const RecordedLine& l : recorded_lines(*ins)) by[l.line] = l;
  // 16 bytes a lane, 64 threads: 2 instructions, 4 wavefronts each (as recorded 8 and 8).
  EXPECT_EQ(by[10].requests, 2);
  EXPECT_EQ(by[10].wavefronts, 8);
  EXPECT_EQ(by.count(11), 0u);  // in line 12's STS.64
  EXPECT_EQ(by[12].requests, 2);
  EXPECT_EQ(by[12].wavefronts, 4);
  EXPECT_EQ(by[13].requests, 4);  // t*12 is not 8-aligned for odd t: as recorded
  EXPECT_EQ(by[14].requests, 2);
  EXPECT_EQ(by[20].requests, 2);
  EXPECT_EQ(by.count(21), 0u);
  EXPECT_EQ(by[30].requests, 2 * (1 + 8));  // a warp: c's one LDS.128, x's eight loads
  EXPECT_NE(c.how.at(10).find("256 accesses in 16-byte instructions"), std::string::npos)
      << c.how.at(10);
  EXPECT_NE(c.how.at(11).find("on line 12"), std::string::npos) << c.how.at(11);
  EXPECT_NE(c.how.at(14).find("kept the value in a register"), std::string::npos);
  EXPECT_EQ(c.how.count(13), 0u);
  // Volatile code: every load issued.
  const CompiledRecording v = recording_as_compiled(*r, forms, false);
  EXPECT_EQ(v.how.count(14), 0u);
  // No SASS widths (none wider than the source's): nothing merges.
  const CompiledRecording n = recording_as_compiled(*r, {}, false);
  EXPECT_TRUE(n.how.empty());
  EXPECT_EQ(n.recording.accesses.size(), r->accesses.size());
}

// A line with no instruction of its kind whose stores the line table puts on the line before
// (nvcc: `h[t] = a; h[t + 64] = b;` of __half2, both STS on the first line): they are that
// line's, where it has an instruction for each; where it has too few, they stay (flagged by the
// caller: kernels' recorded_lines_as_compiled()).
TEST(Recording, AsCompiledALinesStoresGoWhereTheLineTablePutsThemWhenThereIsAnInstructionEach) {
  std::string text = "block 64 1 1\narray h 3 0 1024\n";
  for (int t = 0; t < 64; ++t)
    for (int line : {10, 11})
      text += std::to_string(t) + " " + std::to_string(line) + " S 4 " +
              std::to_string(4 * t + (line - 10) * 256) + " 0\n";
  text += "end 128\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  auto lines = [&](const std::vector<LineCompiledForm>& forms, CompiledRecording* c) {
    *c = recording_as_compiled(*r, forms, true);
    std::map<uint32_t, RecordedLine> by;
    const auto ins = recorded_instructions(c->recording, default_arch(), &why);
    if (ins)
      for (const RecordedLine& l : recorded_lines(*ins)) by[l.line] = l;
    return by;
  };
  CompiledRecording c;
  auto by = lines({{10, 0, 4, true, 0, 2}}, &c);
  EXPECT_EQ(by[10].requests, 4);
  EXPECT_EQ(by[10].wavefronts, 4);
  EXPECT_EQ(by.count(11), 0u);
  EXPECT_NE(c.how[11].find("in line 10's instructions"), std::string::npos) << c.how[11];
  EXPECT_NE(c.how[10].find("line 11's 64 accesses"), std::string::npos) << c.how[10];
  // One STS on line 10: no room for line 11's; a loop's STS: no count to trust.
  for (const LineCompiledForm& f :
       {LineCompiledForm{10, 0, 4, true, 0, 1}, LineCompiledForm{10, 0, 4, false, 0, 2}}) {
    by = lines({f}, &c);
    EXPECT_EQ(by[10].requests, 2);
    EXPECT_EQ(by[11].requests, 2);
    EXPECT_EQ(c.how.count(11), 0u);
  }
}

TEST(Recording, EachExecutionOfALineIsAnInstructionAndSyncsSeparateThem) {
  // Two threads of one warp run line 5 twice before a sync and once after: three requests.
  const std::string text =
      "block 2 1 1\narray s 2 0 64\n0 5 L 4 0 0\n1 5 L 4 4 0\n0 5 L 4 8 0\n1 5 L 4 12 0\nsync\n"
      "0 5 L 4 0 0\n1 5 L 4 4 0\nend 6\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->phases, 2u);
  const auto ins = recorded_instructions(*r, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  ASSERT_EQ(ins->size(), 3u);
  EXPECT_EQ((*ins)[2].phase, 1u);
  EXPECT_EQ((*ins)[0].warps[0].access.mask, 3u);
  EXPECT_EQ((*ins)[1].warps[0].access.addr[1], 12u);
  EXPECT_EQ(recorded_lines(*ins)[0].requests, 3);
}

TEST(Recording, AnAtomicIncrementIsServedAsTheGpuRunsIt) {
  // atomicAdd(&h[t % 8], 1) from one warp: ATOMS.POPC.INC on Hopper (one pass for the lanes on
  // an address), where other values are a pass per lane.
  auto l = lines_of(one_line(
      32, 4, 'A', 4, [](int t) { return (t % 8) * 4; }, 1));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].ops, "atom");
  EXPECT_EQ(l[0].wavefronts, 1);
  l = lines_of(one_line(
      32, 4, 'A', 4, [](int t) { return (t % 8) * 4; }, 2));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_GT(l[0].wavefronts, 1);
}

// atomicCAS is recorded as its own kind (`C`): read back, written back, an instruction apart
// from another atomic of the same line (`X`), each lane on its word an atomic's pass.
TEST(Recording, AnAtomicCasIsItsOwnKind) {
  std::string why;
  const std::string text =
      "block 32 1 1\n0 5 C 4 0 1\n1 5 C 4 0 2\n0 5 X 4 4 7\n1 5 X 4 8 7\nend 4\n";
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->accesses[0].kind, RecordedKind::AtomicCas);
  EXPECT_EQ(r->accesses[2].kind, RecordedKind::Atomic);
  EXPECT_EQ(recording_text(*r), text);
  const auto ins = recorded_instructions(*r, default_arch(), &why);
  ASSERT_TRUE(ins) << why;
  ASSERT_EQ(ins->size(), 2u);
  EXPECT_EQ((*ins)[0].kind, RecordedKind::AtomicCas);
  EXPECT_EQ((*ins)[0].warps[0].served.wavefronts, 2);  // two lanes on one word
  EXPECT_EQ((*ins)[1].warps[0].served.wavefronts, 1);  // two words in two banks
}

TEST(Recording, BadRecordingsAreRefusedNamingTheLine) {
  std::string why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 0 0\n", &why));
  EXPECT_NE(why.find("stops before its end"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 3 0 0\nend 1\n", &why));
  EXPECT_NE(why.find("recording line 2"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\n40 1 L 4 0 0\nend 1\n", &why));  // no thread 40
  EXPECT_FALSE(parse_recording("block 2048 1 1\nend 0\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 999999999 0\nend 1\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 Q 4 0 0\nend 1\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 1 L 4 0 0\nend 2\n", &why));
  EXPECT_NE(why.find("counts 2"), std::string::npos) << why;
  EXPECT_FALSE(parse_recording("block 32 1 1\nend 0\nsync\n", &why));
  EXPECT_TRUE(parse_recording("block 32 1 1\nend 0\n", &why)) << why;
  // A misaligned access is what serve() cannot take: named, not served.
  const auto r = parse_recording("block 1 1 1\n0 9 L 4 2 0\nend 1\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(recorded_instructions(*r, default_arch(), &why));
  EXPECT_NE(why.find("line 9"), std::string::npos) << why;
}

size_t lines_in(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// The picture of a recording (recorded_picture): served and checked by analyze() from its trace.
struct Pictured {
  std::optional<RecordedPicture> picture;
  std::optional<Analysis> analysis;
  std::vector<RecordedLine> lines;  // recorded_lines() of the same recording
  std::string why;
};

Pictured picture_of(const std::string& text, uint32_t line,
                    const std::vector<TileDecl>& declared = {}) {
  Pictured out;
  const auto r = parse_recording(text, &out.why);
  if (!r) return out;
  const auto ins = recorded_instructions(*r, default_arch(), &out.why);
  if (!ins) return out;
  out.lines = recorded_lines(*ins);
  out.picture = recorded_picture(*r, *ins, declared, line, default_arch(), &out.why);
  if (!out.picture) return out;
  AnalysisResult a = analyze(out.picture->scenario, nullptr, out.picture->trace);
  EXPECT_TRUE(a.analysis);
  out.analysis = std::move(a.analysis);
  return out;
}

// 64 threads: line 3 stores s[t], line 4 loads s[63 - t] (no barrier: warps race), a barrier,
// then line 6 loads s[(t * 2) % 64] twice (a loop: two executions) and line 7 adds 1 to s[t % 8].
std::string racy_recording() {
  std::string s = "block 64 1 1\narray s 2 0 256\n";
  auto acc = [&](int t, int line, char k, int addr, int value) {
    s += std::to_string(t) + " " + std::to_string(line) + " " + k + " 4 " + std::to_string(addr) +
         " " + std::to_string(value) + "\n";
  };
  int n = 0;
  for (int t = 0; t < 64; ++t, n += 2) {
    acc(t, 3, 'S', 4 * t, t);
    acc(t, 4, 'L', 4 * (63 - t), 0);
  }
  s += "sync\n";
  for (int t = 0; t < 64; ++t, n += 3) {
    acc(t, 6, 'L', 4 * ((t * 2) % 64), 0);
    acc(t, 6, 'L', 4 * ((t * 2) % 64), 0);
    acc(t, 7, 'A', 4 * (t % 8), 1);
  }
  return s + "end " + std::to_string(n) + "\n";
}

TEST(RecordingPicture, EachLinesPictureServesAsTheRecordedFigures) {
  const std::string text = racy_recording();
  for (uint32_t line : {3u, 4u, 6u, 7u}) {
    const Pictured p = picture_of(text, line);
    ASSERT_TRUE(p.analysis) << p.why;
    const Analysis& a = *p.analysis;
    const auto l = std::find_if(p.lines.begin(), p.lines.end(),
                                [&](const RecordedLine& x) { return x.line == line; });
    ASSERT_NE(l, p.lines.end());
    int64_t instructions = 0;
    for (size_t e = 0; e < a.steps.size(); ++e)
      instructions += a.step_instructions(static_cast<int>(e));
    EXPECT_EQ(a.total_wavefronts(), l->wavefronts) << "line " << line;
    EXPECT_EQ(a.total_ideal(), l->ideal) << "line " << line;
    EXPECT_EQ(instructions, l->requests) << "line " << line;
  }
  // Line 6 ran twice: one scenario step, two executions; a stride-2 load is 2-way per warp.
  const Pictured six = picture_of(text, 6);
  ASSERT_TRUE(six.analysis);
  EXPECT_EQ(six.picture->scenario.steps.size(), 1u);
  ASSERT_EQ(six.analysis->steps.size(), 2u);
  EXPECT_EQ(six.analysis->steps[1].iteration, 1);
  EXPECT_EQ(six.analysis->step_wavefronts(0), 4);
  // Line 7's atomicAdd(&s[t % 8], 1) is the merged increment (compiled_op()): 1 per warp.
  const Pictured seven = picture_of(text, 7);
  ASSERT_TRUE(seven.analysis);
  EXPECT_EQ(seven.analysis->step_op(0).op, Op::AtomicInc);
  EXPECT_EQ(seven.analysis->total_wavefronts(), 2);
  // The lanes' elements and bytes are the recorded ones.
  const Pictured four = picture_of(text, 4);
  ASSERT_TRUE(four.analysis);
  EXPECT_EQ(four.analysis->warps[0][1].element[0], 31);
  EXPECT_EQ(four.analysis->warps[0][1].access.addr[0], 4u * 31);
}

TEST(RecordingPicture, RacesAreTheHazardModelsOnTheEquivalentScenario) {
  const Pictured whole = picture_of(racy_recording(), 0);
  ASSERT_TRUE(whole.analysis) << whole.why;
  // Every line, a barrier between lines 4 and 6: five executed steps and one sync.
  ASSERT_EQ(whole.analysis->steps.size(), 6u);
  EXPECT_EQ(whole.analysis->steps[2].kind, StepKind::Sync);
  // The same accesses written as a scenario of index expressions, traced by trace().
  Scenario s;
  s.tiles[0].name = "s";
  s.tiles[0].dims = {64};
  s.block[0] = 64;
  s.block[1] = 1;
  auto step = [](StepKind k, const char* index, const char* value = "") {
    Step st;
    st.kind = k;
    st.tile = k == StepKind::Sync ? "" : "s";
    st.index = index;
    st.value = value;
    return st;
  };
  s.steps = {step(StepKind::Store, "[threadIdx.x]"), step(StepKind::Load, "[63 - threadIdx.x]"),
             step(StepKind::Sync, ""), step(StepKind::Load, "[(threadIdx.x * 2) % 64]"),
             step(StepKind::Atomic, "[threadIdx.x % 8]", "1")};
  s.steps[3].loop_var = "i";  // line 6 ran twice: one step, two executions
  s.steps[3].loop_to = 2;
  const AnalysisResult traced = analyze(s);
  ASSERT_TRUE(traced.analysis);
  const Hazards& h = whole.analysis->hazards;
  const Hazards& e = traced.analysis->hazards;
  EXPECT_GT(h.racing_accesses, 0);
  EXPECT_EQ(h.racing_accesses, e.racing_accesses);
  EXPECT_EQ(h.pairs, e.pairs);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(h.counts[k], e.counts[k]) << "kind " << k;
  EXPECT_EQ(whole.analysis->total_wavefronts(), traced.analysis->total_wavefronts());
  // The racing lanes are the same lanes, step by step.
  EXPECT_EQ(h.racing, e.racing);
}

TEST(RecordingPicture, ARecordingsTextReadsBackAsTheSameRecording) {
  std::string why;
  const auto r = parse_recording(racy_recording() + "", &why);
  ASSERT_TRUE(r) << why;
  const std::string text = recording_text(*r);
  EXPECT_EQ(text, racy_recording());
  const auto back = parse_recording(text, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->phases, r->phases);
  ASSERT_EQ(back->accesses.size(), r->accesses.size());
  EXPECT_EQ(back->accesses[200].address, r->accesses[200].address);
  EXPECT_EQ(back->accesses[200].phase, 1u);
  // A trailing barrier with no access after it is kept too.
  const auto tail =
      parse_recording("block 32 1 1\narray a 2 0 64 extern\nsync\nsync\nend 0\n", &why);
  ASSERT_TRUE(tail) << why;
  EXPECT_EQ(recording_text(*tail), "block 32 1 1\narray a 2 0 64 extern\nsync\nsync\nend 0\n");
}

TEST(RecordingPicture, TilesAreTheDeclaredArraysAtTheirRecordedPlace) {
  // A 32x33 float tile (declared with a padding of 1) placed at byte 256, a row read.
  std::string text = "block 32 1 1\narray a 2 0 256\narray tile 3 256 4224\n";
  for (int t = 0; t < 32; ++t)
    text += std::to_string(t) + " 9 L 4 " + std::to_string(256 + 4 * t) + " 0\n";
  text += "end 32\n";
  TileDecl d;
  d.name = "tile";
  d.elem = "float";
  d.dims = {32, 32};
  d.pad = 1;
  const Pictured p = picture_of(text, 9, {d});
  ASSERT_TRUE(p.picture) << p.why;
  ASSERT_EQ(p.picture->scenario.tiles.size(), 1u);  // only the arrays the line reaches
  const TileDecl& t = p.picture->scenario.tiles[0];
  EXPECT_EQ(t.elem, "float");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(t.pad, 1);
  EXPECT_EQ(t.base, 256);
  // Without a declaration of that size: one dimension of the accessed width.
  d.dims = {16, 16};
  const Pictured q = picture_of(text, 9, {d});
  ASSERT_TRUE(q.picture) << q.why;
  EXPECT_EQ(q.picture->scenario.tiles[0].dims, (std::vector<int64_t>{1056}));
  EXPECT_EQ(q.picture->scenario.tiles[0].elem, "unsigned int");
  // The scenario names the recording in its indexes: check() refuses to trace it again.
  const std::vector<Diagnostic> diag = check(q.picture->scenario);
  ASSERT_FALSE(diag.empty());
  // In words, not as a parse error of "recorded on line" (the measurement panel shows it).
  EXPECT_NE(diag[0].message.find("a recorded access (the picture of a kernel's recording)"),
            std::string::npos)
      << diag[0].format();
  EXPECT_EQ(diag[0].path, "steps[0].index");
  // No such line; an array accessed with two widths.
  EXPECT_FALSE(picture_of(text, 10).picture);
  EXPECT_NE(picture_of(text, 10).why.find("no shared-memory access on line 10"), std::string::npos);
  std::string two = "block 32 1 1\narray a 2 0 256\n0 4 L 4 0 0\n0 5 L 8 8 0\nend 2\n";
  const Pictured w = picture_of(two, 0);
  EXPECT_FALSE(w.picture);
  EXPECT_NE(w.why.find("a is accessed 4 and 8 bytes at a time"), std::string::npos) << w.why;
}

// Two loads of one array on one line (cache[i] += cache[i + s]) are two steps of the picture,
// each executed once per phase; a line loading once per iteration of a loop stays one step
// executed again and again.
TEST(RecordingPicture, TwoAccessesOfOneArrayOnALineAreTwoSteps) {
  std::string s = "block 64 1 1\narray cache 2 0 256\n";
  int n = 0;
  for (int half : {32, 16}) {
    for (int t = 0; t < half; ++t, n += 3) {
      s += std::to_string(t) + " 5 L 4 " + std::to_string(4 * t) + " 0\n";
      s += std::to_string(t) + " 5 L 4 " + std::to_string(4 * (t + half)) + " 0\n";
      s += std::to_string(t) + " 5 S 4 " + std::to_string(4 * t) + " 0\n";
    }
    s += "sync\n";
  }
  for (int t = 0; t < 64; ++t, n += 3)  // line 8: a loop of three loads of s[t]
    for (int k = 0; k < 3; ++k) s += std::to_string(t) + " 8 L 4 " + std::to_string(4 * t) + " 0\n";
  s += "end " + std::to_string(n) + "\n";
  Pictured p = picture_of(s, 5);
  ASSERT_TRUE(p.analysis) << p.why;
  const Scenario& sc = p.picture->scenario;
  ASSERT_EQ(sc.steps.size(), 4u);  // load, load (access 2), store, and the barrier between
  EXPECT_EQ(sc.steps[0].label, "load cache, line 5");
  EXPECT_EQ(sc.steps[1].label, "load cache, line 5, access 2");
  EXPECT_EQ(sc.steps[2].label, "store cache, line 5");
  EXPECT_EQ(sc.steps[3].kind, StepKind::Sync);
  // Each of the three ran in both phases: 2 executions each, the second load of the first
  // phase reading cache[t + 32] (element 32 for lane 0).
  int second_load = 0;
  for (const StepInfo& i : p.analysis->steps)
    if (i.step == 1) ++second_load;
  EXPECT_EQ(second_load, 2);
  EXPECT_EQ(p.analysis->warps[1][0].element[0], 32);
  EXPECT_EQ(p.analysis->total_wavefronts(), p.lines[0].wavefronts);
  p = picture_of(s, 8);
  ASSERT_TRUE(p.analysis) << p.why;
  EXPECT_EQ(p.picture->scenario.steps.size(), 1u);
  EXPECT_EQ(p.picture->trace.steps.size(), 3u);  // its three iterations
}

// Extern arrays share one place: the recording's access names the array it used (a 7th word),
// and the picture shows that one; without it the picture names the ambiguity.
TEST(RecordingPicture, ExternArraysSharingAPlaceAreTheNameTheAccessUsed) {
  const std::string head = "block 32 1 1\narray a 3 0 128 extern\narray b 4 0 128 extern\n";
  std::string named = head, unnamed = head;
  for (int t = 0; t < 32; ++t) {
    named += std::to_string(t) + " 6 S 4 " + std::to_string(4 * t) + " 0 1\n";
    unnamed += std::to_string(t) + " 6 S 4 " + std::to_string(4 * t) + " 0\n";
  }
  named += "end 32\n";
  unnamed += "end 32\n";
  Pictured p = picture_of(named, 6);
  ASSERT_TRUE(p.analysis) << p.why;
  EXPECT_EQ(p.picture->scenario.tiles.at(0).name, "b");
  EXPECT_EQ(p.picture->shared_place, "");
  p = picture_of(unnamed, 6);
  ASSERT_TRUE(p.analysis) << p.why;
  EXPECT_EQ(p.picture->scenario.tiles.at(0).name, "a");
  EXPECT_EQ(p.picture->shared_place, "a and b");
  // The array's index round-trips through the text, and must name a listed array.
  std::string why;
  const auto r = parse_recording(named, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->accesses[0].array, 1);
  EXPECT_EQ(recording_text(*r), named);
  EXPECT_FALSE(parse_recording(head + "0 6 S 4 0 0 2\nend 1\n", &why));
  EXPECT_FALSE(parse_recording("block 32 1 1\n0 6 S 4 0 0 0\nend 1\n", &why));
}

TEST(RecordingSource, SharedDeclarationsBecomeProxiesAndTheLinesStay) {
  const std::string src =
      "#define N 32\n"
      "__global__ void k(float *out, int n) {\n"
      "  __shared__ float tile[N][N + 1], row[N];\n"
      "  __shared__ __align__(16) int\n    flag;\n"
      "  extern __shared__ double dyn[];\n"
      "  tile[threadIdx.y][threadIdx.x] = row[threadIdx.x] + dyn[0] + flag;\n"
      "}\n";
  std::string why;
  const std::string out = recording_source(src, "k", "k.cu", &why);
  ASSERT_FALSE(out.empty()) << why;
  EXPECT_NE(out.find("static ::bv::Shared<float[N][N + 1], 0> tile(\"tile\", 3u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("static ::bv::Shared<float[N], 0> row(\"row\", 3u);"), std::string::npos);
  EXPECT_NE(out.find("static ::bv::SharedScalar<int, 16> flag(\"flag\", 4u);"), std::string::npos);
  EXPECT_NE(out.find("static ::bv::Shared<double[], 0> dyn(\"dyn\", 6u);"), std::string::npos);
  // The scalar's use becomes the proxy's element on its line (its reads then have their line);
  // each array's subscript is numbered (its site, in the text's order), the rest as written.
  EXPECT_NE(out.find("  tile.bv_site(1u)[threadIdx.y][threadIdx.x] = row.bv_site(2u)[threadIdx.x] "
                     "+ dyn.bv_site(3u)[0] + flag();\n"),
            std::string::npos)
      << out;
  // The user's lines keep their numbers: the text between #line 1 and the driver has as many.
  const size_t b = out.find("#line 1 \"k.cu\"\n") + 15, e = out.find("#line 1 \"bankviz-record");
  EXPECT_EQ(lines_in(out.substr(b, e - b)), lines_in(src) + 1);
  EXPECT_NE(out.find("k(::bv::Arg{0}, ::bv::Arg{1});"), std::string::npos);
}

TEST(RecordingSource, WhatCannotBeRecordedIsNamed) {
  auto why_of = [](const std::string& body, const std::string& kernel = "k") {
    std::string why;
    const std::string out =
        recording_source("__global__ void k(int *p) {\n  __shared__ int s[32];\n" + body + "\n}\n",
                         kernel, "k.cu", &why);
    EXPECT_TRUE(out.empty());
    return why;
  };
  // Warp intrinsics and cooperative groups run on the CPU (issue 30); barriers with a result
  // and a grid's group do not.
  EXPECT_NE(why_of("  int v = __syncthreads_or(1);")
                .find("__syncthreads_or (line 3), a barrier with a result"),
            std::string::npos);
  EXPECT_NE(why_of("  asm(\"nop;\");").find("inline asm (line 3)"), std::string::npos);
  EXPECT_NE(why_of("  auto g = cooperative_groups::this_grid();")
                .find("cooperative-groups this_grid (line 3)"),
            std::string::npos);
  // A pointer no declaration makes a proxy of (`int *q; q = s;`, two declarators), and `*p++`
  // (a plain `*p` is p[0]: RecordingSource.PointersIntoSharedMemoryAreProxiesByTheirDeclarations).
  EXPECT_NE(why_of("  int *q;\n  q = s; q[1] = 0;")
                .find("line 4 uses the __shared__ array s other than by subscript"),
            std::string::npos);
  EXPECT_NE(why_of("  int *q = s, *r = s + 1;").find("line 3 uses the __shared__ array s other"),
            std::string::npos);
  EXPECT_NE(why_of("  int *q = s + 2;\n  *q++ = 1;")
                .find("line 4 dereferences the pointer q into shared memory (*q), which the CPU "
                      "recording does not follow: write q[0]"),
            std::string::npos);
  EXPECT_NE(why_of("  int2 *q = (int2 *)s;\n  q->x = 1;").find("(q->)"), std::string::npos);
  EXPECT_NE(why_of("", "other").find("no __global__ function other"), std::string::npos);
  EXPECT_NE(why_of("", "k(); system").find("is not a kernel's name"), std::string::npos);
  // A comment or a string naming them is not the kernel using them.
  std::string why;
  EXPECT_FALSE(recording_source("__global__ void k() {\n  // __shfl_sync asm\n  const char* m = "
                                "\"asm\";\n}\n",
                                "k", "k.cu", &why)
                   .empty())
      << why;
  // The same name in another function is another variable.
  EXPECT_FALSE(recording_source("__global__ void a() { __shared__ int v[4]; v[0] = 1; }\n"
                                "__global__ void k() { float v = 1; v += 1; }\n",
                                "k", "k.cu", &why)
                   .empty())
      << why;
}

TEST(RecordingSource, ForTheGpuTheStorageStaysRealSharedMemoryBesideEachProxy) {
  const std::string src =
      "#define N 32\n"
      "__global__ void k(float *out, int n) {\n"
      "  __shared__ float tile[N][N + 1], row[N];\n"
      "  __shared__ __align__(16) int\n    flag;\n"
      "  extern __shared__ double dyn[];\n"
      "  tile[threadIdx.y][threadIdx.x] = row[threadIdx.x] + dyn[0] + flag;\n"
      "  out[0] = __shfl_down_sync(~0u, out[1], 1);\n"
      "}\n";
  std::string why;
  std::vector<RecordedArray> declared;
  const std::string out = recording_source(src, "k", "k.cu", &why, RecordTarget::Gpu, &declared);
  ASSERT_FALSE(out.empty()) << why;  // a warp intrinsic runs on the GPU as written
  EXPECT_NE(out.find("__shared__ float bv_shared_0[N][N + 1]; ::bv::Shared<float[N][N + 1]> "
                     "tile(bv_shared_0, 0u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("__shared__ float bv_shared_1[N]; ::bv::Shared<float[N]> "
                     "row(bv_shared_1, 1u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("__shared__ __align__(16) int bv_shared_2; ::bv::SharedScalar<int> "
                     "flag(&bv_shared_2, 2u);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("extern __shared__ double bv_shared_3[]; ::bv::Shared<double[]> "
                     "dyn(bv_shared_3, 3u);"),
            std::string::npos)
      << out;
  // No driver: the kernel is launched as profiled; the lines keep their numbers.
  EXPECT_EQ(out.find("bankviz-record-driver"), std::string::npos);
  EXPECT_EQ(out.rfind("#line 1 \"k.cu\"\n", 0), 0u) << out;
  EXPECT_EQ(lines_in(out), lines_in(src) + 1);
  ASSERT_EQ(declared.size(), 4u);
  EXPECT_EQ(declared[0].name, "tile");
  EXPECT_EQ(declared[0].line, 3u);
  EXPECT_EQ(declared[2].name, "flag");
  EXPECT_EQ(declared[2].line, 4u);
  EXPECT_TRUE(declared[3].dynamic);
  EXPECT_FALSE(declared[1].dynamic);

  // What the GPU recording cannot count or rewrite is named.
  auto why_of = [](const std::string& text) {
    std::string w;
    EXPECT_TRUE(recording_source(text, "k", "k.cu", &w, RecordTarget::Gpu).empty()) << text;
    return w;
  };
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  asm(\"nop;\");\n}\n")
                .find("inline asm (line 3), whose shared-memory accesses the GPU recording cannot "
                      "see"),
            std::string::npos);
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  int c = "
                   "__syncthreads_count(1);\n}\n")
                .find("__syncthreads_count (line 3), a barrier with a result"),
            std::string::npos);
  EXPECT_NE(why_of("__shared__ int s[4];\n__global__ void k() { s[0] = 1; }\n")
                .find("line 1: a __shared__ declaration outside a function"),
            std::string::npos);
  EXPECT_NE(why_of("__global__ void k() {\n  __shared__ int s[4];\n  int *q;\n  q = s;\n}\n")
                .find("other than by subscript"),
            std::string::npos);
}

// Pointers into shared memory (issue 20's fourth session): only their declarations change. A
// local pointer declared from a shared array becomes the header's pointer proxy, its cast
// `::bv::ptr_cast`, its value passed through `::bv::declared` with its own declarator number
// (a carved array's name); a __device__ helper's pointer parameter that a shared array is passed
// to becomes one too; their subscripts are numbered as an array's are. The lines keep their
// numbers.
TEST(RecordingSource, PointersIntoSharedMemoryAreProxiesByTheirDeclarations) {
  const std::string src =
      "__device__ void warpReduce(volatile float *sdata, unsigned tid) {\n"
      "  sdata[tid] += sdata[tid + 32];\n"
      "}\n"
      "__device__ float plain(const float *g, int i) { return g[i]; }\n"
      "__global__ void k(float *o) {\n"
      "  extern __shared__ unsigned char smem[];\n"
      "  float *a = reinterpret_cast<float *>(smem);\n"
      "  int *b = (int *)&a[64];\n"
      "  const float *c = a + 1;\n"
      "  warpReduce(a, threadIdx.x);\n"
      "  o[0] = plain(o, 1) + b[0] + c[threadIdx.x] + 2 * *c;\n"
      "}\n";
  std::string why;
  std::vector<RecordedArray> declared;
  const std::string out = recording_source(src, "k", "k.cu", &why, RecordTarget::Gpu, &declared);
  ASSERT_FALSE(out.empty()) << why;
  for (const char* want :
       {"__device__ void warpReduce(::bv::Ptr<float> sdata, unsigned tid) {\n",
        "  sdata.bv_site(1u)[tid] += sdata.bv_site(2u)[tid + 32];\n",
        "__device__ float plain(const float *g, int i) { return g[i]; }\n",
        "  ::bv::Ptr<float> a = ::bv::declared(::bv::ptr_cast<float>(smem), 1u);\n",
        "  ::bv::Ptr<int> b = ::bv::declared(::bv::ptr_cast<int>(&a.bv_site(3u)[64]), 2u);\n",
        "  ::bv::Ptr<const float> c = ::bv::declared(a + 1, 3u);\n",
        "  warpReduce(a, threadIdx.x);\n",
        "b.bv_site(4u)[0] + c.bv_site(5u)[threadIdx.x] + 2 * c[0];\n"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  EXPECT_EQ(lines_in(out), lines_in(src) + 1);
  ASSERT_EQ(declared.size(), 4u);
  EXPECT_EQ(declared[1].name, "a");
  EXPECT_EQ(declared[1].line, 7u);
  EXPECT_EQ(declared[2].name, "b");
  // On the CPU the declaration names its pointer and line.
  const std::string cpu = recording_source(src, "k", "k.cu", &why);
  EXPECT_NE(cpu.find("  ::bv::Ptr<int> b = ::bv::declared(::bv::ptr_cast<int>(&a.bv_site(3u)[64]), "
                     "\"b\", 8u);\n"),
            std::string::npos)
      << cpu;
}

// A cast of a shared pointer inside an expression (not a declaration's initializer) becomes the
// headers' proxy of the new type too; a `*` before it reads element 0 on its line. A product is
// no dereference, and a cast of something not in shared memory stays as written.
TEST(RecordingSource, ExpressionCastsOfSharedPointersAreProxies) {
  const std::string src =
      "__global__ void k(float *o, float *g) {\n"
      "  __shared__ float tile[8][36];\n"
      "  __shared__ int s[64];\n"
      "  float4 v = reinterpret_cast<float4*>(&tile[1][4])[0];\n"
      "  int2 w = *(int2*)&s[2];\n"
      "  o[0] = v.x + w.y + 2 * *(int*)&s[3] + ((float2*)tile[2])[1].x + *(float*)g;\n"
      "  float4 *p = reinterpret_cast<float4*>(&tile[0][0]);\n"
      "  o[1] = p[1].y;\n"
      "}\n";
  std::string why;
  const std::string out = recording_source(src, "k", "k.cu", &why, RecordTarget::Gpu);
  ASSERT_FALSE(out.empty()) << why;
  for (const char* want :
       {"  float4 v = ::bv::ptr_cast<float4>(&tile.bv_site(1u)[1][4])[0];\n",
        "  int2 w = ::bv::ptr_cast<int2>(&s.bv_site(2u)[2])[0];\n",
        "2 * ::bv::ptr_cast<int>(&s.bv_site(3u)[3])[0]",
        "(::bv::ptr_cast<float2>(tile.bv_site(4u)[2]))[1].bv_member(&float2::x)",
        " + *(float*)g;\n",
        "::bv::Ptr<float4> p = ::bv::declared(::bv::ptr_cast<float4>(&tile.bv_site(5u)[0][0])"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  EXPECT_EQ(lines_in(out), lines_in(src) + 1);
  const std::string cpu = recording_source(src, "k", "k.cu", &why);
  EXPECT_NE(cpu.find("  int2 w = ::bv::ptr_cast<int2>(&s.bv_site(2u)[2])[0];\n"), std::string::npos)
      << cpu;
}

// What people write that the recording follows: a member of a shared struct or vector element
// (p[t].x) is an access of its own bytes; a template's instance is recorded on the GPU (the CPU
// refuses it by name); cooperative groups run on the GPU unless a barrier goes through them; a
// file-scope line (`namespace cg = cooperative_groups;`) runs nothing.
TEST(RecordingSource, MembersTemplatesAndCooperativeGroups) {
  std::string why;
  const std::string members =
      "struct P { float x, y; };\n"
      "__global__ void k(float *o) {\n"
      "  __shared__ P p[32];\n"
      "  p[threadIdx.x].y = 1;\n"
      "  o[0] = p[0] . x + p[p[1].x > 0].y;\n"
      "}\n";
  std::string out = recording_source(members, "k", "k.cu", &why, RecordTarget::Gpu);
  ASSERT_FALSE(out.empty()) << why;
  EXPECT_NE(
      out.find("  p.bv_site(1u)[threadIdx.x].bv_member(&decltype(p.bv_site(1u)[threadIdx.x])::"
               "element_type::y) = 1;\n"),
      std::string::npos)
      << out;
  EXPECT_NE(
      out.find("o[0] = p.bv_site(2u)[0] .bv_member(&decltype(p.bv_site(2u)[0])::element_type::x) "
               "+ p.bv_site(3u)[p.bv_site(4u)[1].bv_member(&decltype(p.bv_site(4u)[1])::"
               "element_type::x) > 0].bv_member(&decltype(p.bv_site(3u)[p.bv_site(4u)[1]."
               "bv_member(&decltype(p.bv_site(4u)[1])::element_type::x) > 0])::"
               "element_type::y);\n"),
      std::string::npos)
      << out;
  EXPECT_EQ(lines_in(out), lines_in(members) + 1);
  // A member of a member, of a scalar struct: through decltype of the first.
  out = recording_source(
      "struct V { float x, y; };\nstruct Q { V pos; };\n__global__ void k(float *o) {\n"
      "  __shared__ Q q;\n  o[0] = q.pos.y;\n}\n",
      "k", "k.cu", &why, RecordTarget::Gpu);
  EXPECT_NE(out.find("o[0] = q().bv_member(&decltype(q())::element_type::pos).bv_member(&decltype("
                     "decltype(q())::element_type::pos)::y);"),
            std::string::npos)
      << out;

  const std::string templ =
      "template <int N>\n"
      "__global__ void k(float *o) {\n"
      "  __shared__ float s[N];\n"
      "  s[threadIdx.x] = 1;\n"
      "}\n";
  EXPECT_FALSE(recording_source(templ, "k<32>", "k.cu", &why, RecordTarget::Gpu).empty()) << why;
  EXPECT_TRUE(recording_source(templ, "k", "k.cu", &why, RecordTarget::Gpu).empty());
  EXPECT_NE(why.find("is a template (line 1): name its instance, --kernel 'k<...>'"),
            std::string::npos)
      << why;
  why.clear();
  // Another kernel of the file neither refuses nor breaks the CPU recording: its body is not
  // compiled there (the lines stay); on the GPU it is compiled as written.
  const std::string two =
      "__global__ void other(int4 *o) {\n"
      "  __shared__ int s[512];\n"
      "  reinterpret_cast<int4*>(s)[threadIdx.x] = o[0];\n"
      "  asm volatile(\"\");\n"
      "}\n"
      "__global__ void mine(float *o) {\n"
      "  __shared__ float t[64];\n"
      "  t[threadIdx.x] = 1;\n"
      "}\n";
  // A kernel after a template whose body is left out is no template.
  const std::string after = templ + "template __global__ void k<8>(float *);\n" + two;
  EXPECT_FALSE(recording_source(after, "mine", "k.cu", &why).empty()) << why;
  const std::string cpu_two = recording_source(two, "mine", "k.cu", &why);
  EXPECT_FALSE(cpu_two.empty()) << why;
  EXPECT_EQ(cpu_two.find("reinterpret_cast"), std::string::npos) << cpu_two;
  EXPECT_NE(cpu_two.find("__global__ void other(int4 *o) {"), std::string::npos) << cpu_two;
  EXPECT_TRUE(recording_source(two, "other", "k.cu", &why).empty());
  EXPECT_NE(why.find("inline asm"), std::string::npos) << why;
  // The CPU recording's driver calls the instance: k<32>(...) instantiates it.
  const std::string cpu = recording_source(templ, "k<32>", "k.cu", &why);
  EXPECT_NE(cpu.find("k<32>(::bv::Arg{0})"), std::string::npos) << why << cpu;
  EXPECT_TRUE(recording_source(templ, "k", "k.cu", &why).empty());
  EXPECT_NE(why.find("is a template (line 1): name its instance"), std::string::npos) << why;
  why.clear();
  EXPECT_TRUE(recording_source(templ, "k<32>(); system", "k.cu", &why, RecordTarget::Gpu).empty());
  EXPECT_NE(why.find("is not a kernel's name"), std::string::npos) << why;

  auto cg = [](const std::string& line) {
    return "#include <cooperative_groups.h>\n"
           "namespace cg = cooperative_groups;\n"
           "__global__ void k(float *o) {\n"
           "  __shared__ float s[64];\n"
           "  cg::thread_block_tile<32> tile = "
           "cg::tiled_partition<32>(cg::this_thread_block());\n" +
           line +
           "\n"
           "}\n";
  };
  why.clear();
  EXPECT_FALSE(recording_source(cg("  o[0] = tile.shfl_down(s[threadIdx.x], 1);"), "k", "k.cu",
                                &why, RecordTarget::Gpu)
                   .empty())
      << why;
  // A block's barrier through cooperative groups is counted (the header's __barrier_sync), a
  // tile's is a warp's: both recorded; a split barrier or a grid's still refused by name.
  for (const char* line : {"  tile.sync();", "  cg::sync(cg::this_thread_block());",
                           "  cg::this_thread_block().sync();",
                           "  cg::thread_block b = cg::this_thread_block(); b.sync();"})
    EXPECT_FALSE(recording_source(cg(line), "k", "k.cu", &why, RecordTarget::Gpu).empty())
        << line << ": " << why;
  EXPECT_TRUE(recording_source(cg("  auto t = cg::this_thread_block().barrier_arrive();"), "k",
                               "k.cu", &why, RecordTarget::Gpu)
                  .empty());
  EXPECT_NE(why.find("a cooperative-groups barrier_arrive() (line 6), a barrier the GPU recording "
                     "does not count"),
            std::string::npos)
      << why;
  why.clear();
  EXPECT_TRUE(
      recording_source(cg("  cg::this_grid().sync();"), "k", "k.cu", &why, RecordTarget::Gpu)
          .empty());
  EXPECT_NE(why.find("cooperative-groups this_grid"), std::string::npos) << why;
  why.clear();
  // The CPU recording runs cooperative groups' block and tiles (issue 30: its header's stand-in),
  // not a grid's.
  EXPECT_FALSE(recording_source(cg(""), "k", "k.cu", &why).empty()) << why;
  EXPECT_FALSE(recording_source(cg("  tile.sync();"), "k", "k.cu", &why).empty()) << why;
  EXPECT_TRUE(recording_source(cg("  cg::this_grid().sync();"), "k", "k.cu", &why).empty());
  EXPECT_NE(why.find("cooperative-groups this_grid (line 6), a barrier the CPU recording"),
            std::string::npos)
      << why;
}

// The profile's and the GPU recording's words for a template named without its instance (one
// home: template_without_instance()).
TEST(RecordingSource, ATemplateWithoutItsInstanceIsNamed) {
  const std::string src =
      "__global__ void plain(float *o) {}\n"
      "template <int N>\n"
      "__global__ void k(float *o) { o[0] = N; }\n";
  EXPECT_EQ(template_without_instance(src, "k"),
            "the kernel k is a template (line 2): name its instance, --kernel 'k<...>'");
  EXPECT_EQ(template_without_instance(src, "k<4>"), "");
  EXPECT_EQ(template_without_instance(src, "plain"), "");
  EXPECT_EQ(template_without_instance(src, "missing"), "");
  EXPECT_EQ(template_without_instance(src, "k;"), "");
  std::string why;
  EXPECT_TRUE(recording_source(src, "k", "k.cu", &why, RecordTarget::Gpu).empty());
  EXPECT_EQ(why, template_without_instance(src, "k"));
}

TEST(RecordingSource, AKernelsNameIsANameOrATemplatesInstance) {
  bool instance = true;
  EXPECT_EQ(kernel_function_name("k", &instance), "k");
  EXPECT_FALSE(instance);
  EXPECT_EQ(kernel_function_name("ns::inner::k"), "k");
  EXPECT_EQ(kernel_function_name("reduce<256>", &instance), "reduce");
  EXPECT_TRUE(instance);
  EXPECT_EQ(kernel_function_name("ns::t<16,double>"), "t");
  EXPECT_EQ(kernel_function_name("t<16, unsigned int, -3, 4u, ns::Kind>"), "t");
  for (const char* bad : {"", "1k", "k;", "k()", "k<>", "k<1", "k<1>>", "k<(1)>", "k<1;x>", "k<-x>",
                          "k<1,>", "k<\"a\">", "k<a.b>", "::k", "k::", "k<1> ", "k <1>", "k<1>x"})
    EXPECT_EQ(kernel_function_name(bad), "") << bad;
  EXPECT_EQ(kernel_function_name(std::string(257, 'k')), "");
}

TEST(RecordingSource, TheFileNameNeverBecomesCode) {
  std::string why;
  const std::string out =
      recording_source("__global__ void k() {}\n", "k", "a\"\n#include <x>\\.cu", &why);
  ASSERT_FALSE(out.empty()) << why;
  EXPECT_NE(out.find("#line 1 \"a__#include <x>_.cu\"\n"), std::string::npos) << out;
}

TEST(RecordingSource, TheKernelsOfAFileAreListedForPicking) {
  const std::string src =
      "__device__ int helper(int x) { return x; }\n"
      "__global__ void first(int *p) { p[0] = helper(1); }\n"
      "// __global__ void commented() {}\n"
      "__global__ void __launch_bounds__(256) second() {}\n"
      "__global__ void first(float *p) {}\n";
  EXPECT_EQ(kernels_in_source(src), (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(kernels_in_source("__global__ void broken( {").empty());
  EXPECT_TRUE(kernels_in_source("int main() {}").empty());
}

TEST(RecordingSource, AFollowedLinesReasonHasNoControlByte) {
  // The reason quotes the type's spelling, which holds an escape byte here (fuzz_source found it).
  const std::string src =
      "__global__ void k() {\n  __shared__\x1b"
      " float4 q[32];\n  q[threadIdx.x] = q[0];\n}\n";
  const SourceScenario s = scenario_from_source_line(src, 3, SourceLaunch{}, "k.cu");
  ASSERT_FALSE(s.scenario);
  EXPECT_FALSE(s.why.empty());
  EXPECT_EQ(s.why.find('\x1b'), std::string::npos) << s.why;
  std::string why;
  for (const SourceLine& l : shared_lines_of_kernel(src, "k", SourceLaunch{}, "k.cu", &why))
    EXPECT_EQ(l.why.find('\x1b'), std::string::npos) << l.why;
}

}  // namespace
}  // namespace bankviz
