// The written kernel as compiled (compiled.h): nvdisasm's listing parsed, and the model of the
// compiled instructions held to an H100's counters, step by step, for every preset (the SASS and
// the counters measured on the device are test data: tests/data/compiled/). On a GPU, CUPTI's SASS
// metrics count one profile per process (CUDA 13.0), so the presets are measured again one
// process each: bankviz-cli run --mode written --steps --preset P (docs/COUNTERS.md).

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../test_support.h"
#include "bankviz/arch.h"
#include "bankviz/compiled.h"
#include "bankviz/record.h"
#include "bankviz/written_steps.h"
#include "helpers.h"
#include "plan.h"

using bankviz::test::slurp;

using namespace bankviz;
using bankviz::test::preset;

namespace {

std::string data_dir() {
  return std::string(BANKVIZ_SOURCE_DIR) + "/tests/data/compiled/";
}

struct Measured {
  int64_t instructions = 0, wavefronts = 0;
};

// preset -> step -> the H100's counters over the launch.
std::map<std::string, std::map<int, Measured>> measured() {
  std::map<std::string, std::map<int, Measured>> out;
  std::istringstream in(slurp(data_dir() + "measured-h100.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string p;
    int step = 0;
    Measured m;
    if (l >> p >> step >> m.instructions >> m.wavefronts) out[p][step] = m;
  }
  return out;
}

}  // namespace

TEST(Sass, ListingGivesPredicatesWidthsCallSitesAndBranchedOverInstructions) {
  const std::string text =
      "\t//## File \"k.cu\", line 20\n"
      "        /*0000*/                   STS.128 [R2], R4 ;\n"
      "\t//## File \"k.cu\", line 5 inlined at \"k.cu\", line 31\n"
      "        /*0010*/              @!P4 LDS.U16 R3, [R7+0x200] ;\n"
      "        /*0020*/               @P0 BRA `(.L_x_2) ;\n"
      "        /*0030*/                   LDS.64 R8, [UR4] ;\n"
      "        /*0040*/                   LDSM.16.M88.4 R8, [R2] ;\n"
      ".L_x_2:\n"
      "        /*0050*/                   ATOMS.POPC.INC.32 RZ, [R9] ;\n"
      "        /*0060*/                   EXIT ;\n";
  const std::vector<SassInstruction> v = parse_nvdisasm(text);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].opcode, "STS.128");
  EXPECT_EQ(v[0].width(), 16);
  EXPECT_EQ(v[0].line, 20u);
  EXPECT_EQ(v[1].predicate, "@!P4");
  EXPECT_EQ(v[1].width(), 2);
  EXPECT_EQ(v[1].line, 31u);     // the call site, in the kernel's body
  EXPECT_EQ(v[1].own_line, 5u);  // its own line, the helper's (where the hardware counts it)
  EXPECT_EQ(v[1].own_file, "k.cu");
  EXPECT_EQ(v[0].own_line, 20u);  // not inlined: the same line
  EXPECT_EQ(v[1].operands, "R3, [R7+0x200]");
  EXPECT_FALSE(v[2].shared());
  EXPECT_EQ(v[3].width(), 8);
  EXPECT_TRUE(v[3].under_branch);
  EXPECT_TRUE(v[4].under_branch);
  EXPECT_EQ(v[4].width(), 16);
  EXPECT_FALSE(v[5].under_branch);  // the branch's target
  EXPECT_TRUE(v[5].shared());
  EXPECT_FALSE(v[6].shared());
  EXPECT_TRUE(parse_nvdisasm("garbage\n/*zz*/ LDS R1 ;\n/*0010*/ @P0\n").empty());
}

// A chain of inlined functions: the first location is the instruction's own, the last the
// kernel's call site.
TEST(Sass, AnInlinedChainKeepsTheOwnLineAndTheCallSite) {
  const std::vector<SassInstruction> v = parse_nvdisasm(
      "\t//## File \"h.cuh\", line 7 inlined at \"k.cu\", line 12 inlined at \"k.cu\", line 40\n"
      "        /*0000*/                   LDS R2, [R3] ;\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].own_file, "h.cuh");
  EXPECT_EQ(v[0].own_line, 7u);
  EXPECT_EQ(v[0].file, "k.cu");
  EXPECT_EQ(v[0].line, 40u);
  EXPECT_EQ(v[0].line_in("k.cu"), 12u);  // the user's innermost line, not the kernel's call
  EXPECT_EQ(v[0].line_in("other.cu"), 0u);
}

// CUDA's atomicCAS inlined into a user's helper inlined into the kernel (nvdisasm 13.0's chain
// over three lines, issue 30's casDoubleSum): the instruction is the helper's line's, 45, where
// both recordings put the call, not the kernel's call of the helper, 55.
TEST(Sass, AHeadersInstructionBelongsToTheInnermostLineOfTheUsersFile) {
  const std::vector<SassInstruction> v = parse_nvdisasm(
      "\t//## File \"/cuda/include/device_atomic_functions.hpp\", line 236 inlined at "
      "\"/w/k.cu\", line 45\n"
      "\t//## File \"/w/k.cu\", line 45 inlined at \"/w/k.cu\", line 55\n"
      "\t//## File \"/w/k.cu\", line 55\n"
      "        /*0170*/                   ATOMS.CAS.64 R6, [R11], R4, R6 ;\n"
      "\t//## File \"/w/k.cu\", line 56\n"
      "        /*0180*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].own_line, 236u);
  EXPECT_EQ(v[0].line, 55u);
  ASSERT_EQ(v[0].chain.size(), 3u);
  EXPECT_EQ(v[0].line_in("k.cu"), 45u);
  EXPECT_EQ(v[1].line_in("k.cu"), 56u);
  EXPECT_EQ(v[1].chain.size(), 1u);
}

// nvdisasm (CUDA 13, -gi) writes an inlined instruction's chain one link a line, innermost
// first, then the kernel's line, after locations of no instruction: the instruction's own line
// is the chain's first, its call site the last (a listing the H100 run saved).
TEST(Sass, NvdisasmsChainOverSeveralLinesGivesTheInnermostLine) {
  const std::vector<SassInstruction> v =
      parse_nvdisasm(slurp(data_dir() + "scen19/s19-float2-broadcast.sass"));
  int seen = 0;
  for (const SassInstruction& i : v) {
    if (i.pc == 0x1d0 || i.pc == 0x1f0) {
      EXPECT_EQ(i.opcode, "LDS.64");
      EXPECT_EQ(i.own_line, 8u);  // the helper's line, inlined at 9, inlined at 24 or 26
      EXPECT_EQ(i.line, i.pc == 0x1d0 ? 24u : 26u);
      ++seen;
    }
    if (i.pc == 0x200) {
      EXPECT_EQ(i.line, 28u);
      EXPECT_EQ(i.own_line, 28u);  // not inlined
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3);
}

// Every preset's written kernel as compiled for sm_90 (NVRTC 13.0, the SASS nvdisasm gave on the
// device), modelled with Hopper's rules, against the H100's counters step by step.
TEST(Compiled, ModelAsCompiledEqualsTheH100CountersStepByStep) {
  const auto hw = measured();
  ASSERT_GT(hw.size(), 40u);
  const Arch* hopper = find_arch("hopper");
  ASSERT_NE(hopper, nullptr);
  int rows = 0, as_compiled = 0, as_written = 0;
  for (const auto& [name, steps] : hw) {
    SCOPED_TRACE(name);
    const Scenario s = preset(name);
    const GenerateResult g = generate_kernel(s, RunMode::Written);
    ASSERT_TRUE(g.kernel);
    // Over the launch: every block where the blocks differ (the histogram's bins).
    std::string why;
    const std::vector<CompiledStep> c = compiled_launch(
        s, hopper, *g.kernel, parse_nvdisasm(slurp(data_dir() + name + ".sass")), s.grid, &why);
    ASSERT_FALSE(c.empty()) << why;
    for (const CompiledStep& cs : c) {
      const auto m = steps.find(cs.step);
      if (m == steps.end()) continue;
      ++rows;
      const Measured& h = m->second;
      const bool same = h.instructions == cs.instructions && h.wavefronts == cs.wavefronts;
      as_compiled += same;
      as_written +=
          h.instructions == cs.written_instructions && h.wavefronts == cs.written_wavefronts;
      if (!same)
        std::printf("[ compiled ] %s step %d: hardware %lld/%lld, as compiled %lld/%lld (%s)\n",
                    name.c_str(), cs.step, static_cast<long long>(h.instructions),
                    static_cast<long long>(h.wavefronts), static_cast<long long>(cs.instructions),
                    static_cast<long long>(cs.wavefronts), cs.reason.c_str());
      EXPECT_TRUE(same) << "step " << cs.step << ": hardware " << h.instructions << "/"
                        << h.wavefronts << ", as compiled " << cs.instructions << "/"
                        << cs.wavefronts << " (" << cs.reason << ")";
    }
  }
  std::printf(
      "[ compiled ] %d preset steps: the H100 equals the model as compiled in %d, as "
      "written in %d\n",
      rows, as_compiled, as_written);
  EXPECT_GT(as_compiled, as_written);
}

// Scenarios of issue 19's own (tests/data/scen19/: guards, loops, atomics over blocks and of
// floats, float2/float4, char/short, ldmatrix/stmatrix), their SASS and an H100's counters
// (2026-11-27, tests/data/compiled/scen19/): every step equals the model as compiled but two, each
// of which is named: a float atomicAdd's compare-and-swap loop on addresses two warps update (the
// tries depend on how they interleave: the reason says so) and an LDS.64 whose lanes pair up in
// adjacent pairs on 4 addresses, whose per-instruction (SASS) count is the fixed split (8
// wavefronts for 2 instructions) where the L1 unit's own counters agree with the rule: the
// kernel's unit total (a "unit" row) equals the model as compiled summed over the steps
// (docs/COUNTERS.md: the SASS metric counts wide loads that pair up with conflicts unpaired).
TEST(Compiled, ScenariosOfOurOwnEqualTheH100StepByStepOrSayWhyNot) {
  const std::string dir = data_dir() + "scen19/";
  std::map<std::string, std::map<int, Measured>> hw;
  std::map<std::string, Measured> unit;  // "NAME unit I W": the L1 unit's kernel total
  std::istringstream in(slurp(dir + "measured-h100.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string n, step;
    Measured m;
    if (!(l >> n >> step >> m.instructions >> m.wavefronts)) continue;
    if (step == "unit")
      unit[n] = m;
    else
      hw[n][std::stoi(step)] = m;
  }
  ASSERT_EQ(unit.count("s19-float2-broadcast"), 1u);
  ASSERT_GE(hw.size(), 10u);
  const Arch* hopper = find_arch("hopper");
  int rows = 0, equal = 0;
  for (const auto& [name, steps] : hw) {
    SCOPED_TRACE(name);
    const ScenarioLoad load = load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) +
                                                 "/tests/data/scen19/" + name + ".json");
    ASSERT_TRUE(load.scenario) << name;
    const Scenario& s = *load.scenario;
    const GenerateResult g = generate_kernel(s, RunMode::Written);
    ASSERT_TRUE(g.kernel);
    std::string why;
    const std::vector<CompiledStep> c = compiled_launch(
        s, hopper, *g.kernel, parse_nvdisasm(slurp(dir + name + ".sass")), s.grid, &why);
    ASSERT_FALSE(c.empty()) << why;
    // The L1 unit's totals of the kernel: every instruction as compiled, ptxas's pads included
    // (s19-cpasync-8: 6 LDGSTS and LDS.64 and 12 `@!PT LDS RZ, [RZ]`), the wavefronts of the
    // steps an op_ counter holds (compiled_totals(): what written mode compares with).
    if (const auto u = unit.find(name); u != unit.end()) {
      const CompiledTotals t = compiled_totals(s, c);
      EXPECT_EQ(u->second.instructions, t.instructions);
      EXPECT_EQ(u->second.wavefronts, t.wavefronts);
      if (name == "s19-cpasync-8") {
        EXPECT_EQ(t.pad_instructions, 12);
      }
    }
    for (const CompiledStep& cs : c) {
      const auto m = steps.find(cs.step);
      if (m == steps.end()) continue;
      ++rows;
      const bool same =
          m->second.instructions == cs.instructions && m->second.wavefronts == cs.wavefronts;
      equal += same;
      if (name == "s19-atomic-float" && cs.step == 2) {
        // Two warps' compare-and-swap loops on the same 16 words: the tries depend on the
        // interleaving; the H100 (14 / 21) lies between each warp alone (8 / 12) and the most
        // any interleaving can take (16 / 24).
        EXPECT_FALSE(same);
        EXPECT_NE(cs.reason.find("how the warps interleave"), std::string::npos) << cs.reason;
        ASSERT_TRUE(cs.bounded());
        EXPECT_EQ(cs.max_instructions, 16);
        EXPECT_EQ(cs.max_wavefronts, 24);
        EXPECT_GE(m->second.instructions, cs.instructions);
        EXPECT_LE(m->second.instructions, cs.max_instructions);
        EXPECT_GE(m->second.wavefronts, cs.wavefronts);
        EXPECT_LE(m->second.wavefronts, cs.max_wavefronts);
      } else if (name == "s19-float2-broadcast" && cs.step == 4) {
        EXPECT_EQ(m->second.wavefronts, 2 * cs.wavefronts);  // the SASS metric: no pairing
      } else {
        EXPECT_TRUE(same) << "step " << cs.step << ": hardware " << m->second.instructions << "/"
                          << m->second.wavefronts << ", as compiled " << cs.instructions << "/"
                          << cs.wavefronts << " (" << cs.reason << ")";
      }
    }
  }
  std::printf("[ compiled ] %d steps of our own: the H100 equals the model as compiled in %d\n",
              rows, equal);
}

// The reasons name what the compiler did: the matmul's 32 loads of a row in 8 LDS.128, the dot
// product's predicated steps issued by every warp, its last load for every lane.
TEST(Compiled, ReasonsNameWhatTheCompilerDid) {
  const Arch* hopper = find_arch("hopper");
  auto steps_of = [&](const std::string& name) {
    const Scenario s = preset(name);
    const GenerateResult g = generate_kernel(s, RunMode::Written);
    const AnalysisResult a = analyze(s, hopper);
    return compiled_steps(s, *a.analysis, *g.kernel,
                          parse_nvdisasm(slurp(data_dir() + name + ".sass")));
  };
  const std::vector<CompiledStep> mm = steps_of("matmul-tile32");
  ASSERT_GE(mm.size(), 4u);
  EXPECT_EQ(mm[2].step, 3);
  EXPECT_EQ(mm[2].instructions, 256);  // 8 LDS.128 x 32 warps
  EXPECT_EQ(mm[2].written_instructions, 1024);
  EXPECT_NE(mm[2].reason.find("in 8 LDS.128 (4 each)"), std::string::npos) << mm[2].reason;
  EXPECT_FALSE(mm[0].differs());
  const std::vector<CompiledStep> dot = steps_of("dot-product-reduction");
  bool predicated = false, speculated = false, merged = false;
  for (const CompiledStep& c : dot) {
    predicated |= c.reason.find("predicated") != std::string::npos;
    speculated |= c.reason.find("every lane of every warp") != std::string::npos;
    merged |= c.reason.find("one LDS.64 per thread for steps 30-31") != std::string::npos;
  }
  EXPECT_TRUE(predicated);
  EXPECT_TRUE(speculated);
  EXPECT_TRUE(merged);
  const std::vector<CompiledStep> va = steps_of("vector-add-temp-offset3");
  bool kept = false;
  for (const CompiledStep& c : va)
    kept |= c.reason.find("kept the value in a register") != std::string::npos;
  EXPECT_TRUE(kept);
}

// Two forms of an atomic that ptxas makes for sm_90, with the SASS it gave for them (the listing
// here is nvdisasm's instructions on the kernel's step lines) and the counts an H100 gave
// (2026-11-26, run --mode written --steps, docs/COUNTERS.md): atomicAdd on a float is a
// compare-and-swap loop, one lane per bank succeeding per try: 8 ways take 8 tries, 16
// instructions and 52 wavefronts; an int added to one address for the whole warp is one lane's.
TEST(Compiled, AFloatsAtomicIsACasLoopAndAUniformAddressOneLanesAtomic) {
  Scenario s;
  s.tiles = {TileDecl{}, TileDecl{}};
  s.tiles[0].name = "f";
  s.tiles[0].elem = "float";
  s.tiles[0].dims = {1024};
  s.tiles[1].name = "n";
  s.tiles[1].elem = "int";
  s.tiles[1].dims = {1024};
  s.tiles[1].base = 4096;
  s.block[0] = 32;
  s.block[1] = 1;
  Step f, sync, n;
  f.kind = n.kind = StepKind::Atomic;
  sync.kind = StepKind::Sync;
  f.tile = "f";
  f.index = "f[threadIdx.x * 8]";
  f.value = n.value = "threadIdx.x";
  n.tile = "n";
  n.index = "n[0]";
  s.steps = {f, sync, n};
  const GenerateResult g = generate_kernel(s, RunMode::Written);
  ASSERT_TRUE(g.kernel);
  const AnalysisResult a = analyze(s, find_arch("hopper"));
  ASSERT_TRUE(a.analysis);
  auto at = [&](int step) {
    return "\t//## File \"" + g.kernel->file_name + "\", line " +
           std::to_string(g.kernel->step_line[static_cast<size_t>(step)]) + "\n";
  };
  const std::string listing = at(0) +
                              "        /*0100*/                   LDS R5, [R2] ;\n"
                              "        /*0110*/                   ATOMS.CAST.SPIN P0, [R2], R4, "
                              "R6 ;\n" +
                              at(2) +
                              "        /*0200*/               @P0 ATOMS.ADD RZ, [UR4], R7 ;\n";
  const std::vector<CompiledStep> c =
      compiled_steps(s, *a.analysis, *g.kernel, parse_nvdisasm(listing));
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].written_instructions, 1);
  EXPECT_EQ(c[0].written_wavefronts, 8);
  EXPECT_EQ(c[0].instructions, 16);  // H100: 16
  EXPECT_EQ(c[0].wavefronts, 52);    // H100: 52 (and 52.07 cycles per warp in exposed mode)
  EXPECT_NE(c[0].reason.find("compare-and-swap loop"), std::string::npos) << c[0].reason;
  EXPECT_EQ(c[1].written_wavefronts, 32);
  EXPECT_EQ(c[1].instructions, 1);  // H100: 1
  EXPECT_EQ(c[1].wavefronts, 1);    // H100: 1
  EXPECT_NE(c[1].reason.find("one lane per warp"), std::string::npos) << c[1].reason;
  // Exposed mode predicts the loop's time from these figures (plan.h predict_step_cost()): 52
  // cycles per warp instruction as written, where one cycle per wavefront as written said 8. The
  // elected lane is the written kernel's alone: the exposed one stays one cycle per wavefront.
  EXPECT_TRUE(c[0].cas_loop);
  EXPECT_FALSE(c[1].cas_loop);
  const detail::StepCost loop = detail::predict_step_cost(*a.analysis, 0, &c[0]);
  EXPECT_DOUBLE_EQ(loop.cycles, 52.0);
  EXPECT_NE(loop.rule.find("compare-and-swap"), std::string::npos) << loop.rule;
  EXPECT_DOUBLE_EQ(detail::predict_step_cost(*a.analysis, 0, nullptr).cycles, 8.0);
  EXPECT_DOUBLE_EQ(detail::predict_step_cost(*a.analysis, 2, &c[1]).cycles, 32.0);
  // The same int atomic on a lane's own address stays a plain one, predicated or not.
  s.steps[2].index = "n[threadIdx.x]";
  const AnalysisResult b = analyze(s, find_arch("hopper"));
  const std::vector<CompiledStep> d =
      compiled_steps(s, *b.analysis, *g.kernel, parse_nvdisasm(listing));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].instructions, 1);
  EXPECT_EQ(d[1].wavefronts, 1);
  EXPECT_FALSE(d[1].differs());
}

// disassemble() runs the toolkit's nvdisasm in a process of its own: $CUDA_HOME/bin first. A
// stand-in that prints a listing and one that fails show both ends without the toolkit.
TEST(Sass, DisassembleRunsNvdisasmFromCudaHomeAndSaysWhenItFails) {
  namespace fs = std::filesystem;
  const fs::path home =
      fs::temp_directory_path() / ("bankviz-nvdisasm-" + std::to_string(::getpid()));
  fs::remove_all(home);
  fs::create_directories(home / "bin");
  const fs::path tool = home / "bin" / "nvdisasm";
  auto write_tool = [&](const std::string& body) {
    std::ofstream(tool) << "#!/bin/sh\n" << body;
    fs::permissions(tool, fs::perms::owner_all);
  };
  const char* old = std::getenv("CUDA_HOME");
  const std::string saved = old ? old : "";
  ::setenv("CUDA_HOME", home.c_str(), 1);
  // It is given -gi -c and a file holding the cubin's bytes.
  write_tool(
      "[ \"$1\" = -gi ] && [ \"$2\" = -c ] && [ \"$(cat \"$3\")\" = cubin ] || exit 3\n"
      "printf '\\t//## File \"k.cu\", line 7\\n        /*0010*/  @P1 LDS.64 R2, [R4] ;\\n'\n");
  std::string why;
  const std::string text = disassemble({'c', 'u', 'b', 'i', 'n'}, &why);
  EXPECT_EQ(why, "");
  const std::vector<SassInstruction> v = parse_nvdisasm(text);
  ASSERT_EQ(v.size(), 1u) << text;
  EXPECT_EQ(v[0].opcode, "LDS.64");
  EXPECT_EQ(v[0].line, 7u);
  write_tool("exit 1\n");
  EXPECT_EQ(disassemble({'x'}, &why), "");
  EXPECT_NE(why.find("failed on the cubin"), std::string::npos) << why;
  if (old)
    ::setenv("CUDA_HOME", saved.c_str(), 1);
  else
    ::unsetenv("CUDA_HOME");
  fs::remove_all(home);
}

// Issue 30: scenarios written before they were measured (tests/data/scen30/), on an H200
// (tests/data/compiled/scen30/measured-h200.txt: each step's counts and its shared instructions
// as nvdisasm listed them; the listing itself, NAME.sass, where it was kept). Every step equals
// the model as compiled, but compare-and-swap loops on words other warps update in the same step,
// whose counts depend on how the warps interleave: those lie in the range the model gives and
// say so. Before issue 30's rules (64-bit CAS loops per half-warp, a guard no lane passes, a
// 16-byte load over a loop's three ints) 98 of the 110 steps were equal.
TEST(Compiled, ScenariosWrittenBeforeMeasuringEqualTheH200StepByStepOrGiveTheirRange) {
  const std::string dir = data_dir() + "scen30/";
  struct Row {
    int step = 0;
    Measured hw;
    std::vector<std::string> sass;
  };
  std::map<std::string, std::vector<Row>> rows;
  std::istringstream in(slurp(dir + "measured-h200.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string n, bar, ops;
    Row r;
    if (!(l >> n >> r.step >> r.hw.instructions >> r.hw.wavefronts >> bar)) continue;
    std::getline(l, ops);
    std::istringstream o(ops);
    for (std::string op; std::getline(o, op, ',');) {
      while (!op.empty() && op.front() == ' ') op.erase(op.begin());
      if (!op.empty()) r.sass.push_back(op);
    }
    rows[n].push_back(r);
  }
  ASSERT_GE(rows.size(), 20u);
  const Arch* hopper = find_arch("hopper");
  int total = 0, equal = 0, in_range = 0;
  for (const auto& [name, steps] : rows) {
    SCOPED_TRACE(name);
    const ScenarioLoad load = load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) +
                                                 "/tests/data/scen30/" + name + ".json");
    ASSERT_TRUE(load.scenario) << name;
    const Scenario& s = *load.scenario;
    const GenerateResult g = generate_kernel(s, RunMode::Written);
    ASSERT_TRUE(g.kernel);
    // The listing: nvdisasm's where kept, else the step's instructions on its line.
    std::string listing = slurp(dir + name + ".sass");
    if (listing.empty()) {
      uint32_t pc = 0x100;
      for (const Row& r : steps) {
        listing += "\t//## File \"" + g.kernel->file_name + "\", line " +
                   std::to_string(g.kernel->step_line[static_cast<size_t>(r.step)]) + "\n";
        for (const std::string& op : r.sass) {
          char ins[160];
          const size_t sp = op.find(' ');
          const std::string pred = sp == std::string::npos ? "" : op.substr(0, sp);
          const std::string code = sp == std::string::npos ? op : op.substr(sp + 1);
          std::snprintf(ins, sizeof ins, "        /*%04x*/ %16s %s R5, [R2+0x%x] ;\n", pc,
                        pred.c_str(), code.c_str(), pc - 0x100);
          listing += ins;
          pc += 0x10;
        }
      }
    }
    std::string why;
    const std::vector<CompiledStep> c =
        compiled_launch(s, hopper, *g.kernel, parse_nvdisasm(listing), s.grid, &why);
    ASSERT_FALSE(c.empty()) << why;
    for (const Row& r : steps) {
      const auto cs =
          std::find_if(c.begin(), c.end(), [&](const CompiledStep& x) { return x.step == r.step; });
      ASSERT_NE(cs, c.end()) << r.step;
      ++total;
      const bool same = cs->instructions == r.hw.instructions && cs->wavefronts == r.hw.wavefronts;
      equal += same;
      if (!same && cs->bounded()) {
        // Contended: within [each warp alone, the most any interleaving takes], said in words.
        EXPECT_NE(cs->reason.find("how the warps interleave"), std::string::npos) << cs->reason;
        EXPECT_GE(r.hw.instructions, cs->instructions) << r.step;
        EXPECT_LE(r.hw.instructions, cs->max_instructions) << r.step;
        EXPECT_GE(r.hw.wavefronts, cs->wavefronts) << r.step;
        EXPECT_LE(r.hw.wavefronts, cs->max_wavefronts) << r.step;
        ++in_range;
        continue;
      }
      EXPECT_TRUE(same) << "step " << r.step << ": hardware " << r.hw.instructions << "/"
                        << r.hw.wavefronts << ", as compiled " << cs->instructions << "/"
                        << cs->wavefronts << " (" << cs->reason << ")";
    }
  }
  std::printf(
      "[ compiled ] %d steps written before measuring: the H200 equals the model as compiled in "
      "%d, within its stated range in %d more\n",
      total, equal, in_range);
  EXPECT_EQ(equal + in_range, total);
}

// A cp.async whose sources the L1 set hash splits into several global passes: the L1's counter
// counts them (the rule: 23 wavefronts), CUPTI's per-instruction counter one pass (an H200's
// written kernel, tests/data/fresh30/measured-h200.txt, f30-cpasync-rows step 1: 2 instructions
// and 8 wavefronts; tests/data/hopper/counters-h200.txt has both counters on one launch). The
// compiled step keeps the rule's figures, says what the per-instruction counter gives, and the
// per-step rows compare with that; step 0, bound by its one source bank either way, says nothing.
TEST(Compiled, ACpAsyncInSeveralGlobalPassesSaysWhatEachCounterCounts) {
  const ScenarioLoad load = load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) +
                                               "/tests/data/fresh30/scen/f30-cpasync-rows.json");
  ASSERT_TRUE(load.scenario);
  const Scenario& s = *load.scenario;
  const GenerateResult g = generate_kernel(s, RunMode::Written);
  ASSERT_TRUE(g.kernel);
  std::string listing;
  uint32_t pc = 0x100;
  for (const auto& [step, op] : std::vector<std::pair<int, std::string>>{
           {0, "LDGSTS.E.128"}, {1, "LDGSTS.E"}, {3, "LDS.128"}, {4, "LDS"}}) {
    listing += "\t//## File \"" + g.kernel->file_name + "\", line " +
               std::to_string(g.kernel->step_line[static_cast<size_t>(step)]) + "\n";
    char ins[160];
    std::snprintf(ins, sizeof ins, "        /*%04x*/ %s R5, [R2+0x%x] ;\n", pc, op.c_str(),
                  pc - 0x100);
    listing += ins;
    pc += 0x10;
  }
  std::string why;
  const std::vector<CompiledStep> c =
      compiled_launch(s, find_arch("hopper"), *g.kernel, parse_nvdisasm(listing), s.grid, &why);
  ASSERT_FALSE(c.empty()) << why;
  auto step = [&](int i) {
    return *std::find_if(c.begin(), c.end(), [&](const CompiledStep& x) { return x.step == i; });
  };
  EXPECT_EQ(step(1).instructions, 2);
  EXPECT_EQ(step(1).wavefronts, 23);
  EXPECT_EQ(step(1).per_instruction_wavefronts(), 8);
  EXPECT_NE(step(1).reason.find("per-instruction counter"), std::string::npos) << step(1).reason;
  EXPECT_NE(step(1).reason.find("counts one pass for them: 8 here"), std::string::npos)
      << step(1).reason;
  EXPECT_EQ(step(0).wavefronts, 64);
  EXPECT_EQ(step(0).per_instruction_wavefronts(), 64);
  EXPECT_EQ(step(0).reason.find("per-instruction"), std::string::npos) << step(0).reason;
  // The written kernel's per-step row takes the per-instruction figure.
  std::vector<WrittenStep> rows(1);
  rows[0].step = 1;
  attach_compiled(rows, c);
  EXPECT_EQ(rows[0].compiled_wavefronts, 8);
}

namespace bankviz {

// A user's recorded line served by the instructions the compiler emitted for it (issue 30): an
// unrolled run in one STS.128 (fewer requests, the hardware's wavefronts), a float atomicAdd's
// compare-and-swap loop (2 instructions a try), warps contending on the same words said as a
// range, not one figure.
TEST(RecordedAsCompiled, WiderInstructionsAndCompareAndSwapLoopsServeTheRecordedAddresses) {
  std::string text = "block 64 1 1\narray s 3 0 8192\n";
  for (int t = 0; t < 64; ++t)
    for (int k = 0; k < 4; ++k)
      text += std::to_string(t) + " 10 S 4 " + std::to_string(t * 16 + k * 4) + " 0\n";
  for (int t = 0; t < 64; ++t)  // every lane of both warps on word t % 2
    text += std::to_string(t) + " 12 A 4 " + std::to_string(4096 + (t % 2) * 4) + " 7\n";
  for (int t = 0; t < 32; ++t)  // one warp, 8 words: not contended
    text += std::to_string(t) + " 13 A 4 " + std::to_string(6144 + (t % 8) * 4) + " 7\n";
  text += "end " + std::to_string(64 * 4 + 64 + 32) + "\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  const std::vector<SassInstruction> sass = parse_nvdisasm(
      "\t//## File \"k.cu\", line 10\n"
      "        /*0000*/                   STS.128 [R2], R4 ;\n"
      "\t//## File \"k.cu\", line 12\n"
      "        /*0010*/                   LDS R3, [R7] ;\n"
      "        /*0020*/                   ATOMS.CAST.SPIN P0, [R7], R2, R3 ;\n"
      "\t//## File \"k.cu\", line 13\n"
      "        /*0030*/                   LDS R3, [R8] ;\n"
      "        /*0040*/                   ATOMS.CAST.SPIN P0, [R8], R2, R3 ;\n");
  const auto lines = recorded_lines_as_compiled(*r, sass, default_arch(), true, &why);
  ASSERT_TRUE(lines) << why;
  std::map<uint32_t, LineAsCompiled> by;
  for (const LineAsCompiled& l : *lines) by[l.line] = l;
  EXPECT_EQ(by[10].requests, 2);  // one STS.128 a warp, as recorded 8
  EXPECT_EQ(by[10].wavefronts, 8);
  EXPECT_NE(by[10].how.find("16-byte instructions"), std::string::npos) << by[10].how;
  // Line 13: 4 lanes a word, one per try: 4 tries of LDS + ATOMS.CAST.SPIN, exact.
  EXPECT_EQ(by[13].requests, 8);
  EXPECT_EQ(by[13].max_wavefronts, 0);
  EXPECT_NE(by[13].how.find("compare-and-swap loop"), std::string::npos) << by[13].how;
  // Line 12: each warp alone 16 tries a word (32 instructions), the most more: a range.
  EXPECT_EQ(by[12].requests, 64);
  EXPECT_GT(by[12].max_requests, by[12].requests);
  EXPECT_NE(by[12].how.find("as the warps interleave"), std::string::npos) << by[12].how;
}

// An odd-even sort's `a = v[i], b = v[i + 1]` with i = 2t + (phase & 1), its loop unrolled
// (issue 30, fresh30d oddEvenSort on an H200: 12 instructions, 24 wavefronts for 2 warps): each
// phase's copy is merged as its own addresses allow, the even phases' into LDS.64, the odd
// phases' two LDS each; the same line in a loop merges nothing (one instruction for every
// phase). A user's atomicCAS (ATOMS.CAS) costs two wavefronts a pass, as the hardware counts.
TEST(RecordedAsCompiled, AnUnrolledLinesCopiesMergeEachAsTheirAddressesAllow) {
  std::string text = "block 32 1 1\narray v 40 0 512\n";
  int n = 0;
  for (int phase = 0; phase < 4; ++phase) {
    for (int t = 0; t < 32; ++t) {
      const int i = 2 * t + (phase & 1);
      if (i + 1 >= 64) continue;  // the sort's guard: lane 31 skips the odd phases' copies
      n += 2;
      text += std::to_string(t) + " 47 L 4 " + std::to_string(4 * i) + " 0 0 1\n";
      text += std::to_string(t) + " 47 L 4 " + std::to_string(4 * i + 4) + " 0 0 2\n";
    }
    text += "sync\n";
  }
  for (int t = 0; t < 32; ++t, ++n)  // 4 lanes on each of 8 words
    text += std::to_string(t) + " 67 C 4 " + std::to_string(256 + 4 * (t % 8)) + " 0 0 3\n";
  text += "end " + std::to_string(n) + "\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  // Unrolled: the four phases' copies (LDS.64; LDS, LDS; ...). In a loop: one copy.
  auto listing = [](bool loop) {
    std::string l = "\t//## File \"k.cu\", line 47\n";
    if (loop) l += ".L_x_0:\n";
    const char* pc[] = {"0000", "0010", "0020", "0030", "0040", "0050", "0060", "0070"};
    int at = 0;
    auto put = [&](const std::string& ins) {
      l += std::string("        /*") + pc[at++] + "*/                   " + ins + " ;\n";
    };
    for (int copy = 0; copy < (loop ? 1 : 2); ++copy) {
      put("LDS.64 R2, [R9]");
      put("LDS R4, [R9+0x4]");
      put("LDS R5, [R9+0x8]");
    }
    if (loop) put("@P0 BRA `(.L_x_0)");
    l += "\t//## File \"k.cu\", line 67\n";
    put("ATOMS.CAS R7, [R8], R2, R3");
    return l;
  };
  auto by_line = [&](bool loop) {
    std::map<uint32_t, LineAsCompiled> by;
    const auto lines =
        recorded_lines_as_compiled(*r, parse_nvdisasm(listing(loop)), default_arch(), true, &why);
    EXPECT_TRUE(lines) << why;
    if (lines)
      for (const LineAsCompiled& l : *lines) by[l.line] = l;
    return by;
  };
  auto unrolled = by_line(false);
  // Even phases: one LDS.64 (256 bytes, 2 wavefronts); odd: two LDS at a stride of 2 words (2),
  // lane 31 in neither (it still merges in phase 2, the copy of its lanes there).
  EXPECT_EQ(unrolled[47].requests, 2 * 1 + 2 * 2);
  EXPECT_EQ(unrolled[47].wavefronts, 2 * 2 + 2 * 2 * 2);
  EXPECT_NE(unrolled[47].how.find("128 accesses in 8-byte instructions"), std::string::npos)
      << unrolled[47].how;
  EXPECT_EQ(unrolled[47].differs, "");
  auto looped = by_line(true);
  EXPECT_EQ(looped[47].requests, 8);  // some phase unaligned: no copy of its own, none merged
  EXPECT_EQ(looped[47].how, "");
  // ATOMS.CAS: 4 passes (4 lanes in each bank), two wavefronts each.
  EXPECT_EQ(unrolled[67].requests, 1);
  EXPECT_EQ(unrolled[67].wavefronts, 8);
  EXPECT_NE(unrolled[67].how.find("ATOMS.CAS"), std::string::npos) << unrolled[67].how;
}

// A user's atomicCAS loop whose lanes retry on words that lanes of other warps swap too (a
// double atomicAdd written with atomicCAS): each warp's tries depend on how the warps interleave
// on the GPU, so the line says so; one warp alone, or a loop whose lanes never retry, is as
// recorded.
TEST(RecordedAsCompiled, ACasLoopContendedAcrossWarpsIsSaidToDependOnTheirOrder) {
  auto lines_of = [](int threads, int tries) {
    std::string text = "block " + std::to_string(threads) + " 1 1\narray s 10 0 128\n";
    for (int k = 0; k < tries; ++k)
      for (int t = 0; t < threads; ++t)
        text += std::to_string(t) + " 12 C 8 " + std::to_string(8 * (t % 16)) + " 0 0 1\n";
    text += "end " + std::to_string(threads * tries) + "\n";
    std::string why;
    const auto r = parse_recording(text, &why);
    EXPECT_TRUE(r) << why;
    const auto lines = recorded_lines_as_compiled(
        *r,
        parse_nvdisasm(".L_x_1:\n\t//## File \"k.cu\", line 12\n"
                       "        /*0000*/                   ATOMS.CAS.64 R4, [R2], R4, R6 ;\n"
                       "        /*0010*/               @P0 BRA `(.L_x_1) ;\n"),
        default_arch(), true, &why);
    EXPECT_TRUE(lines) << why;
    return lines ? *lines : std::vector<LineAsCompiled>{};
  };
  const auto two_warps = lines_of(64, 2);
  ASSERT_EQ(two_warps.size(), 1u);
  EXPECT_NE(two_warps[0].differs.find("depends on how the warps interleave"), std::string::npos)
      << two_warps[0].differs;
  const auto one_warp = lines_of(32, 2);
  ASSERT_EQ(one_warp.size(), 1u);
  EXPECT_EQ(one_warp[0].differs, "");
  const auto once = lines_of(64, 1);
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(once[0].differs, "");
}

// What the SASS alone says where a user's line cannot run as recorded (issue 30: the CPU
// recording is never silently different): a struct copy of which the compiler loads two of the
// three members (fewer instructions, none in a loop, than a warp's accesses), a line with no
// shared instruction (its value kept in a register), a loop's load (no claim), and the kernel's
// instruction on a line where the source makes no access (a row of its own; another function's
// is not the kernel's).
TEST(RecordedAsCompiled, TheListingSaysWhereALineCannotRunAsRecorded) {
  std::string text = "block 32 1 1\narray s 0 0 4096\n";
  int n = 0;
  for (int t = 0; t < 32; ++t, n += 6) {
    for (int k = 0; k < 3; ++k)
      text += std::to_string(t) + " 20 L 4 " + std::to_string(t * 12 + k * 4) + " 0\n";
    text += std::to_string(t) + " 22 L 4 " + std::to_string(1024 + t * 4) + " 0\n";
    for (int k = 0; k < 2; ++k)
      text += std::to_string(t) + " 24 L 4 " + std::to_string(2048 + k * 128 + t * 4) + " 0\n";
  }
  text += "end " + std::to_string(n) + "\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  const std::vector<SassInstruction> sass = parse_nvdisasm(
      ".text._Z1kPf:\n"
      "\t//## File \"k.cu\", line 20\n"
      "        /*0000*/                   LDS R3, [R2] ;\n"
      "        /*0010*/                   LDS R4, [R2+0x8] ;\n"
      ".L_x_0:\n"
      "\t//## File \"k.cu\", line 24\n"
      "        /*0020*/                   LDS R5, [R6] ;\n"
      "        /*0030*/               @P0 BRA `(.L_x_0) ;\n"
      "\t//## File \"k.cu\", line 26\n"
      "        /*0040*/                   LDS R7, [R6] ;\n"
      "\t//## File \"k.cu\", line 28\n"
      "        /*0048*/               @P1 STS [R6], R7 ;\n"
      "        /*004c*/              @!P1 STS.64 [R6+0x8], R8 ;\n"
      "        /*0050*/                   EXIT ;\n"
      ".text._Z5otherv:\n"
      "\t//## File \"k.cu\", line 30\n"
      "        /*0000*/                   LDS R7, [R6] ;\n");
  ASSERT_EQ(sass.size(), 9u);
  EXPECT_FALSE(sass[1].in_loop);
  EXPECT_TRUE(sass[2].in_loop);
  EXPECT_TRUE(sass[3].in_loop);
  EXPECT_FALSE(sass[4].in_loop);
  EXPECT_EQ(sass[0].function, "_Z1kPf");
  EXPECT_EQ(sass[8].function, "_Z5otherv");
  const auto lines = recorded_lines_as_compiled(*r, sass, default_arch(), true, &why, "_Z1kPf");
  ASSERT_TRUE(lines) << why;
  std::map<uint32_t, LineAsCompiled> by;
  for (const LineAsCompiled& l : *lines) by[l.line] = l;
  EXPECT_NE(by[20].differs.find("2 shared instructions (LDS) on this line, none in a loop"),
            std::string::npos)
      << by[20].differs;
  EXPECT_NE(by[20].differs.find("where the source makes 3 accesses"), std::string::npos);
  EXPECT_NE(by[22].differs.find("no shared-memory instruction on this line"), std::string::npos)
      << by[22].differs;
  EXPECT_EQ(by[24].differs, "");
  ASSERT_TRUE(by.count(26));
  EXPECT_EQ(by[26].requests, 0);
  EXPECT_NE(by[26].differs.find("the source makes no shared-memory access on this line"),
            std::string::npos)
      << by[26].differs;
  // Predicated, straight-line, no access recorded: the one warp issues both with no active lane.
  ASSERT_TRUE(by.count(28));
  EXPECT_EQ(by[28].requests, 2);
  EXPECT_EQ(by[28].wavefronts, 0);
  EXPECT_EQ(by[28].differs, "");
  EXPECT_NE(by[28].how.find("with no active lane"), std::string::npos) << by[28].how;
  EXPECT_FALSE(by.count(30));
  // Without the kernel's name no line of its own is added.
  const auto plain = recorded_lines_as_compiled(*r, sass, default_arch(), true, &why);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->size(), 3u);
}

}  // namespace bankviz

// An odd-even sort's swap under its phase's `if` on zeroed data (issue 30, fresh30d oddEvenSort:
// lines 49 and 50): no lane stores, but every warp that reaches the block issues its predicated
// STS with no active lane. The warps that reach it are those that ran the block's unpredicated
// LDS (line 47) in that phase; a predicated STS alone in its block (line 51) cannot be told and
// keeps its reason; one under no branch (line 50) is every warp's.
TEST(RecordedAsCompiled, APredicatedStoreUnderABranchIsIssuedByTheWarpsReachingItsBlock) {
  std::string text = "block 96 1 1\narray v 40 0 512\nsync\n";
  for (int t = 0; t < 64; ++t)  // warps 0 and 1 pass the branch; warp 2 jumps over it
    text += std::to_string(t) + " 47 L 4 " + std::to_string(4 * t) + " 0 0 1\n";
  text += "end 64\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  const std::vector<SassInstruction> sass = parse_nvdisasm(
      ".text._Z4sortPi:\n"
      "\t//## File \"k.cu\", line 43\n"
      "        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
      "\t//## File \"k.cu\", line 46\n"
      "        /*0010*/               @P0 BRA `(.L_x_1) ;\n"
      "\t//## File \"k.cu\", line 47\n"
      "        /*0020*/                   LDS R3, [R6] ;\n"
      "\t//## File \"k.cu\", line 49\n"
      "        /*0030*/               @P2 STS [R6+0x4], R3 ;\n"
      ".L_x_1:\n"
      "        /*0040*/                   BSYNC B0 ;\n"
      "\t//## File \"k.cu\", line 46\n"
      "        /*0050*/               @P1 BRA `(.L_x_3) ;\n"
      "\t//## File \"k.cu\", line 51\n"
      "        /*0060*/               @P2 STS [R6+0xc], R3 ;\n"
      ".L_x_3:\n"
      "        /*0070*/                   BSYNC B0 ;\n"
      "\t//## File \"k.cu\", line 50\n"
      "        /*0080*/               @P2 STS [R6+0x8], R3 ;\n"
      "        /*0090*/                   EXIT ;\n"
      ".L_x_2:\n"
      "        /*00a0*/                   BRA `(.L_x_2) ;\n");
  const auto lines = recorded_lines_as_compiled(*r, sass, default_arch(), true, &why, "_Z4sortPi");
  ASSERT_TRUE(lines) << why;
  std::map<uint32_t, LineAsCompiled> by;
  for (const LineAsCompiled& l : *lines) by[l.line] = l;
  EXPECT_EQ(by[49].requests, 2);  // warps 0 and 1, not warp 2
  EXPECT_EQ(by[49].wavefronts, 0);
  EXPECT_EQ(by[49].differs, "");
  EXPECT_NE(by[49].how.find("no active lane"), std::string::npos) << by[49].how;
  EXPECT_NE(by[51].differs, "");
  EXPECT_EQ(by[51].requests, 0);
  EXPECT_EQ(by[50].requests, 3);
  EXPECT_EQ(by[50].differs, "");
}

// A struct's members read through a reference bound on the line before (issue 30, fresh30f
// cellMembers): the recording has the element's load on the reference's line, the compiler its
// members' loads where they are used, three straight-line LDS on the next line for one access a
// warp there. That line says so; a line with as many instructions as accesses does not.
TEST(RecordedAsCompiled, AStraightLineWithMoreInstructionsThanAccessesSaysSo) {
  std::string text = "block 32 1 1\narray cells 140 0 1024\n";
  for (int t = 0; t < 32; ++t) {
    text += std::to_string(t) + " 150 L 1 " + std::to_string(8 * (t ^ 1) + 2) + " 0 0 1\n";
    text += std::to_string(t) + " 151 L 4 " + std::to_string(8 * t + 4) + " 0 0 2\n";
  }
  text += "end 64\n";
  std::string why;
  const auto r = parse_recording(text, &why);
  ASSERT_TRUE(r) << why;
  const std::vector<SassInstruction> sass = parse_nvdisasm(
      ".text._Z5cellsv:\n"
      "\t//## File \"k.cu\", line 150\n"
      "        /*0000*/                   LDS.U8 R3, [R6+0x2] ;\n"
      "        /*0010*/                   LDS.U16 R4, [R7] ;\n"
      "        /*0020*/                   LDS R5, [R7+0x4] ;\n"
      "\t//## File \"k.cu\", line 151\n"
      "        /*0030*/                   LDS R8, [R9+0x4] ;\n");
  const auto lines = recorded_lines_as_compiled(*r, sass, default_arch(), true, &why, "_Z5cellsv");
  ASSERT_TRUE(lines) << why;
  std::map<uint32_t, LineAsCompiled> by;
  for (const LineAsCompiled& l : *lines) by[l.line] = l;
  EXPECT_NE(by[150].differs.find("3 shared instructions"), std::string::npos) << by[150].differs;
  EXPECT_EQ(by[151].differs, "");
}
