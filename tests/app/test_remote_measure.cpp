// test_remote_measure.cpp: the app's Measurer on a GPU elsewhere (measure/remote_gpu.h, through
// `bankviz-cli serve` and a fake remote that has a GPU and then dies) and on the recorded sets
// (measure_recorded: the shipped H200 set, labelled; an edit never recorded: "not measured").
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "../test_support.h"
#include "bankviz/scenario.h"
#include "gpu_protocol.h"
#include "measure/measure.h"
#include "measure/remote_gpu.h"
#include "recorded.h"
#include "run_json.h"
#include "shell/settings.h"

using bankviz::test::preset_scenario;

namespace bankviz::gui {
namespace {

// What a GPU host with an H200 says first (a script plays the remote in these tests).
Greeting h200_greeting() {
  Greeting g;
  g.protocol_version = kProtocolVersion;
  g.bankviz = BANKVIZ_VERSION;
  g.device.present = true;
  g.device.name = "NVIDIA H200";
  g.device.sm = "sm_90";
  return g;
}

Measurement measure(Measurer& m, const Scenario& s) {
  m.request(s);
  m.wait(60);
  auto last = m.last();
  EXPECT_TRUE(last);
  return last ? *last : Measurement{};
}

// Through the real server: without a GPU there it says so and the Measurer is unavailable.
TEST(RemoteMeasure, ServeWithoutAGpuSaysSo) {
  GpuTarget t;
  t.command = std::string("'") + BANKVIZ_CLI + "' serve";
  auto gpu = std::make_shared<RemoteGpu>(t);
  GpuClient probe(t);
  ASSERT_EQ(probe.connect(), "");
  if (probe.greeting().device.present) GTEST_SKIP() << "the server has a GPU (the device test)";
  Measurer m;
  m.set_runner(remote_runner(gpu));
  m.set_source([gpu] { return gpu->status(); });
  const Measurement r = measure(m, preset_scenario("row-write-column-read"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("has no usable GPU"), std::string::npos) << r.error;
  EXPECT_EQ(m.state(), Measurer::State::Unavailable);
  EXPECT_NE(m.source().find("has no usable GPU"), std::string::npos) << m.source();
}

// A remote that has a GPU: its figure on stage with the GPU's name; then the remote dies and the
// last figure stays, marked stale, and the Measurer stays available.
TEST(RemoteMeasure, FigureThenLostConnectionKeepsItStale) {
  namespace fs = std::filesystem;
  const Scenario s = preset_scenario("row-write-column-read");
  // A recorded run as the remote's answer (the shipped set's, or a made-up one).
  std::optional<RecordedRun> rec = find_recorded_run(shipped_recorded_sets(), s, RunMode::Exposed);
  ASSERT_TRUE(rec) << "assets/recorded holds no run of row-write-column-read";
  Reply reply;
  reply.ok = true;
  reply.out = run_result_json(s, rec->result).dump();
  const Greeting g = h200_greeting();
  const fs::path dir = fs::temp_directory_path() / ("bankviz-rm-" + std::to_string(getpid()));
  fs::create_directories(dir);
  // Answers the first request of its life (the figure: id 1), then ends; a second connection
  // (the next request) finds nothing: the script exists once.
  const fs::path script = dir / "gpu.sh";
  reply.id = 1;
  std::ofstream(script) << "[ -e '" << (dir / "used").string() << "' ] && exit 3\ntouch '"
                        << (dir / "used").string() << "'\ncat <<'EOF'\n"
                        << greeting_json(g).dump() << "\nEOF\nread -r l\ncat <<'EOF'\n"
                        << reply_json(reply).dump() << "\nEOF\nexit 0\n";
  GpuTarget t;
  t.command = "sh '" + script.string() + "'";
  auto gpu = std::make_shared<RemoteGpu>(t);
  Measurer m;
  m.set_runner(remote_runner(gpu));
  m.request(s, true);  // the figure only: one request
  m.wait(30);
  auto first = m.last();
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->ok) << first->error;
  const int load = 2;  // the column read
  EXPECT_NE(stage_line(*first, load).find("measured on H200: 32."), std::string::npos)
      << stage_line(*first, load);
  EXPECT_EQ(gpu->status(), "H200 on the GPU command '" + t.command + "'");
  // The next edit: the connection is gone and cannot be made again.
  Scenario edited = s;
  edited.tiles[0].pad = 1;
  m.request(edited, true);
  m.wait(30);
  auto second = m.last();
  ASSERT_TRUE(second);
  EXPECT_EQ(gpu->state(), RemoteGpu::State::Lost) << gpu->status();
  ASSERT_TRUE(second->ok) << second->error;
  EXPECT_FALSE(second->stale.empty());
  EXPECT_NE(stage_line(*second, load).find("(stale: GPU connection lost)"), std::string::npos)
      << stage_line(*second, load);
  EXPECT_NE(m.state(), Measurer::State::Unavailable);
  fs::remove_all(dir);
}

// Without any GPU the recorded figure shows where the scenario was recorded, labelled; an edit
// that was never recorded says it was not measured.
TEST(RecordedMeasure, LabelledWhereRecordedElseNotMeasured) {
  const Scenario s = preset_scenario("row-write-column-read");
  if (!find_recorded_run(shipped_recorded_sets(), s, RunMode::Exposed))
    GTEST_FAIL() << "assets/recorded holds no run of row-write-column-read";
  Measurer m;
  m.set_runner(measure_recorded);
  const Measurement r = measure(m, s);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.recorded, "measured on H200, recorded 2026-11-29");
  EXPECT_NE(stage_line(r, 2).find("measured on H200, recorded 2026-11-29: 32."), std::string::npos)
      << stage_line(r, 2);
  EXPECT_FALSE(r.counters.empty());  // the presets were recorded with their counters
  Scenario edited = s;
  edited.tiles[0].pad = 40;
  const Measurement none = measure(m, edited);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.error, kNotMeasured);
  EXPECT_NE(m.state(), Measurer::State::Unavailable);  // the next edit is looked up again
}

// The GPU menu's choices (use_gpu_setting): one that cannot be used is refused with the reason
// and the Measurer keeps measuring where it did; nothing of a refused host is run.
TEST(GpuSetting, RefusedChoicesSayWhyAndLeaveTheMeasurerAsItWas) {
  namespace fs = std::filesystem;
  Measurer m;
  use_recorded(m);
  const std::string before = m.source();
  EXPECT_EQ(before, "the recorded figures only");
  const fs::path touched = fs::temp_directory_path() / ("bankviz-gs-" + std::to_string(getpid()));
  struct Case {
    Settings::GpuSource source;
    std::string host, command;
    const char* says;
  };
  using G = Settings::GpuSource;
  for (const Case& c : {
           Case{G::Ssh, "-oProxyCommand=touch " + touched.string(), "", "cannot start with '-'"},
           Case{G::Ssh, "", "", "give an ssh destination"},
           Case{G::Ssh, "gpu1 rm", "", "has no spaces"},
           Case{G::Command, "", "", "give a command"},
           Case{G::Command, "", "  \t ", "the command is blank"},
       }) {
    const std::string why = use_gpu_setting(m, c.source, c.host, c.command);
    EXPECT_NE(why.find(c.says), std::string::npos) << why;
    EXPECT_EQ(m.source(), before) << c.says;
  }
  const Measurement r = measure(m, preset_scenario("row-write-column-read"));
  EXPECT_EQ(r.recorded, "measured on H200, recorded 2026-11-29") << r.error;
  EXPECT_FALSE(fs::exists(touched));
}

// "Recorded figures only": the shipped set's figure even where this machine has a GPU, and the
// menu says which sets.
TEST(GpuSetting, RecordedOnlyShowsTheShippedSetsFigures) {
  Measurer m;
  ASSERT_EQ(use_gpu_setting(m, Settings::GpuSource::Recorded, "", ""), "");
  const Measurement r = measure(m, preset_scenario("row-write-column-read"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.recorded, "measured on H200, recorded 2026-11-29");
  EXPECT_EQ(m.source(), "the recorded figures only (measured on H200, recorded 2026-11-29)");
}

// This machine's GPU: without one, the menu and the panel say that the figures are recorded
// ones, and an edit nobody recorded is "not measured", the Measurer still available.
TEST(GpuSetting, ThisMachineWithoutAGpuSaysTheFiguresAreRecorded) {
  Measurer m;
  ASSERT_EQ(use_gpu_setting(m, Settings::GpuSource::Here, "", ""), "");
  EXPECT_EQ(m.source(), "this machine's GPU");
  const Scenario s = preset_scenario("row-write-column-read");
  const Measurement r = measure(m, s);
  if (r.ok && r.recorded.empty()) GTEST_SKIP() << "this machine has a GPU: " << r.device;
  EXPECT_EQ(r.recorded, "measured on H200, recorded 2026-11-29") << r.error;
  EXPECT_EQ(m.source(),
            "none on this machine: the recorded figures (measured on H200, recorded 2026-11-29)");
  Scenario edited = s;
  edited.tiles[0].pad = 40;
  const Measurement none = measure(m, edited);
  EXPECT_EQ(none.error, kNotMeasured);
  EXPECT_NE(m.state(), Measurer::State::Unavailable);
}

// A command chosen in the menu: `bankviz-cli serve` itself; the source names it (with its GPU,
// or that it has none).
TEST(GpuSetting, ACommandChosenMeasuresThroughIt) {
  Measurer m;
  const std::string cmd = std::string("'") + BANKVIZ_CLI + "' serve";
  ASSERT_EQ(use_gpu_setting(m, Settings::GpuSource::Command, "", cmd), "");
  const Measurement r = measure(m, preset_scenario("row-write-column-read"));
  const std::string src = m.source();
  if (r.ok) {
    EXPECT_NE(src.find(" on the GPU command '"), std::string::npos) << src;  // "H200 on ..."
    EXPECT_NE(r.remote.find("on the GPU command"), std::string::npos) << r.remote;
  } else {
    EXPECT_EQ(src.find("the GPU command '"), 0u) << src;
    EXPECT_NE(src.find("' has no usable GPU: "), std::string::npos) << src;
  }
}

// A GPU that greets and then never answers a request: choosing another source in the GPU menu
// ends the hung request at once (the new source's figure comes within seconds, not at the
// request's 600 s deadline, and the switch itself does not wait), and a Measurer that ends while
// such a request hangs (the app quitting) ends at once too.
TEST(GpuSetting, SwitchingAwayFromAHungGpuWaitsForNothing) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const Greeting g = h200_greeting();
  const fs::path dir = fs::temp_directory_path() / ("bankviz-hung-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path script = dir / "hung.sh";
  std::ofstream(script) << "cat <<'EOF'\n" << greeting_json(g).dump() << "\nEOF\nexec sleep 600\n";
  const std::string cmd = "sh '" + script.string() + "'";
  const Scenario s = preset_scenario("row-write-column-read");
  auto hang = [&](Measurer& m) {
    ASSERT_EQ(use_gpu_setting(m, Settings::GpuSource::Command, "", cmd), "");
    m.request(s);
    const auto until = Clock::now() + std::chrono::seconds(20);
    while (m.source().rfind("H200 on ", 0) != 0 && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(m.source().rfind("H200 on ", 0), 0u) << m.source();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the request is sent
    EXPECT_EQ(m.state(), Measurer::State::Running);
  };
  {
    Measurer m;
    hang(m);
    const auto t0 = Clock::now();
    ASSERT_EQ(use_gpu_setting(m, Settings::GpuSource::Recorded, "", ""), "");
    EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500));  // the UI's thread
    m.request(s);
    m.wait(30);
    EXPECT_NE(m.state(), Measurer::State::Running);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(30));
    auto r = m.current();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->recorded, "measured on H200, recorded 2026-11-29") << r->error;
  }
  auto m = std::make_unique<Measurer>();
  hang(*m);
  const auto t0 = Clock::now();
  m.reset();  // the app ends while the request hangs
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace bankviz::gui
