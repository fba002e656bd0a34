// The app's state under failure: an analysis that throws (out of memory) or takes long keeps the
// last good picture; superseded analyses are dropped; export results are coloured by outcome;
// an exception in the middle of an ImGui frame is recovered from instead of aborting.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "imgui.h"
#include "imgui_internal.h"
#include "shell/app_state.h"
#include "shell/frame_guard.h"

using namespace bankviz;
using namespace bankviz::gui;

namespace {

// A gate an analysis function waits at until the test opens it.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int entered = 0;
  void pass() {
    std::unique_lock<std::mutex> lock(mu);
    ++entered;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void wait_entered(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return entered >= n; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
};

Scenario with_pad(int64_t pad) {
  Scenario s;
  s.name = "pad" + std::to_string(pad);
  s.tiles[0].dims = {32, 32};
  s.tiles[0].pad = pad;
  Step st;
  st.kind = StepKind::Load;
  st.index = "[threadIdx.x][threadIdx.y]";
  s.steps.push_back(st);
  return s;
}

}  // namespace

TEST(Analyzer, AnOutcomeIsForTheNewestRequestOnly) {
  Gate gate;
  std::atomic<int> runs{0};
  Analyzer a([&](const Scenario& s) {
    if (runs++ == 0) gate.pass();  // the first request blocks until released
    return analyze_draft(s);
  });
  a.request(with_pad(0));
  gate.wait_entered(1);
  EXPECT_TRUE(a.busy());
  const uint64_t second = a.request(with_pad(1));
  const uint64_t third = a.request(with_pad(2));  // replaces the queued second one
  EXPECT_GT(third, second);
  EXPECT_FALSE(a.take());  // nothing is ready
  gate.release();
  ASSERT_TRUE(a.wait(30));
  std::optional<AnalysisOutcome> o = a.take();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->id, third);
  EXPECT_EQ(o->scenario.name, "pad2");
  EXPECT_TRUE(o->analysis);
  EXPECT_FALSE(a.take());  // taken once
  EXPECT_FALSE(a.busy());
  EXPECT_EQ(runs.load(), 2);  // the first (superseded, dropped) and the third; never the second
}

TEST(Analyzer, AnExceptionBecomesAFailureNotACrash) {
  Analyzer a([](const Scenario&) -> AnalysisOutcome { throw std::bad_alloc(); });
  a.request(with_pad(0));
  ASSERT_TRUE(a.wait(30));
  std::optional<AnalysisOutcome> o = a.take();
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->analysis);
  EXPECT_NE(o->failure.find("out of memory"), std::string::npos) << o->failure;
  a.set_function([](const Scenario&) -> AnalysisOutcome { throw std::runtime_error("boom"); });
  a.request(with_pad(0));
  ASSERT_TRUE(a.wait(30));
  o = a.take();
  ASSERT_TRUE(o);
  EXPECT_NE(o->failure.find("boom"), std::string::npos) << o->failure;
}

TEST(AppState, AnAnalysisThatThrowsKeepsTheLastGoodPicture) {
  AppState s;
  set_draft(s, with_pad(0));
  ASSERT_TRUE(s.analysis);
  ASSERT_TRUE(s.errors.empty());
  const int version = s.version;
  s.analyzer.set_function([](const Scenario&) -> AnalysisOutcome { throw std::bad_alloc(); });
  set_draft(s, with_pad(1));  // waits for the outcome
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.tiles[0].pad, 0);  // the last good analysis
  EXPECT_EQ(s.scenario.tiles[0].pad, 0);
  EXPECT_EQ(s.version, version);
  EXPECT_EQ(s.draft.tiles[0].pad, 1);  // the user's edit is kept
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].message.find("out of memory"), std::string::npos);
  EXPECT_EQ(s.status.kind, Notice::Error);
  EXPECT_NE(s.status.text.find("out of memory"), std::string::npos);
  // And a start-up file whose analysis throws is an error naming it, not an abort.
  std::string err;
  s.analyzer.set_function([](const Scenario&) -> AnalysisOutcome { throw std::bad_alloc(); });
  const std::string path =
      ::testing::TempDir() + "state-bad-alloc-" + std::to_string(::getpid()) + ".json";
  { std::ofstream(path) << scenario_to_json(with_pad(3)); }
  EXPECT_FALSE(load_draft_file(s, path, "x.json", &err));
  EXPECT_NE(err.find("out of memory"), std::string::npos) << err;
  std::remove(path.c_str());
  // A later good edit analyzes again.
  s.analyzer.set_function(analyze_draft);
  set_draft(s, with_pad(2));
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.tiles[0].pad, 2);
  EXPECT_TRUE(s.errors.empty());
  EXPECT_GT(s.version, version);
}

TEST(AppState, ASlowEditShowsTheOldPictureMarkedStaleUntilItsAnalysisArrives) {
  AppState s;
  set_draft(s, with_pad(0));
  ASSERT_TRUE(s.analysis);
  const int version = s.version;
  Gate gate;
  s.analyzer.set_function([&](const Scenario& sc) {
    gate.pass();
    return analyze_draft(sc);
  });
  s.draft = with_pad(1);
  reanalyze(s);  // an edit: waits kEditWaitSeconds at most
  EXPECT_TRUE(analysis_stale(s));
  EXPECT_GT(s.analyzer.busy_seconds(), 0.0);
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.tiles[0].pad, 0);  // still the last good one
  EXPECT_EQ(s.version, version);
  update_frame(s, 0.016);  // frames go on meanwhile
  EXPECT_EQ(s.version, version);
  // A newer edit supersedes it; only the newest analysis is ever shown.
  gate.wait_entered(1);
  s.draft = with_pad(2);
  reanalyze(s);
  gate.release();
  ASSERT_TRUE(s.analyzer.wait(30));
  update_frame(s, 0.016);
  EXPECT_FALSE(analysis_stale(s));
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.tiles[0].pad, 2);
  EXPECT_EQ(s.version, version + 1);  // pad 1's analysis was dropped, never shown
}

TEST(AppState, ADraftWithErrorsKeepsTheOldAnalysis) {
  AppState s;
  set_draft(s, with_pad(0));
  Scenario bad = with_pad(0);
  bad.steps[0].index = "[threadIdx.x][";
  set_draft(s, bad);
  EXPECT_FALSE(s.errors.empty());
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.steps[0].index, "[threadIdx.x][threadIdx.y]");
}

TEST(AppState, ExportNoticesAreErrorsOnlyWhenTheExportFailed) {
  AppState s;
  report_export(s, true, "bankviz-0001.png", "", 1.0);
  EXPECT_EQ(s.status.text, "saved bankviz-0001.png");
  EXPECT_EQ(s.status.kind, Notice::Info);
  report_export(s, false, "bankviz-0002.png", "cannot write 'x': No space left on device", 2.0);
  EXPECT_EQ(s.status.text, "cannot write 'x': No space left on device");
  EXPECT_EQ(s.status.kind, Notice::Error);
  EXPECT_GT(s.status.until, 2.0);
}

TEST(FrameGuard, AFrameThatThrowsHalfWayIsClosedAndTheNextFrameWorks) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(800, 600);
  io.DeltaTime = 1.0f / 60;
  unsigned char* px = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  ImFont* font = io.Fonts->Fonts[0];
  for (int frame = 0; frame < 3; ++frame) {
    ImGui::NewFrame();
    try {
      // What a panel has open when the model throws inside it: a window, a child, a combo
      // popup's worth of pushes, a font, colours, style vars, IDs, a group, a tooltip.
      ImGui::Begin("panel");
      ImGui::PushID(7);
      ImGui::PushFont(font);
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0, 0, 1));
      ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
      ImGui::BeginGroup();
      ImGui::BeginChild("child", ImVec2(100, 100));
      ImGui::PushFont(font);
      ImGui::PushID("x");
      ImGui::BeginTooltip();
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 1, 0, 1));
      ImGui::TextUnformatted("half drawn");
      throw std::bad_alloc();
    } catch (const std::bad_alloc&) {
      recover_imgui_frame();
    }
    // The frame ends cleanly (ImGui asserts otherwise) and the next one starts from scratch.
    ImGui::Render();
    EXPECT_EQ(ImGui::GetCurrentContext()->CurrentWindowStack.Size, 0);
  }
  for (int frame = 0; frame < 2; ++frame) {  // a new window shows from its second frame
    ImGui::NewFrame();
    ImGui::Begin("after");
    ImGui::TextUnformatted("fine");
    ImGui::End();
    ImGui::Render();
  }
  EXPECT_GT(ImGui::GetDrawData()->CmdListsCount, 0);
  ImGui::DestroyContext();
}

// Issue 8: a preset opens on the step it is about; an edit keeps the place on screen.
Scenario transpose(int64_t pad) {
  Scenario s = with_pad(pad);
  Step store;
  store.kind = StepKind::Store;
  store.index = "[threadIdx.y][threadIdx.x]";
  Step sync;
  sync.kind = StepKind::Sync;
  s.steps.insert(s.steps.begin(), {store, sync});
  return s;
}

TEST(AppState, ALoadedScenarioOpensOnItsWorstStep) {
  AppState s;
  const std::string path =
      testing::TempDir() + "bankviz-open-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << scenario_to_json(transpose(0));
  std::string err;
  ASSERT_TRUE(load_draft_file(s, path, path, &err)) << err;
  std::remove(path.c_str());
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.frame.step, 2);  // the 32-way column load, not the conflict-free store (step 0)
  EXPECT_EQ(s.frame.warp, 0);
  EXPECT_EQ(s.frame.wavefront, 0);
}

TEST(AppState, APresetChosenByNameOpensOnItsOpeningStep) {
  AppState s;
  load_presets(s, std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets");
  std::string err;
  ASSERT_TRUE(select_preset(s, "row-write-column-read", &err)) << err;
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.frame.step, opening_step(*s.analysis));
  EXPECT_NE(s.frame.step, 0);  // the column load, not the conflict-free store
}

// Listing the presets reads none of their files (a start with thousands of them stays fast); a
// title is read when the menu first asks for it. An unknown name gets the CLI's wording.
TEST(AppState, PresetTitlesAreReadWhenAskedForAndAnUnknownNameIsWordedAsInTheCli) {
  AppState s;
  load_presets(s, std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets");
  ASSERT_GT(s.presets.size(), 1u);
  for (const Preset& p : s.presets) EXPECT_FALSE(p.title) << p.name;
  auto it = std::find_if(s.presets.begin(), s.presets.end(),
                         [](const Preset& p) { return p.name == "row-write-column-read"; });
  ASSERT_NE(it, s.presets.end());
  const ScenarioLoad file = load_scenario_file(it->path);
  ASSERT_TRUE(file.scenario);
  ASSERT_FALSE(file.scenario->title.empty());
  EXPECT_EQ(preset_title(*it), file.scenario->title);
  EXPECT_TRUE(it->title);
  std::string err;
  EXPECT_FALSE(select_preset(s, "no-such-preset", &err));
  EXPECT_EQ(err.rfind("no preset named 'no-such-preset'; presets: ", 0), 0u) << err;
  EXPECT_NE(err.find("row-write-column-read"), std::string::npos) << err;
}

TEST(AppState, AnEditKeepsTheStepWarpAndWavefrontWhereTheyStillExist) {
  AppState s;
  set_draft(s, transpose(0));
  ASSERT_TRUE(seek(s, 2, 5, 7));
  update_frame(s, 0);
  ASSERT_EQ(s.frame.wavefront, 7);
  Scenario edited = transpose(2);  // still 2-way: wavefront 7 is gone, step 2 warp 5 stays
  set_draft(s, edited);
  EXPECT_EQ(s.frame.step, 2);
  EXPECT_EQ(s.frame.warp, 5);
  EXPECT_EQ(s.frame.wavefront, 0);
  ASSERT_TRUE(seek(s, 2, 5, 1));
  update_frame(s, 0);
  set_draft(s, transpose(0));  // back to 32-way: wavefront 1 exists again
  EXPECT_EQ(s.frame.step, 2);
  EXPECT_EQ(s.frame.warp, 5);
  EXPECT_EQ(s.frame.wavefront, 1);
}

TEST(AppState, AScenarioOpensOnItsOpenStepRatherThanItsWorst) {
  AppState s;
  Scenario sc = transpose(0);
  sc.open_step = 0;  // the conflict-free row store: the point of this scenario, say
  const std::string path =
      testing::TempDir() + "bankviz-openstep-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << scenario_to_json(sc);
  std::string err;
  ASSERT_TRUE(load_draft_file(s, path, path, &err)) << err;
  std::remove(path.c_str());
  EXPECT_EQ(s.frame.step, 0);
}

// [SECTION] Lessons and the clicker

namespace {

const std::string kAssets = std::string(BANKVIZ_SOURCE_DIR) + "/assets";

}  // namespace

TEST(Clicker, WithoutALessonStepsThroughTheSteps) {
  AppState s;
  set_draft(s, transpose(0));
  ASSERT_TRUE(seek(s, 0, 0, 0));
  clicker(s, 1);
  EXPECT_EQ(s.frame.step, 2);  // the sync has no beat
  clicker(s, -1);
  EXPECT_EQ(s.frame.step, 0);
}

TEST(Clicker, RevealsTheAnswerBeforeTheNextSceneAndGoesBack) {
  AppState s;
  std::string err;
  ASSERT_TRUE(open_lesson(s, kAssets + "/lessons/data-layout.json", kAssets + "/presets", 2, &err))
      << err;
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.preset, "row-write-column-read");
  EXPECT_EQ(s.frame.step, 2);  // the scene opens on the column load
  EXPECT_FALSE(s.lesson.revealed);
  EXPECT_EQ(s.lesson.answer, 32);  // the model's, waiting to be revealed
  clicker(s, 1);
  EXPECT_TRUE(s.lesson.revealed);
  EXPECT_EQ(s.lesson.scene, 2);
  clicker(s, 1);
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(s.lesson.scene, 3);
  EXPECT_FALSE(s.lesson.revealed);
  EXPECT_EQ(s.preset, "row-write-column-read-padded");
  EXPECT_EQ(s.frame.step, 2);  // its point is the column load
  clicker(s, -1);
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(s.lesson.scene, 2);
  EXPECT_EQ(s.preset, "row-write-column-read");
}

TEST(Clicker, ALessonSceneOpensOnItsIteration) {
  AppState s;
  std::string err;
  ASSERT_TRUE(
      open_lesson(s, kAssets + "/lessons/kepler-bank-width.json", kAssets + "/presets", 1, &err))
      << err;
  ASSERT_TRUE(s.analysis);
  ASSERT_GE(s.frame.step, 0);
  EXPECT_EQ(s.analysis->steps[s.frame.step].iteration, 1);
  EXPECT_EQ(s.lesson.answer, 2);
}

TEST(Clicker, ALessonThatDisagreesWithTheModelIsRefusedWithThePath) {
  AppState s;
  const std::string path =
      testing::TempDir() + "bankviz-lesson-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << R"({"scenes": [{"preset": "row-write-column-read", "caption": "c",
    "question": {"ask": "?", "quantity": "wavefronts", "answer": 2}}]})";
  std::string err;
  EXPECT_FALSE(open_lesson(s, path, kAssets + "/presets", 0, &err));
  std::remove(path.c_str());
  EXPECT_NE(err.find("scenes[0].question.answer: 2 disagrees with the model"), std::string::npos)
      << err;
  EXPECT_FALSE(s.lesson.file);
}

// [SECTION] Issue 31: a lesson from the first click, its place remembered

namespace {

// A config directory of the test's own (settings.json in it), removed at the end.
struct ConfigDir {
  std::string path = testing::TempDir() + "bankviz-config-" + std::to_string(::getpid());
  std::string old;
  bool had = false;
  ConfigDir() {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    if (const char* v = std::getenv("XDG_CONFIG_HOME")) {
      had = true;
      old = v;
    }
    ::setenv("XDG_CONFIG_HOME", path.c_str(), 1);
  }
  ~ConfigDir() {
    if (had)
      ::setenv("XDG_CONFIG_HOME", old.c_str(), 1);
    else
      ::unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(path);
  }
};

// What a plain start (`bankviz`, the desktop entry, the browser's page without a link) opens.
// As setup_state does with no --lesson, --preset or file: the settings read, the first view.
std::unique_ptr<AppState> start() {
  auto s = std::make_unique<AppState>();
  std::vector<std::string> problems;
  s->settings = load_settings(&problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  load_presets(*s, kAssets + "/presets");
  std::string err;
  EXPECT_TRUE(open_first_view(*s, &err)) << err;
  return s;
}

}  // namespace

TEST(Lessons, AFirstStartOpensTheDefaultLessonsFirstSceneAsking) {
  const ConfigDir config;  // no settings file: a first start
  auto s = start();
  ASSERT_TRUE(s->lesson.file);
  EXPECT_EQ(s->lesson.catalog, "data-layout");
  EXPECT_EQ(s->lesson.scene, 0);
  EXPECT_TRUE(asking(*s));  // its question, not a red verdict
  EXPECT_EQ(s->preset, "row-write-row-read");
}

TEST(Lessons, ThePlaceInALessonIsRememberedAndAPresetLeavesTheLesson) {
  const ConfigDir config;
  {
    auto s = start();
    clicker(*s, 1);  // the answer
    clicker(*s, 1);  // scene 2
    clicker(*s, 1);
    clicker(*s, 1);  // scene 3
    s->analyzer.wait(1e9);
    ASSERT_EQ(s->lesson.scene, 2);
    keep_place(*s);
    std::string err;
    ASSERT_TRUE(save_settings(s->settings, &err)) << err;
  }
  {
    auto s = start();  // where the room left it
    ASSERT_TRUE(s->lesson.file);
    EXPECT_EQ(s->lesson.scene, 2);
    EXPECT_FALSE(s->lesson.revealed);
    // Another lesson from the menu, then back: each lesson keeps its own place.
    std::string err;
    ASSERT_TRUE(open_catalog_lesson(*s, "histogram", 1, &err)) << err;
    EXPECT_EQ(s->settings.lesson_places.at("histogram"), 2);
    ASSERT_TRUE(open_catalog_lesson(*s, "data-layout", -1, &err)) << err;
    EXPECT_EQ(s->lesson.scene, 2);
    // A preset from the preset menu closes the lesson (no caption over another picture).
    ASSERT_TRUE(choose_preset(*s, "reverse-static", &err, true)) << err;
    EXPECT_FALSE(s->lesson.file);
    EXPECT_FALSE(asking(*s));
    keep_place(*s);
    ASSERT_TRUE(save_settings(s->settings, &err)) << err;
  }
  {
    auto s = start();  // left for a preset: that preset, the lessons' places kept
    EXPECT_FALSE(s->lesson.file);
    EXPECT_EQ(s->preset, "reverse-static");
    EXPECT_EQ(s->settings.lesson_places.at("data-layout"), 3);
  }
}

TEST(Lessons, ARememberedLessonThatIsGoneSaysSoAndOpensAPreset) {
  const ConfigDir config;
  std::filesystem::create_directories(config.path + "/bankviz");
  std::ofstream(config.path + "/bankviz/settings.json")
      << R"({"lesson": "no-such-lesson", "lesson_places": {"data-layout": 99}})";
  auto s = start();
  EXPECT_FALSE(s->lesson.file);
  EXPECT_FALSE(s->preset.empty());
  EXPECT_NE(s->status.text.find("no-such-lesson"), std::string::npos) << s->status.text;
  // A place past the lesson's end opens its first scene.
  std::string err;
  ASSERT_TRUE(open_catalog_lesson(*s, "data-layout", -1, &err)) << err;
  EXPECT_EQ(s->lesson.scene, 0);
}

TEST(Lessons, TheMenuListsEveryLessonAndItsScenes) {
  AppState s;
  const std::vector<LessonEntry>& menu = lesson_catalog(s);
  ASSERT_GE(menu.size(), 9u);
  for (const LessonEntry& e : menu) {
    EXPECT_TRUE(e.ok) << e.name << ": " << e.title;
    EXPECT_FALSE(e.title.empty()) << e.name;
    EXPECT_GE(e.scenes.size(), 3u) << e.name;
    for (const std::string& t : e.scenes) EXPECT_FALSE(t.empty()) << e.name;
  }
  EXPECT_TRUE(std::any_of(menu.begin(), menu.end(),
                          [](const LessonEntry& e) { return e.name == "data-layout"; }));
}

// The reveal plays the asked warp's answer and stays on it: no other warp's count under "A: 4"
// (histogram scene 1 ran on to a 3-way warp about 12 s after its reveal).
TEST(Lessons, TheRevealStaysOnTheAskedWarpsAnswer) {
  for (const auto& [lesson, scene] : std::vector<std::pair<std::string, int>>{
           {"histogram", 0}, {"data-layout", 2}, {"dot-product", 1}}) {
    for (const bool loop : {true, false}) {
      AppState s;
      s.settings.loop = loop;
      std::string err;
      ASSERT_TRUE(open_catalog_lesson(s, lesson, scene, &err)) << err;
      ASSERT_TRUE(s.lesson.file->scenes[static_cast<size_t>(scene)].question) << lesson;
      reveal_answer(s);
      ASSERT_TRUE(s.playing) << lesson;
      const int step = s.lesson.step, warp = s.lesson.warp;
      ASSERT_GE(step, 0);
      std::set<int> seen;
      for (int i = 0; i < 600; ++i) {  // a minute at 10 frames a second
        update_frame(s, 0.1);
        ASSERT_EQ(s.frame.step, step) << lesson << " scene " << scene + 1 << " at " << i * 0.1;
        ASSERT_EQ(s.frame.warp, warp) << lesson << " scene " << scene + 1 << " at " << i * 0.1;
        seen.insert(s.frame.wavefront);
      }
      // Every wavefront of the answer was played.
      EXPECT_EQ(static_cast<int>(seen.size()), s.frame.wavefronts) << lesson;
      EXPECT_EQ(s.playing, loop) << lesson;
      // Moved by hand to another warp, playing goes on as ever.
      if (s.analysis->warp_count() > 1) {
        const int other = warp == 0 ? 1 : 0;
        ASSERT_TRUE(seek(s, step, other, 0));
        s.playing = true;
        bool left = false;
        for (int i = 0; i < 600 && !left; ++i) {
          update_frame(s, 0.1);
          left = s.frame.step != step || s.frame.warp != other;
        }
        EXPECT_TRUE(left || !s.playing) << lesson;
      }
    }
  }
}

// Issue 31: a lane digit is drawn in ink_on(its chip) (ui.cpp draw_lane_label): at least 4.5:1 on
// every bank's lit colour, in both themes, at the desk and in presenter mode (white on the
// yellow chip was 1.18:1).
TEST(LaneDigits, EveryLaneDigitStandsOutOnItsChipInBothThemes) {
  for (const Palette& pal : {dark_palette(), light_palette(), high_contrast(dark_palette()),
                             high_contrast(light_palette())})
    for (const int banks : {32, 16})
      for (int b = 0; b < banks; ++b) {
        const Rgba chip = pal.bank(b, banks, true);
        EXPECT_GE(contrast_ratio(ink_on(chip), chip), 4.5)
            << "bank " << b << " of " << banks << (pal.light ? " light" : " dark");
      }
}
