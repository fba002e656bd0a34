// test_profile_cli.cpp: `bankviz-cli profile` as a user meets it: the table, JSON, and a kernel
// that never ends (which only a process of its own can survive: CUDA cannot stop a running
// kernel; ending the process does).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "cli_run.h"

using bankviz::test::gpu_machine;

namespace bankviz::test {
namespace {

namespace fs = std::filesystem;

std::string profile_data(const std::string& name) {
  return '\'' + std::string(BANKVIZ_TEST_DATA) + "/profile/" + name + '\'';
}

TEST(ProfileCli, WithoutAGpuSaysWhyAndFails) {
  if (gpu_machine()) GTEST_SKIP() << "a GPU is present; this test covers machines without one";
  const Result r = cli("profile " + profile_data("data_layout.cu") +
                       " --kernel setRowReadCol --block 32x32 --arg buffer:4K");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("no CUDA"), std::string::npos) << r.err;
}

TEST(ProfileCli, TheModelsFiguresComeWithoutAGpuAndSaySo) {
  // Every shared-memory line of the kernel, the kernel followed for one block: no GPU needed.
  Result r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --model");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the MODEL's figures, not measured"), std::string::npos) << r.out;
  // The reduction's loop line: every iteration (8 for 256 threads): 12 warp loads and stores.
  EXPECT_NE(r.out.find("    28  ld,st                36           36"), std::string::npos) << r.out;
  // A line the model cannot follow says why, the others have figures.
  r = cli("profile " + profile_data("histogram.cu") +
          " --kernel histogram --block 256 --model --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["figures"], "model");
  ASSERT_EQ(j["lines"].size(), 3u);
  EXPECT_EQ(j["lines"][0]["wavefronts"], 8);
  EXPECT_NE(j["lines"][1]["why"].get<std::string>().find("reads input[...]"), std::string::npos);
  // A kernel that is not in the file.
  r = cli("profile " + profile_data("dot.cu") + " --kernel nothere --block 256 --model");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no __global__ function nothere"), std::string::npos) << r.err;
}

TEST(ProfileCli, TheCpuRecordingsFiguresComeWithoutAGpuAndSaySo) {
  const char* cxx = std::getenv("BANKVIZ_RECORD_CXX");
  if ((!cxx || !*cxx) && !fs::exists("/usr/bin/g++") && !fs::exists("/usr/bin/c++"))
    GTEST_SKIP() << "no host C++ compiler: the CPU recording cannot run here";
  // The histogram's data-dependent atomic, which the followed model refuses, recorded.
  Result r =
      cli("profile " + profile_data("histogram.cu") + " --kernel histogram --block 256 --record");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the MODEL's figures, not measured: one block of 256x1x1 threads recorded "
                       "on the CPU (no GPU used"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    16  atom                  8            8            8     1.00"),
            std::string::npos)
      << r.out;
  r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --record --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["figures"], "model");
  EXPECT_EQ(j["made_by"], "cpu recording");
  ASSERT_EQ(j["lines"].size(), 3u);
  EXPECT_EQ(j["lines"][1]["line"], 28);
  EXPECT_EQ(j["lines"][1]["wavefronts"], 36);
  // What cannot be recorded fails with the reason.
  r = cli("profile " + profile_data("reverse.cu") + " --kernel staticReverse --block 64 --record");
  EXPECT_EQ(r.status, 1);  // n is 0 without --arg: s[-1]
  EXPECT_NE(r.err.find("thread 0 indexes s[-1], out of bounds"), std::string::npos) << r.err;
}

TEST(ProfileCli, ARecordedLineOpensAsAPicture) {
  const char* cxx = std::getenv("BANKVIZ_RECORD_CXX");
  if ((!cxx || !*cxx) && !fs::exists("/usr/bin/g++") && !fs::exists("/usr/bin/c++"))
    GTEST_SKIP() << "no host C++ compiler: the CPU recording cannot run here";
  // The histogram's data-dependent atomic (the followed model refuses it) as a picture: analyze's
  // JSON of the recorded trace, said to be the CPU recording's.
  Result r = cli("profile " + profile_data("histogram.cu") +
                 " --kernel histogram --block 256 --record --line 16 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["made_by"], "cpu recording");
  EXPECT_EQ(j["figures"], "model");
  EXPECT_EQ(j["line"], 16);
  const auto& a = j["analysis"];
  EXPECT_EQ(a["totals"]["wavefronts"], 8);
  EXPECT_EQ(a["steps"].size(), 1u);
  EXPECT_EQ(a["scenario"]["tiles"][0]["name"], "temp_histogram");
  EXPECT_EQ(a["races"]["racing_accesses"], 0);
  EXPECT_NE(a["scenario"]["title"].get<std::string>().find("recorded on the CPU: figures are "
                                                           "the model's"),
            std::string::npos);
  // The dot product's reduction loop: every iteration a step, with the barriers between; its two
  // loads of cache are two steps.
  r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --record --line 28");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("recorded on the CPU: figures are the model's"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load cache, line 28 (1 of 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load cache, line 28, access 2 (8 of 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("races: none"), std::string::npos) << r.out;
  // Errors: a line without an access, --line without a recording.
  r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --record --line 3");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("line 3: the recording has no shared-memory access on line 3"),
            std::string::npos)
      << r.err;
  // The recording handed to another process in its text (the app reads it back).
  const std::string saved = ::testing::TempDir() + "/bankviz-saved-recording.txt";
  fs::remove(saved);
  r = cli("profile " + profile_data("dot.cu") +
          " --kernel dot --block 256 --record --save-recording " + saved);
  ASSERT_EQ(r.status, 0) << r.err;
  {
    std::ifstream in(saved);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().rfind("block 256 1 1\narray cache 7 0 1024\n", 0), 0u) << text.str();
    EXPECT_NE(text.str().find("\nsync\n"), std::string::npos);
  }
  r = cli("profile " + profile_data("dot.cu") +
          " --kernel dot --block 256 --record --save-recording " + saved);
  EXPECT_EQ(r.status, 1);  // never replaced
  EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
  fs::remove(saved);
  r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --save-recording " +
          saved);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--save-recording FILE needs --record"), std::string::npos) << r.err;
  r = cli("profile " + profile_data("dot.cu") + " --kernel dot --block 256 --model --line 28");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--line N shows a line as recorded: give --record"), std::string::npos)
      << r.err;
}

TEST(ProfileCli, AGpuRecordedLinesPictureHasTheHardwaresWavefronts) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  struct Case {
    const char* kernel;
    int line;
  };
  for (const Case c : {Case{"histogramHashed", 26}, Case{"gatherPermuted", 15}}) {
    const Result r = cli("profile " + profile_data("recorded.cu") + " --kernel " + c.kernel +
                         " --grid 1 --block 256 --arg buffer:1K --arg buffer:1K --record-gpu "
                         "--json --line " +
                         std::to_string(c.line));
    ASSERT_EQ(r.status, 0) << c.kernel << ": " << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    if (j["counters"] != "ok") GTEST_SKIP() << j.dump();
    const auto& pic = j["recording"]["picture"];
    ASSERT_TRUE(pic.contains("analysis")) << pic.dump();
    EXPECT_EQ(pic["made_by"], "gpu recording");
    int64_t hw = -1;
    for (const auto& l : j["lines"])
      if (l["line"] == c.line) hw = l["wavefronts"].get<int64_t>();
    EXPECT_GT(hw, 0) << c.kernel;
    EXPECT_EQ(pic["analysis"]["totals"]["wavefronts"].get<int64_t>(), hw) << c.kernel;
  }
}

// Issue 20's "done means", on a GPU: every shared-memory line of every kernel of
// tests/data/profile/cases.txt (the seeds' kernels as written and bankviz's own), recorded on the
// GPU in the profiled launch itself (--grid 1: block (0,0,0) is the launch), opens as a picture
// whose warps' wavefronts add up to the hardware's count of the line (CUPTI's per-line SASS
// counters), or is refused with a reason: the whole kernel's recording refused by name, the
// line's picture refused, the hardware's figures differing for a reason read from the SASS (the
// compiler's transformation), or no shared instruction on the GPU. A line with neither is a
// failure. Prints, per kernel, "N lines equal, M refused (reasons)".
TEST(ProfileCli, EveryGpuRecordedLineIsAPictureWithTheHardwaresWavefrontsOrRefused) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  std::ifstream in(std::string(BANKVIZ_TEST_DATA) + "/profile/cases.txt");
  ASSERT_TRUE(in) << "tests/data/profile/cases.txt";
  int kernels = 0, pictured = 0, all_equal = 0, all_refused = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ws(line);
    std::string tag, file, kernel, block, shared, arg, args;
    if (!(ws >> tag >> file >> kernel >> block >> shared) || tag[0] == '#') continue;
    while (ws >> arg) args += " --arg " + arg;
    const Result r =
        cli("profile " + profile_data(file.c_str()) + " --kernel '" + kernel +
            "' --grid 1 --block " + block + " --shared " + shared + args + " --record-gpu --json");
    ASSERT_EQ(r.status, 0) << kernel << ": " << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    if (j["counters"] != "ok") GTEST_SKIP() << "no hardware counters here: " << j.dump();
    ++kernels;
    const auto& rec = j["recording"];
    int equal = 0, refused = 0;
    std::string reasons;
    auto refuse = [&](int64_t n, const std::string& why) {
      EXPECT_FALSE(why.empty()) << kernel << " line " << n;
      ++refused;
      reasons += "\n    line " + std::to_string(n) + ": " + why;
    };
    if (!rec.contains("lines")) {  // the kernel's recording refused: every line keeps the hw's
      for (const auto& l : j["lines"]) refuse(l["line"], "not recorded: " + rec.value("why", ""));
    } else {
      for (const auto& l : rec["lines"]) {
        const int64_t n = l["line"];
        const bool hw = l.contains("hardware"), recorded = l.contains("recorded");
        const auto pic = l.value("picture", nlohmann::json::object());
        if (hw && !recorded) {
          if (l["hardware"]["wavefronts"] == 0)
            refuse(n, "no lane of block (0,0,0) made its access (0 wavefronts on the GPU too)");
          else
            ADD_FAILURE() << kernel << " line " << n << ": the hardware counts "
                          << l["hardware"].dump() << ", the recording has no access on it";
          continue;
        }
        if (!hw) {
          refuse(n, "no shared instruction on the GPU (the compiler kept it in registers)");
          continue;
        }
        if (!pic.contains("wavefronts")) {
          refuse(n, "no picture: " + pic.value("why", ""));
          continue;
        }
        int64_t warps = 0;
        for (const auto& w : pic["per_warp"]) warps += w.get<int64_t>();
        EXPECT_EQ(warps, pic["wavefronts"].get<int64_t>()) << kernel << " line " << n;
        const int64_t want = l["hardware"]["wavefronts"];
        if (warps == want) {
          ++equal;
        } else if (l.contains("reason")) {
          refuse(n, "the picture's " + std::to_string(warps) +
                        " wavefronts against the hardware's " + std::to_string(want) + ": " +
                        l["reason"].get<std::string>());
        } else if (l["equal"].get<bool>() && l.contains("compiled") &&
                   !l["compiled"]["how"].get<std::string>().empty()) {
          // The line as compiled equals the hardware, and says what the compiler did to the
          // source's accesses the picture shows (nvcc -O3 merges a thread's loads into LDS.128).
          refuse(n, "the picture's " + std::to_string(warps) +
                        " wavefronts are the source's; as compiled " +
                        std::to_string(l["compiled"]["wavefronts"].get<int64_t>()) +
                        ", the hardware's: " + l["compiled"]["how"].get<std::string>());
        } else {
          ADD_FAILURE() << kernel << " line " << n << ": picture " << warps << " wavefronts, "
                        << "hardware " << want << ", no reason given: " << l.dump();
        }
      }
    }
    pictured += equal > 0;
    all_equal += equal;
    all_refused += refused;
    std::cout << file << " " << kernel << ": " << equal << " lines equal, " << refused << " refused"
              << reasons << "\n";
  }
  std::cout << kernels << " kernels, " << pictured
            << " with pictures equal to the hardware: " << all_equal << " lines equal, "
            << all_refused << " refused with a reason\n";
  EXPECT_GE(kernels, 12);
  EXPECT_GE(pictured, 12);
}

// A template kernel profiled without its instance: the message asks for the instance, as the
// GPU recording's refusal does, not in NVRTC's words about a name expression.
TEST(ProfileCli, ATemplateNamedWithoutItsInstanceAsksForIt) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  const Result r = cli("profile " + profile_data("people.cu") +
                       " --kernel reduceBlock --block 128 --arg buffer:1K --arg buffer:1K");
  EXPECT_NE(r.status, 0);
  EXPECT_NE((r.err + r.out)
                .find("the kernel reduceBlock is a template (line 230): name its "
                      "instance, --kernel 'reduceBlock<...>'"),
            std::string::npos)
      << r.err << r.out;
}

// Issue 30 item 2: the kernel compiled as the user compiles it (nvcc where it is installed, the
// compiler said), and every shared instruction the hardware counted in the table: a store only
// warps with no active lane issue is listed with its executions and 0 wavefronts.
TEST(ProfileCli, TheTableHoldsInstructionsIssuedWithNoActiveLaneAndSaysWhoCompiled) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  const std::string args = " --kernel idleLanes --block 64 --arg buffer:256 --json";
  Result r = cli("profile " + profile_data("idle_lanes.cu") + args + " --record-gpu");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out);
  const std::string by = j["compiled_by"];
  std::error_code ec;
  const bool nvcc = fs::exists("/usr/local/cuda/bin/nvcc", ec);
  EXPECT_EQ(by.rfind(nvcc ? "nvcc (" : "NVRTC (", 0), 0u) << by;
  if (nvcc) {
    EXPECT_NE(by.find("-O3 -lineinfo"), std::string::npos) << by;
  }
  bool idle = false;
  for (const auto& l : j["lines"])
    if (l["line"] == 9) {
      idle = true;
      EXPECT_EQ(l["executed"], 2) << l;  // both warps issue it
      EXPECT_EQ(l["wavefronts"], 0) << l;
      EXPECT_EQ(l["ops"], nlohmann::json::array({"st"})) << l;
    }
  EXPECT_TRUE(idle) << r.out;
  // The GPU recording has no access there: equal (0 wavefronts), the idle issues said.
  for (const auto& l : j["recording"]["lines"])
    if (l["line"] == 9) {
      EXPECT_TRUE(l["equal"].get<bool>()) << l;
      EXPECT_EQ(l["idle_issues"], 2) << l;
    }
  // NVRTC when asked for, and said.
  r = cli("profile " + profile_data("idle_lanes.cu") + args + " --compiler nvrtc");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["compiled_by"].get<std::string>().rfind("NVRTC (-lineinfo; --compiler nvrtc)", 0),
            0u);
  // The user's flags reach nvcc (and a bad one is nvcc's words, not a crash).
  if (nvcc) {
    r = cli("profile " + profile_data("idle_lanes.cu") + args + " --nvcc-flags '-O1 -DUNUSED=1'");
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_NE(nlohmann::json::parse(r.out)["compiled_by"].get<std::string>().find(
                  "-O1 -DUNUSED=1 -lineinfo"),
              std::string::npos)
        << r.out;
  }
}

TEST(ProfileCli, TheSeedsColumnReadIsItsMostExpensiveLine) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  Result r = cli("profile " + profile_data("data_layout.cu") +
                 " --kernel setRowReadCol --block 32x32 --arg buffer:4K");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  if (r.out.find("hardware counters:") != std::string::npos) GTEST_SKIP() << r.out;
  // The first line of the table is the column read, 32 wavefronts per request.
  const size_t header = r.out.find("per req");
  ASSERT_NE(header, std::string::npos) << r.out;
  const size_t begin = r.out.find('\n', header) + 1;
  const std::string first = r.out.substr(begin, r.out.find('\n', begin) - begin);
  EXPECT_NE(first.find("out[idx]=tile[threadIdx.x][threadIdx.y];"), std::string::npos) << r.out;
  EXPECT_NE(first.find("32.00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as bankviz scenarios (the model's picture"), std::string::npos) << r.out;

  r = cli("profile " + profile_data("data_layout.cu") +
          " --kernel setRowReadCol --block 32x32 --arg buffer:4K --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "ok");
  ASSERT_EQ(j["lines"].size(), 2u);
  EXPECT_EQ(j["lines"][0]["excess"], 992);
  EXPECT_EQ(j["lines"][0]["as_scenario"], true);
  // The model's figures beside the hardware's, one block: equal on this line.
  EXPECT_EQ(j["lines"][0]["model"]["wavefronts"], 1024);
  EXPECT_EQ(j["total"]["wavefronts"], 1056);
}

// Block (0,0,0) recorded as the GPU ran it (--record-gpu): every line the recording and the
// hardware both have agrees, requests and wavefronts, in one launch of one block: the seeds'
// column read, the histogram's bins read from memory, bins hashed by the kernel into global memory
// and read back, a warp-shuffle reduction (which the CPU recording cannot run); inline asm is
// refused by name and its lines keep the hardware's figures.
TEST(ProfileCli, TheGpuRecordingEqualsTheHardwareLineByLine) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  struct Case {
    const char* file;
    const char* kernel;
    const char* rest;
    size_t lines;  // recorded lines that the hardware counts too
  };
  const Case cases[] = {
      {"data_layout.cu", "setRowReadCol", "--block 32x32 --arg buffer:4K", 2},
      {"histogram.cu", "histogram", "--block 256 --arg buffer:64K --arg buffer:1K", 3},
      {"recorded.cu", "histogramHashed", "--block 256 --arg buffer:1K --arg buffer:1K", 3},
      {"recorded.cu", "gatherPermuted", "--block 256 --arg buffer:1K --arg buffer:1K", 2},
      {"warp.cu", "shuffleReduce", "--block 256 --arg buffer:1K --arg buffer:16", 2},
  };
  for (const Case& c : cases) {
    const Result r = cli("profile " + profile_data(c.file) + " --kernel " + c.kernel +
                         " --grid 1 " + c.rest + " --record-gpu --json");
    ASSERT_EQ(r.status, 0) << c.kernel << ": " << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    if (j["counters"] != "ok") GTEST_SKIP() << j.dump();
    const auto& rec = j["recording"];
    ASSERT_TRUE(rec.contains("lines")) << c.kernel << ": " << rec.dump();
    EXPECT_EQ(rec["made_by"], "gpu recording");
    size_t both = 0;
    for (const auto& l : rec["lines"]) {
      if (!l.contains("recorded") || !l.contains("hardware")) continue;
      ++both;
      EXPECT_TRUE(l["equal"].get<bool>()) << c.kernel << " line " << l.dump();
    }
    EXPECT_EQ(both, c.lines) << c.kernel << ": " << rec.dump();
  }
  // The hashed bins conflict (several lanes of a warp on different words of one bank), which a
  // zeroed input cannot show: the recorded atomic costs more wavefronts than requests.
  Result r = cli("profile " + profile_data("recorded.cu") +
                 " --kernel histogramHashed --grid 1 --block 256 --arg buffer:1K --arg buffer:1K "
                 "--record-gpu --json");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& l : nlohmann::json::parse(r.out)["recording"]["lines"])
    if (l["line"] == 26) {
      EXPECT_GT(l["recorded"]["wavefronts"].get<int64_t>(),
                l["recorded"]["requests"].get<int64_t>());
    }
  // Inline asm: named, and the text says the lines keep the hardware's figures.
  r = cli("profile " + profile_data("warp.cu") +
          " --kernel withInlineAsm --grid 1 --block 64 --arg buffer:256 --record-gpu");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("not recorded on the GPU: the kernel holds inline asm (line 29)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("every line keeps the hardware's figures only"), std::string::npos);
}

TEST(ProfileCli, AKernelThatNeverEndsTimesOutAndTheProcessEnds) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  const fs::path dir = fs::temp_directory_path() / ("bankviz-loop-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "loop.cu") << "__global__ void spin(volatile int* flag) {\n"
                                    "  while (flag[0] == 0) {}\n"
                                    "}\n";
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = cli("profile '" + (dir / "loop.cu").string() +
                       "' --kernel spin --block 32 --arg buffer:4 --timeout 0.5");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::remove_all(dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("did not finish within 500 ms"), std::string::npos) << r.err;
  EXPECT_LT(s, 30) << "the process must end although its kernel never does";
  // And the GPU is usable again by the next program.
  const Result next = cli("profile " + profile_data("data_layout.cu") +
                          " --kernel setRowReadRow --block 32x32 --arg buffer:4K --no-counters");
  EXPECT_EQ(next.status, 0) << next.err;
}

TEST(ProfileCli, AKernelThatFaultsIsReportedAndTheNextCommandRuns) {
  if (!gpu_machine()) GTEST_SKIP() << "no GPU on this machine (no NVIDIA device node)";
  const fs::path dir = fs::temp_directory_path() / ("bankviz-fault-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "fault.cu") << "__global__ void far(int* o) { o[1 << 28] = 1; }\n";
  const Result r =
      cli("profile '" + (dir / "fault.cu").string() + "' --kernel far --block 32 --arg buffer:4");
  fs::remove_all(dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("launch error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot recover from this error in the same process"), std::string::npos)
      << r.err;
  const Result next = cli("profile " + profile_data("data_layout.cu") +
                          " --kernel setRowReadRow --block 32x32 --arg buffer:4K --no-counters");
  EXPECT_EQ(next.status, 0) << next.err;
}

}  // namespace
}  // namespace bankviz::test
