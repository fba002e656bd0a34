// test_profiler.cpp: the "your kernel" window's worker (profiler.h): another process run and
// bounded (subprocess.h), the command line from the form, the CLI's JSON read back, and the whole
// profile through the real bankviz-cli.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bankviz/analysis.h"
#include "profile/profiler.h"
#include "profile/subprocess.h"
#include "scratch_dir.h"

namespace bankviz::gui {
namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Profiler, TheKernelsLinesAreSteppedThroughInSourceOrder) {
  ProfileOutcome o;
  for (uint32_t n : {31u, 29u, 40u, 12u}) {
    ProfiledLine l;
    l.line = n;
    if (n != 40) l.scenario = Scenario{};  // line 40 cannot be a picture
    o.lines.push_back(l);
  }
  const std::vector<uint32_t> lines = openable_lines(o);
  EXPECT_EQ(lines, (std::vector<uint32_t>{12, 29, 31}));
  EXPECT_EQ(step_line(lines, 0, +1), 12u);  // none shown yet: the first, or the last
  EXPECT_EQ(step_line(lines, 0, -1), 31u);
  EXPECT_EQ(step_line(lines, 12, +1), 29u);
  EXPECT_EQ(step_line(lines, 29, -1), 12u);
  EXPECT_EQ(step_line(lines, 31, +1), 0u);  // past the end: nothing
  EXPECT_EQ(step_line(lines, 12, -1), 0u);
  EXPECT_EQ(step_line({}, 0, +1), 0u);
}

// The line opened from the window is named FILE:LINE (the toolbar's scenario) and shown with the
// source around it, the line marked (the kernel-source panel), clipped to the file.
TEST(Profiler, TheOpenedLineIsNamedAndItsSourceMarked) {
  EXPECT_EQ(opened_label("/a/b/transpose.cu", 42), "transpose.cu:42");
  EXPECT_EQ(opened_label("k.cu", 7), "k.cu:7");
  std::vector<std::string> src;
  for (int i = 1; i <= 30; ++i) src.push_back("s" + std::to_string(i));
  uint32_t first = 99;
  std::vector<std::string> e = source_excerpt(src, 20, 3, &first);
  EXPECT_EQ(first, 17u);
  ASSERT_EQ(e.size(), 7u);
  EXPECT_EQ(e[0], "  17  s17");
  EXPECT_EQ(e[3], "  20 >s20");
  EXPECT_EQ(e[6], "  23  s23");
  e = source_excerpt(src, 2, 3, &first);  // clipped at the top
  EXPECT_EQ(first, 1u);
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[1], "   2 >s2");
  e = source_excerpt(src, 29, 3, &first);  // and at the bottom
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e.back(), "  30  s30");
  EXPECT_TRUE(source_excerpt(src, 31, 3, &first).empty());
  EXPECT_EQ(first, 0u);
  EXPECT_TRUE(source_excerpt(src, 0, 3, &first).empty());
}

TEST(Profiler, TheFilesKernelsAreListedForPickingAndFollowThePath) {
  KernelList k;
  refresh_kernels(k, std::string(BANKVIZ_TEST_DATA) + "/profile/reverse.cu");
  EXPECT_EQ(k.kernels, (std::vector<std::string>{"staticReverse", "dynamicReverse"}));
  refresh_kernels(k, std::string(BANKVIZ_TEST_DATA) + "/profile/dot.cu");
  EXPECT_EQ(k.kernels, (std::vector<std::string>{"dot"}));
  refresh_kernels(k, "/no/such/file.cu");
  EXPECT_TRUE(k.kernels.empty());
}

TEST(Subprocess, CollectsOutputAndTheExitStatus) {
  ProcessResult r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10, 1 << 20);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timed_out);
}

TEST(Subprocess, AProgramThatDoesNotEndIsKilledAtTheDeadline) {
  ProcessResult r;
  const double s = seconds_of([&] { r = run_process({"/bin/sleep", "30"}, 0.3, 1 << 20); });
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGTERM);  // asked first: bankviz-cli cleans up on it
  EXPECT_LT(s, 5);
}

TEST(Subprocess, AChildThatIgnoresSigtermIsKilledWithItsWholeGroup) {
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  ProcessResult r;
  // The child ignores SIGTERM and starts a grandchild that does too (it prints its pid).
  const double s = seconds_of([&] {
    r = run_process({"/bin/sh", "-c", "trap '' TERM; sleep 60 & echo $!; sleep 60"}, 60, 1 << 20,
                    &cancel);
  });
  t.join();
  EXPECT_TRUE(r.canceled);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_GT(s, 2.5);  // SIGTERM first, SIGKILL 3 s later
  EXPECT_LT(s, 8);
  const pid_t grandchild = std::atoi(r.out.c_str());
  ASSERT_GT(grandchild, 0) << r.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string st;
  std::getline(stat, st);
  // Gone, or a zombie of init's until reaped: never still sleeping.
  EXPECT_TRUE(st.empty() || st.find(") Z") != std::string::npos) << st;
}

TEST(Subprocess, TheChildsTemporaryFolderIsRemovedWithWhatItLeftThere) {
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const ProcessResult r =
      run_process({"/bin/sh", "-c",
                   "echo $TMPDIR; mkdir $TMPDIR/bankviz-record-x; touch $TMPDIR/left; "
                   "trap '' TERM; sleep 60"},
                  60, 1 << 20, &cancel);
  t.join();
  const std::string dir = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(dir.find("/bankviz-app-"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST(Subprocess, CancelKillsItAtOnce) {
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  ProcessResult r;
  const double s = seconds_of([&] { r = run_process({"/bin/sleep", "30"}, 60, 1 << 20, &cancel); });
  t.join();
  EXPECT_TRUE(r.canceled);
  EXPECT_LT(s, 5);
}

TEST(Subprocess, OutputIsBoundedAndTheRestDrained) {
  ProcessResult r = run_process({"/bin/sh", "-c", "head -c 300000 /dev/zero"}, 10, 1000);
  EXPECT_EQ(r.exit_code, 0);  // drained, so it could finish writing
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.truncated);
}

TEST(Subprocess, AMissingProgramIsSaidNotCrashed) {
  ProcessResult r = run_process({"/nonexistent/bankviz-cli", "profile"}, 10, 1000);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("/nonexistent/bankviz-cli"), std::string::npos) << r.error;
}

TEST(Profiler, TheFormBecomesTheCliFlagsAndNothingElse) {
  ProfileForm f;
  f.file = "k.cu";
  f.kernel = "k";
  f.block = "32x8";
  f.args = " buffer:4K   int:3 ";
  f.shared = 256;
  std::string err;
  const auto argv = profile_argv("/x/bankviz-cli", f, &err);
  const std::vector<std::string> want = {
      "/x/bankviz-cli", "profile", "k.cu",         "--kernel", "k",
      "--grid",         "1",       "--block",      "32x8",     "--arg",
      "buffer:4K",      "--arg",   "int:3",        "--shared", "256",
      "--timeout",      "10",      "--record-gpu", "--json"};
  EXPECT_EQ(argv, want);  // Profile records block 0 on the GPU too, unless unticked
  f.record_gpu = false;
  EXPECT_EQ(profile_argv("/x/bankviz-cli", f, &err).size(), want.size() - 1);
  f.model = true;  // the model's figures: --model before --json
  const auto m = profile_argv("/x/bankviz-cli", f, &err);
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[m.size() - 2], "--model");
  f.model = false;
  f.record = true;      // one block recorded on the CPU: --record before --json
  f.record_gpu = true;  // no GPU: --record alone, never --record-gpu with it
  const auto rec = profile_argv("/x/bankviz-cli", f, &err);
  ASSERT_GE(rec.size(), 3u);
  EXPECT_EQ(rec[rec.size() - 2], "--record");
  EXPECT_EQ(std::count(rec.begin(), rec.end(), "--record-gpu"), 0);
  f.record = false;
  f.args = "int:'3'";
  EXPECT_TRUE(profile_argv("cli", f, &err).empty());
  EXPECT_NE(err.find("'"), std::string::npos) << err;
  f.args = "";
  f.kernel = "";
  EXPECT_TRUE(profile_argv("cli", f, &err).empty());
}

TEST(Profiler, TheLaunchShapeIsPickedOrTypedAndCheckedInWords) {
  for (const LaunchPreset& l : launch_presets())
    EXPECT_EQ(launch_problem(l.grid, l.block), "") << l.what;
  EXPECT_EQ(launch_problem("4x2", "8x8x4"), "");
  EXPECT_NE(launch_problem("1", "64x32").find("at most 1024 threads; 64x32 is 2048"),
            std::string::npos);
  EXPECT_NE(launch_problem("1", "1x1x128").find("a block's z is at most 64"), std::string::npos);
  EXPECT_NE(launch_problem("1x70000", "32").find("a grid's y and z are at most 65535"),
            std::string::npos);
  EXPECT_EQ(launch_problem("", "32").rfind("grid '': ", 0), 0u) << launch_problem("", "32");
  EXPECT_EQ(launch_problem("1", "3 2").rfind("block '3 2': ", 0), 0u);
  EXPECT_EQ(launch_problem("1", "0").rfind("block '0': ", 0), 0u);
  EXPECT_EQ(launch_problem("1", "\x1b[2J").find('\x1b'), std::string::npos);
  // A form with such a shape does not start.
  ProfileForm f;
  f.file = "k.cu";
  f.kernel = "k";
  f.block = "2048";
  std::string err;
  EXPECT_TRUE(profile_argv("cli", f, &err).empty());
  EXPECT_NE(err.find("at most 1024 threads"), std::string::npos) << err;
}

TEST(Profiler, TheCliJsonIsReadLineByLine) {
  const std::string out = R"({"status": "ok", "kernel": "setRowReadCol", "kernel_ms": 0.0079,
    "device": {"name": "NVIDIA H100", "sm": "sm_90"}, "counters": "ok",
    "total": {"executed": 64, "wavefronts": 1056, "ideal": 64, "excess": 992},
    "lines": [{"line": 31, "source": "out[idx]=tile[threadIdx.x][threadIdx.y];", "ops": ["ld"],
               "executed": 32, "wavefronts": 1024, "ideal": 32, "excess": 992,
               "wavefronts_per_request": 32.0},
              {"line": 29, "source": "tile[threadIdx.y][threadIdx.x]=idx;", "ops": ["st"],
               "executed": 32, "wavefronts": 32, "ideal": 32, "excess": 0,
               "wavefronts_per_request": 1.0}]})";
  const ProfileOutcome o = read_profile_output(0, false, out, "");
  ASSERT_TRUE(o.ok) << o.error;
  ASSERT_EQ(o.lines.size(), 2u);
  EXPECT_EQ(o.lines[0].line, 31u);
  EXPECT_EQ(o.lines[0].excess, 992);
  EXPECT_EQ(o.lines[0].ops, "ld");
  EXPECT_DOUBLE_EQ(o.lines[0].per_request, 32.0);
  EXPECT_EQ(o.excess, 992);
  EXPECT_NE(o.header.find("NVIDIA H100"), std::string::npos) << o.header;
  EXPECT_NE(o.header.find("7.9 us"), std::string::npos) << o.header;

  // The model's figures (--model, no GPU): lines with figures and lines with a reason.
  const ProfileOutcome m = read_profile_output(0, false, R"({"figures": "model", "kernel": "k",
    "lines": [{"line": 12, "ops": "st", "instructions": 8, "wavefronts": 16, "ideal": 8,
               "wavefronts_per_request": 2.0},
              {"line": 16, "why": "line 16: the index of h reads input[...]"}]})",
                                               "");
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_TRUE(m.model);
  EXPECT_NE(m.header.find("MODEL"), std::string::npos) << m.header;
  ASSERT_EQ(m.lines.size(), 2u);
  EXPECT_EQ(m.lines[0].excess, 8);
  EXPECT_DOUBLE_EQ(m.lines[0].per_request, 2.0);
  EXPECT_EQ(m.lines[1].model_why, "line 16: the index of h reads input[...]");
  EXPECT_EQ(m.excess, 8);
  // The CPU recording's figures (--record): requests per line, said to be the model's.
  const ProfileOutcome r = read_profile_output(0, false, R"({"figures": "model", "kernel": "h",
    "made_by": "cpu recording", "lines": [{"line": 16, "ops": "atom", "requests": 8,
    "wavefronts": 8, "ideal": 8, "wavefronts_per_request": 1.0}]})",
                                               "");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.model);
  EXPECT_NE(r.header.find("recorded on the CPU"), std::string::npos) << r.header;
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0].executed, 8);
  EXPECT_EQ(r.lines[0].ops, "atom");

  // The GPU recording beside the hardware (--record-gpu): each line's recorded figures and
  // whether they equal the hardware's; a recorded line the GPU ran no shared instruction for.
  const std::string hw = R"j({"status": "ok", "kernel": "k", "kernel_ms": 0.01,
    "device": {"name": "NVIDIA H100", "sm": "sm_90"}, "counters": "ok",
    "total": {"executed": 40, "wavefronts": 40, "ideal": 40, "excess": 0},
    "lines": [{"line": 16, "source": "atomicAdd(&h[in[i]], 1);", "ops": ["atom"], "executed": 8,
               "wavefronts": 8, "ideal": 8, "excess": 0, "wavefronts_per_request": 1.0},
              {"line": 20, "source": "s = t[i];", "ops": ["ld"], "executed": 32,
               "wavefronts": 32, "ideal": 32, "excess": 0, "wavefronts_per_request": 1.0}],
    "recording": {"figures": "model", "made_by": "gpu recording", "accesses": 300, "lines": [
      {"line": 16, "recorded": {"ops": "atom", "requests": 8, "wavefronts": 8, "ideal": 8},
       "hardware": {"executed": 8, "wavefronts": 8, "ideal": 8}, "equal": true},
      {"line": 20, "recorded": {"ops": "ld", "requests": 64, "wavefronts": 64, "ideal": 64},
       "hardware": {"executed": 32, "wavefronts": 32, "ideal": 32}, "equal": false,
       "reason": "the compiler made this line 1 shared instruction (LDS.64)"},
      {"line": 22, "recorded": {"ops": "ld", "requests": 8, "wavefronts": 8, "ideal": 8},
       "equal": false}]}})j";
  const ProfileOutcome g = read_profile_output(0, false, hw, "");
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_NE(g.recording_note.find("recorded as the GPU ran it (300 shared accesses)"),
            std::string::npos)
      << g.recording_note;
  ASSERT_EQ(g.lines.size(), 3u);
  EXPECT_TRUE(g.lines[0].recorded && g.lines[0].recorded_equal);
  EXPECT_TRUE(g.lines[1].recorded && !g.lines[1].recorded_equal);
  EXPECT_EQ(g.lines[1].recorded_requests, 64);
  EXPECT_EQ(g.lines[1].recorded_reason,
            "the compiler made this line 1 shared instruction (LDS.64)");
  EXPECT_EQ(g.lines[2].line, 22u);
  EXPECT_EQ(g.lines[2].executed, 0);
  EXPECT_TRUE(g.lines[2].recorded);
  const ProfileOutcome refused =
      read_profile_output(0, false,
                          hw.substr(0, hw.find("\"recording\"")) +
                              R"j("recording": {"why": "the kernel holds inline asm (line 3)"}})j",
                          "");
  ASSERT_TRUE(refused.ok) << refused.error;
  EXPECT_NE(refused.recording_note.find("not recorded on the GPU: the kernel holds inline asm"),
            std::string::npos);
  EXPECT_FALSE(refused.lines[0].recorded);

  // A failure the CLI put in its JSON, one it said in words, and one it never finished.
  ProfileOutcome bad = read_profile_output(
      1, false, R"({"status": "compile error", "message": "no __global__ function named \"x\""})",
      "");
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "compile error: no __global__ function named \"x\"");
  bad = read_profile_output(2, false, "", "bankviz-cli: --block: \"0\" is not a launch extent\n");
  EXPECT_EQ(bad.error, "--block: \"0\" is not a launch extent");
  bad = read_profile_output(-1, true, "{\"status\"", "");
  EXPECT_NE(bad.error.find("stopped"), std::string::npos);
  bad = read_profile_output(0, false, R"({"status": "ok", "lines": 3})", "");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("not as expected"), std::string::npos) << bad.error;
}

TEST(Profiler, ProfiledLinesThatAreSharedAccessesOpenAsScenarios) {
  ProfileOutcome o;
  ProfiledLine load, other;
  load.line = 31;  // out[idx]=tile[threadIdx.x][threadIdx.y]; in setRowReadCol
  load.ops = "ld";
  other.line = 3;  // a #define
  other.ops = "ld";
  o.lines = {load, other};
  ProfileForm f;
  f.file = "data_layout.cu";
  f.block = "32x32";
  std::ifstream in(std::string(BANKVIZ_TEST_DATA) + "/profile/data_layout.cu");
  std::stringstream ss;
  ss << in.rdbuf();
  attach_scenarios(o, ss.str(), f);
  ASSERT_TRUE(o.lines[0].scenario);
  EXPECT_EQ(o.lines[0].scenario->steps[0].index, "tile[threadIdx.x][threadIdx.y]");
  EXPECT_EQ(o.lines[0].scenario->block[1], 32);
  EXPECT_FALSE(o.lines[1].scenario);
  f.block = "0";  // a block the CLI would refuse: no scenario
  attach_scenarios(o, ss.str(), f);
  EXPECT_FALSE(o.lines[0].scenario);
}

TEST(Profiler, BankvizCliIsLookedForBesideTheAppAndInTheBuildTree) {
  ::unsetenv("BANKVIZ_CLI");
  // An install (bin/bankviz, bin/bankviz-cli), then the build tree (app/gui/bankviz,
  // app/bankviz-cli).
  EXPECT_EQ(cli_candidates("/opt/bv/bin"),
            (std::vector<std::string>{"/opt/bv/bin/bankviz-cli", "/opt/bv/bankviz-cli"}));
  EXPECT_EQ(cli_candidates("/src/build/app/gui")[1], "/src/build/app/bankviz-cli");
  ::setenv("BANKVIZ_CLI", "/x/my-cli", 1);
  EXPECT_EQ(cli_candidates("/opt/bv/bin").front(), "/x/my-cli");
  // find_cli takes the first that is an executable file, else says where it looked.
  std::string tried;
  ::setenv("BANKVIZ_CLI", BANKVIZ_CLI, 1);
  EXPECT_EQ(find_cli(&tried), BANKVIZ_CLI);
  ::setenv("BANKVIZ_CLI", "/nonexistent/bankviz-cli", 1);
  const std::string found = find_cli(&tried);
  EXPECT_NE(tried.find("/nonexistent/bankviz-cli"), std::string::npos) << tried;
  EXPECT_NE(found, "/nonexistent/bankviz-cli");
  ::unsetenv("BANKVIZ_CLI");
}

TEST(Profiler, TheModelsFiguresComeWithoutAGpu) {
  ::setenv("BANKVIZ_CLI", BANKVIZ_CLI, 1);
  ProfilerState p;
  p.form.file = std::string(BANKVIZ_TEST_DATA) + "/profile/dot.cu";
  p.form.kernel = "dot";
  p.form.block = "256";
  p.form.model = true;
  std::string err;
  ASSERT_TRUE(start_profile(p, &err, 0)) << err;
  for (int i = 0; i < 600 && !poll_profile(p); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::unsetenv("BANKVIZ_CLI");
  ASSERT_TRUE(p.outcome);
  const ProfileOutcome& o = *p.outcome;
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(o.model);
  ASSERT_EQ(o.lines.size(), 3u);  // the cache's three lines, each with its picture
  for (const ProfiledLine& l : o.lines) EXPECT_TRUE(l.scenario) << l.line << ": " << l.model_why;
  EXPECT_EQ(o.lines[1].line, 28u);  // the reduction: 36 wavefronts in 8 iterations
  EXPECT_EQ(o.lines[1].wavefronts, 36);
}

TEST(Profiler, ARecordedLineOpensAsThePictureOfWhatTheKernelDid) {
  if (!std::filesystem::exists("/usr/bin/g++") && !std::filesystem::exists("/usr/bin/c++"))
    GTEST_SKIP() << "no host C++ compiler: the CPU recording cannot run here";
  ::setenv("BANKVIZ_CLI", BANKVIZ_CLI, 1);
  ProfilerState p;
  p.form.file = std::string(BANKVIZ_TEST_DATA) + "/profile/histogram.cu";
  p.form.kernel = "histogram";
  p.form.block = "256";
  p.form.record = true;
  std::string err;
  // The recording comes back through a file of the profile's own (--save-recording).
  const auto argv = profile_argv("cli", p.form, &err, "/t/r.txt");
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--save-recording"), 1);
  ASSERT_TRUE(start_profile(p, &err, 0)) << err;
  for (int i = 0; i < 900 && !poll_profile(p); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::unsetenv("BANKVIZ_CLI");
  ASSERT_TRUE(p.outcome);
  const ProfileOutcome& o = *p.outcome;
  ASSERT_TRUE(o.ok) << o.error;
  ASSERT_TRUE(o.recorded) << o.recorded_why;
  EXPECT_FALSE(o.recorded->gpu);
  // Line 16's bin is read from memory: the followed model refuses it, the recording opens it.
  const auto line16 = std::find_if(o.lines.begin(), o.lines.end(),
                                   [](const ProfiledLine& l) { return l.line == 16; });
  ASSERT_NE(line16, o.lines.end());
  EXPECT_FALSE(line16->scenario);
  const std::vector<uint32_t> open = openable_lines(o);
  EXPECT_NE(std::find(open.begin(), open.end(), 16u), open.end());
  std::string why;
  const auto pic = recorded_line_picture(*o.recorded, 16, &why);
  ASSERT_TRUE(pic) << why;
  EXPECT_NE(pic->scenario.title.find("recorded on the CPU: figures are the model's"),
            std::string::npos)
      << pic->scenario.title;
  EXPECT_EQ(pic->scenario.tiles.at(0).name, "temp_histogram");
  // The app's analyzer: the picture analyzes from its trace once remembered; an edited picture
  // (its indexes name the recording) is refused by check() with the reason.
  EXPECT_FALSE(analyze_draft_or_picture(pic->scenario).analysis);
  remember_picture(*pic);
  const AnalysisOutcome a = analyze_draft_or_picture(pic->scenario);
  ASSERT_TRUE(a.analysis);
  EXPECT_EQ(a.analysis->total_wavefronts(), 8);  // ATOMS.POPC.INC: one per warp
  EXPECT_EQ(a.analysis->step_op(0).op, Op::AtomicInc);
  Scenario edited = pic->scenario;
  edited.block[0] = 128;
  const AnalysisOutcome e = analyze_draft_or_picture(edited);
  EXPECT_FALSE(e.analysis);
  EXPECT_FALSE(e.errors.empty());
}

// Processes whose environment holds `needle`: "pid comm" each (zombies, already gone, left out).
std::vector<std::string> processes_with(const std::string& needle) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream env(e.path() / "environ", std::ios::binary);
    std::stringstream text;
    text << env.rdbuf();
    if (text.str().find(needle) == std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string st;
    std::getline(stat, st);
    if (st.find(") Z") != std::string::npos) continue;
    std::ifstream comm(e.path() / "comm");
    std::string c;
    std::getline(comm, c);
    found.push_back(name + " " + c);
  }
  return found;
}

TEST(Subprocess, CancelWhileBankvizCliCompilesEndsTheCompilerAndLeavesNoFolder) {
  if (std::system("command -v g++ >/dev/null 2>&1") != 0) GTEST_SKIP() << "no host compiler";
  std::string t = (std::filesystem::temp_directory_path() / "bankviz-cancel-XXXXXX").string();
  const std::filesystem::path base = ::mkdtemp(t.data());
  const std::filesystem::path cu = base / "slow.cu";
  {
    std::ofstream f(cu);  // forty compile-time evaluations: seconds of cc1plus
    f << "constexpr long f(long n) { long s = 0; for (long i = 0; i < 60000; ++i) s += (i * n) % "
         "7; return s; }\n";
    for (int k = 0; k < 40; ++k) f << "static_assert(f(" << k << ") >= 0);\n";
    f << "__global__ void k(int *d)\n{\n  __shared__ int s[32];\n  s[threadIdx.x] = 1;\n}\n";
  }
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", base.c_str(), 1);
  const std::string needle = "TMPDIR=" + base.string() + "/bankviz-app-";
  std::atomic<bool> cancel{false};
  bool compiled_seen = false;
  std::thread watcher([&] {
    for (int i = 0; i < 600 && !cancel; ++i) {
      for (const std::string& p : processes_with(needle))
        if (p.find("cc1plus") != std::string::npos) compiled_seen = true;
      if (compiled_seen) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    cancel = true;
  });
  const ProcessResult r = run_process({BANKVIZ_CLI, "profile", cu.string(), "--kernel", "k",
                                       "--block", "32", "--record", "--timeout", "120"},
                                      180, 1 << 20, &cancel);
  watcher.join();
  if (saved.empty())
    ::unsetenv("TMPDIR");
  else
    ::setenv("TMPDIR", saved.c_str(), 1);
  EXPECT_TRUE(compiled_seen) << r.err;
  EXPECT_TRUE(r.canceled);
  std::vector<std::string> left = processes_with(needle);
  for (int i = 0; i < 40 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = processes_with(needle);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " left, the first: " << (left.empty() ? "" : left[0]);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(base))
    if (e.path() != cu) files.push_back(e.path().string());
  EXPECT_TRUE(files.empty()) << "left: " << (files.empty() ? "" : files[0]);
  for (const std::string& p : left) ::kill(std::stoi(p), SIGKILL);
  std::filesystem::remove_all(base);
}

TEST(Profiler, AProfileRunsInABankvizCliOfItsOwn) {
  ::setenv("BANKVIZ_CLI", BANKVIZ_CLI, 1);
  ProfilerState p;
  p.form.file = std::string(BANKVIZ_TEST_DATA) + "/profile/data_layout.cu";
  p.form.kernel = "setRowReadCol";
  p.form.block = "32x32";
  p.form.args = "buffer:4K";
  std::string err;
  ASSERT_TRUE(start_profile(p, &err, 0)) << err;
  EXPECT_FALSE(start_profile(p, &err, 0));  // one at a time
  for (int i = 0; i < 600 && !poll_profile(p); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::unsetenv("BANKVIZ_CLI");
  ASSERT_TRUE(p.outcome);
  const ProfileOutcome& o = *p.outcome;
  EXPECT_GT(o.source.size(), 30u);  // the file, for the window
  if (o.ok) {  // a GPU with counters: the column read is the most expensive line
    ASSERT_FALSE(o.lines.empty());
    EXPECT_NE(o.lines[0].source.find("tile[threadIdx.x][threadIdx.y]"), std::string::npos);
  } else {  // no GPU here: the CLI's reason, not a crash
    EXPECT_FALSE(o.error.empty());
    EXPECT_NE(o.error.find("CUDA"), std::string::npos) << o.error;
  }
}

}  // namespace
}  // namespace bankviz::gui

namespace bankviz::gui {
namespace {

// A file dropped on the window (platform.h take_dropped(), then open_dropped_source()): a .cu
// file fills the form and opens the window with its first kernel picked; anything else is
// refused in words, the form left as it was.
TEST(Profiler, ADroppedCuFileOpensTheWindowWithItsKernels) {
  ProfilerState p;
  std::string why;
  const std::string reverse = std::string(BANKVIZ_TEST_DATA) + "/profile/reverse.cu";
  ASSERT_TRUE(open_dropped_source(p, reverse, &why)) << why;
  EXPECT_TRUE(p.open);
  EXPECT_EQ(p.form.file, reverse);
  EXPECT_EQ(p.form.kernel, "staticReverse");
  EXPECT_EQ(p.kernels.kernels, (std::vector<std::string>{"staticReverse", "dynamicReverse"}));
  // A kernel the form already names is kept when the dropped file has it.
  p.form.kernel = "dynamicReverse";
  ASSERT_TRUE(open_dropped_source(p, reverse, &why)) << why;
  EXPECT_EQ(p.form.kernel, "dynamicReverse");

  ProfilerState q;
  EXPECT_FALSE(open_dropped_source(q, std::string(BANKVIZ_TEST_DATA) + "/profile/x.json", &why));
  EXPECT_NE(why.find("bankviz opens a dropped CUDA source (.cu)"), std::string::npos) << why;
  EXPECT_FALSE(q.open);
  EXPECT_TRUE(q.form.file.empty());
  EXPECT_FALSE(open_dropped_source(q, "/nonexistent/dir/k.cu", &why));
  EXPECT_FALSE(why.empty());
  const std::string dir = bankviz::test::scratch_dir();
  std::ofstream(dir + "/nokernel.cu") << "__device__ int f() { return 1; }\n";
  EXPECT_FALSE(open_dropped_source(q, dir + "/nokernel.cu", &why));
  EXPECT_NE(why.find("has no __global__ function"), std::string::npos) << why;
  // A control byte in the path does not reach the message.
  EXPECT_FALSE(open_dropped_source(q, "a\x1b[2Jb.txt", &why));
  EXPECT_EQ(why.find('\x1b'), std::string::npos);
  EXPECT_FALSE(q.open);
}

}  // namespace
}  // namespace bankviz::gui

namespace bankviz::gui {
namespace {

// A recording saved by bankviz-cli profile --save-recording, opened from the disk (dropped, or
// "Open a file..." in the browser, which records nothing itself): the window lists its lines
// with the model's figures for what the block did, the worst first, each opening as a picture
// that says it comes from a saved recording. Anything else is refused in words.
TEST(Profiler, ASavedRecordingOpensInTheWindowWithItsLinesAndPictures) {
  // 64 threads: line 7 reads a 32x32 float tile down a column (32 wavefronts a warp), line 9
  // writes along a row (1 wavefront a warp).
  std::string text = "block 64 1 1\narray tile 3 0 4096\n";
  for (int t = 0; t < 64; ++t)
    text += std::to_string(t) + " 9 S 4 " + std::to_string((t % 32) * 4) + " 0 0\n";
  text += "sync\n";
  for (int t = 0; t < 64; ++t)
    text += std::to_string(t) + " 7 L 4 " + std::to_string((t % 32) * 128) + " 0 0\n";
  text += "end 128\n";
  const std::string dir = bankviz::test::scratch_dir();
  const std::string path = dir + "/column.rec";
  std::ofstream(path) << text;
  ProfilerState p;
  std::string why;
  ASSERT_TRUE(open_saved_recording(p, path, &why)) << why;
  EXPECT_TRUE(p.open);
  ASSERT_TRUE(p.outcome && p.outcome->ok && p.outcome->model);
  const ProfileOutcome& o = *p.outcome;
  ASSERT_EQ(o.lines.size(), 2u);
  EXPECT_EQ(o.lines[0].line, 7u);  // the most excess first
  EXPECT_EQ(o.lines[0].executed, 2);
  EXPECT_EQ(o.lines[0].wavefronts, 64);
  EXPECT_EQ(o.lines[0].ideal, 2);
  EXPECT_EQ(o.lines[1].line, 9u);
  EXPECT_EQ(o.lines[1].wavefronts, 2);
  EXPECT_EQ(o.wavefronts, 66);
  EXPECT_NE(o.header.find("64x1x1"), std::string::npos) << o.header;
  EXPECT_NE(o.header.find("MODEL"), std::string::npos) << o.header;
  ASSERT_TRUE(o.recorded && o.recorded->has_line(7));
  const std::optional<RecordedPicture> pic = recorded_line_picture(*o.recorded, 7, &why);
  ASSERT_TRUE(pic) << why;
  EXPECT_NE(pic->scenario.title.find("from a saved recording"), std::string::npos)
      << pic->scenario.title;

  // Not a recording, a broken one, and a file that is not there: refused in words.
  std::ofstream(dir + "/notes.txt") << "just some notes\n";
  ProfilerState q;
  EXPECT_FALSE(open_saved_recording(q, dir + "/notes.txt", &why));
  EXPECT_NE(why.find("--save-recording"), std::string::npos) << why;
  std::ofstream(dir + "/broken.rec") << "block 64 1 1\narray tile 3 0 4096\n0 7 Q 4 0 0\nend 1\n";
  EXPECT_FALSE(open_saved_recording(q, dir + "/broken.rec", &why));
  EXPECT_NE(why.find("broken.rec"), std::string::npos) << why;
  EXPECT_FALSE(open_saved_recording(q, dir + "/none.rec", &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(q.open);
  EXPECT_FALSE(q.outcome);
}

}  // namespace
}  // namespace bankviz::gui
