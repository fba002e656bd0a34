// The written kernel step by step (written_steps.h): the profile request, the attribution of its
// instructions to steps by the kernel's lines, and (on a GPU) the hardware beside the model.
#include <gtest/gtest.h>

#include <cstdio>

#include "bankviz/written_steps.h"
#include "helpers.h"

using namespace bankviz;
using bankviz::test::preset;
using bankviz::test::runner;

namespace {

struct Written {
  Scenario s;
  KernelSource k;
  Analysis a;
};

Written written(const std::string& name) {
  Written w{preset(name), {}, {}};
  GenerateResult g = generate_kernel(w.s, RunMode::Written);
  EXPECT_TRUE(g.kernel);
  if (g.kernel) w.k = *g.kernel;
  AnalysisResult a = analyze(w.s);
  EXPECT_TRUE(a.analysis);
  if (a.analysis) w.a = *a.analysis;
  return w;
}

}  // namespace

TEST(WrittenSteps, TheRequestIsTheScenariosLaunchOfItsKernel) {
  const Written w = written("cp-async-16-padded");
  const ProfileRequest r = written_profile_request(w.s, w.k);
  EXPECT_TRUE(check_request(r).empty());
  EXPECT_EQ(r.kernel, w.k.kernel_name);
  EXPECT_EQ(r.file_name, w.k.file_name);
  EXPECT_EQ(r.block.product(), static_cast<uint64_t>(w.s.threads()));
  ASSERT_EQ(r.args.size(), 2u);  // out, and cp.async's input
  EXPECT_EQ(r.args[0].bytes, static_cast<uint64_t>(w.s.threads()) * w.s.grid * 4);
  EXPECT_EQ(r.args[1].bytes, static_cast<uint64_t>(w.s.threads()) * 16);
  // bankviz's own kernel is compiled as the model as compiled compiles it, never by a user's
  // nvcc (whose code's pcs and lines the steps' SASS would not match: issue 30, 2026-11-29).
  EXPECT_EQ(r.compiler, ProfileCompiler::Nvrtc);
}

TEST(WrittenSteps, InstructionsGoToTheStepWhoseLinesHoldThem) {
  const Written w = written("row-write-column-read");
  // One instruction on each memory step's first line, one on its last line before the next
  // step, one outside every step (line 1: the header comment).
  std::vector<ProfileInstruction> ins;
  for (size_t i = 0; i < w.s.steps.size(); ++i) {
    if (!w.s.steps[i].is_memory()) continue;
    ProfileInstruction p;
    p.file = "/root/bankviz/" + w.k.file_name;  // as the line table names it (profile.h)
    p.line = static_cast<uint32_t>(w.k.step_line[i]);
    p.op = w.s.steps[i].reads() ? "ld" : "st";
    p.executed = 1, p.wavefronts = 1;
    ins.push_back(p);
  }
  ProfileInstruction stray;
  stray.file = w.k.file_name;
  stray.line = 1;
  stray.op = "ld";
  stray.executed = 5;
  ins.push_back(stray);
  const std::vector<WrittenStep> steps = written_steps(w.s, w.a, w.k, ins);
  int memory = 0;
  for (const Step& st : w.s.steps) memory += st.is_memory();
  ASSERT_EQ(steps.size(), static_cast<size_t>(memory) + 1);
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    EXPECT_GE(steps[i].step, 0);
    EXPECT_EQ(steps[i].sass_instructions, 1) << i;
    EXPECT_EQ(steps[i].executed, 1) << i;
    EXPECT_GT(steps[i].model_instructions, 0) << i;  // the model over the launch
  }
  EXPECT_EQ(steps.back().step, -1);
  EXPECT_EQ(steps.back().executed, 5);
  const std::string table = format_written_steps(steps, w.s.grid);
  EXPECT_NE(table.find("no step"), std::string::npos) << table;
  EXPECT_NE(table.find("differs"), std::string::npos) << table;
}

// CUPTI names the line inside an inlined helper (bits(), above every step: "no step"); the
// listing of the same kernel gives the pc its call site, so the instruction goes to that step.
TEST(WrittenSteps, TheListingsCallSiteGivesAHelpersInstructionItsStep) {
  const Written w = written("row-write-column-read");
  int last = -1;
  for (size_t i = 0; i < w.s.steps.size(); ++i)
    if (w.s.steps[i].is_memory()) last = static_cast<int>(i);
  ASSERT_GE(last, 0);
  ProfileInstruction p;
  p.pc = 0x120;
  p.file = w.k.file_name;
  p.line = 2;  // the helper's line, before every step
  p.op = "ld";
  p.executed = 7, p.wavefronts = 9;
  SassInstruction x;
  x.pc = 0x120;
  x.opcode = "LDS";
  x.file = w.k.file_name;
  x.line = static_cast<uint32_t>(w.k.step_line[static_cast<size_t>(last)]);
  const std::vector<SassInstruction> sass = {x};
  EXPECT_EQ(written_steps(w.s, w.a, w.k, {p}).back().step, -1);
  const std::vector<WrittenStep> steps = written_steps(w.s, w.a, w.k, {p}, &sass);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().step, last);
  EXPECT_EQ(steps.back().executed, 7);
  EXPECT_EQ(steps.back().wavefronts, 9);
}

// On the GPU: the seed's transpose as written counts, step by step, what the model counts. (One
// profile per process: ctest runs each test alone.)
TEST(WrittenStepsOnGpu, TheSeedsTransposeCountsWhatTheModelCountsStepByStep) {
  REQUIRE_GPU();
  for (const char* name : {"row-write-column-read"}) {
    const Written w = written(name);
    const ProfileResult p = runner().profile(written_profile_request(w.s, w.k));
    ASSERT_EQ(p.status, RunStatus::Ok) << p.message;
    ASSERT_EQ(p.counters, CounterStatus::Ok) << p.counters_message;
    const std::vector<WrittenStep> steps = written_steps(w.s, w.a, w.k, p.instructions);
    std::printf("%s\n%s", name, format_written_steps(steps, w.s.grid).c_str());
    for (const WrittenStep& st : steps) {
      EXPECT_GE(st.step, 0) << "shared instructions outside every step";
      EXPECT_TRUE(st.agrees()) << name << " step " << st.step << ": hardware " << st.executed
                               << " instructions, " << st.wavefronts << " wavefronts; model "
                               << st.model_instructions << ", " << st.model_wavefronts;
    }
  }
}
