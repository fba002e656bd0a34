// Lessons (core lesson.h) and the presets' opening step (scenario.h open_step): every lesson in
// assets/lessons loads, every scene analyzes, every answer is the model's; bad files say where.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "../test_support.h"
#include "bankviz/analysis.h"
#include "bankviz/lesson.h"

using bankviz::test::analyzed;

using namespace bankviz;

namespace {

const std::string kAssets = std::string(BANKVIZ_SOURCE_DIR) + "/assets";
const std::string kPresets = kAssets + "/presets";

std::vector<std::string> lesson_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kAssets + "/lessons"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string all(const std::vector<Diagnostic>& errors) {
  std::string out;
  for (const Diagnostic& d : errors) out += d.format() + "\n";
  return out;
}

// The first problem's formatted text, for a lesson given as JSON text.
std::string first_error(const std::string& json) {
  LessonLoad l = lesson_from_json(json);
  EXPECT_FALSE(l.lesson) << json;
  return l.errors.empty() ? std::string() : l.errors.front().format();
}

}  // namespace

// [SECTION] The lessons shipped

TEST(Lessons, EveryLessonLoadsAndEveryAnswerIsTheModels) {
  const auto files = lesson_files();
  ASSERT_GE(files.size(), 5u);  // one per seed
  for (const std::string& f : files) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f << "\n" << all(l.errors);
    EXPECT_FALSE(l.lesson->title.empty()) << f;
    EXPECT_GE(l.lesson->scenes.size(), 3u) << f;
    EXPECT_EQ(all(check_lesson(*l.lesson, kPresets)), "") << f;
    for (const Scene& scene : l.lesson->scenes) EXPECT_FALSE(scene.caption.empty()) << f;
  }
}

TEST(Lessons, OneLessonPerSeedNamingItsSeedFile) {
  std::set<std::string> sources;
  for (const std::string& f : lesson_files()) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f;
    sources.insert(l.lesson->source);
  }
  for (const char* seed :
       {"data-layout-in-shared-memory.txt", "kepler-bank-width-filter.txt",
        "lesson-shared-memory-histogram.txt", "lecture-shared-memory-dot-product.txt",
        "cuda-fortran-shared-memory.txt"})
    EXPECT_TRUE(sources.count(seed)) << seed;
}

TEST(Lessons, DataLayoutTellsTheSeedsStoryInOrder) {
  LessonLoad l = load_lesson_file(kAssets + "/lessons/data-layout.json");
  ASSERT_TRUE(l.lesson);
  std::vector<std::string> presets;
  for (const Scene& s : l.lesson->scenes) presets.push_back(s.preset);
  // row/row, column/column, row-write/column-read, padded, rectangular, padded by 1, 2. The
  // seed's dynamic versions and setColReadRow draw an earlier scene's picture: said in its reveal.
  auto at = [&](const std::string& p) {
    return std::find(presets.begin(), presets.end(), p) - presets.begin();
  };
  EXPECT_LT(at("row-write-row-read"), at("column-write-column-read"));
  EXPECT_LT(at("column-write-column-read"), at("row-write-column-read"));
  EXPECT_LT(at("row-write-column-read"), at("row-write-column-read-padded"));
  EXPECT_LT(at("row-write-column-read-padded"), at("rect-row-write-column-read"));
  EXPECT_LT(at("rect-row-write-column-read"), at("rect-row-write-column-read-pad1"));
  EXPECT_LT(at("rect-row-write-column-read-pad1"), at("rect-row-write-column-read-pad2"));
  EXPECT_LT(at("rect-row-write-column-read-pad2"), static_cast<long>(presets.size()));
}

TEST(Lessons, KeplerFloat2InFourByteModeOpensOnAConflictingTap) {
  LessonLoad l = load_lesson_file(kAssets + "/lessons/kepler-bank-width.json");
  ASSERT_TRUE(l.lesson);
  // The float2 4-byte scene opens at tap i=1 (the first tap, i=0, happens to be aligned).
  const Scene* four = nullptr;
  for (const Scene& s : l.lesson->scenes)
    if (s.preset == "kepler-filter-float2-4byte") four = &s;
  ASSERT_TRUE(four);
  ScenarioLoad sl = scene_scenario(*four, kPresets);
  ASSERT_TRUE(sl.scenario);
  const Analysis a = analyzed(*sl.scenario);
  const int step = scene_step(a, *four);
  ASSERT_GE(step, 0);
  EXPECT_EQ(a.steps[step].iteration, 1);
  EXPECT_GT(model_answer(a, Quantity::Wavefronts, step), model_answer(a, Quantity::Ideal, step));
}

// [SECTION] The model's answers

TEST(Lessons, AWrongAnswerIsReportedWithTheModelsValue) {
  LessonLoad l = lesson_from_json(R"({"title": "t", "scenes": [
    {"preset": "row-write-column-read", "caption": "c",
     "question": {"ask": "how many?", "quantity": "wavefronts", "answer": 31}}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  const auto errors = check_lesson(*l.lesson, kPresets);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "scenes[0].question.answer");
  EXPECT_NE(errors[0].message.find("wavefronts = 32"), std::string::npos) << errors[0].message;
}

TEST(Lessons, QuantitiesReadTheAnalysisAtTheOpeningStep) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/row-write-column-read.json");
  ASSERT_TRUE(sl.scenario);
  Scenario s = *sl.scenario;
  s.open_step = 0;  // the row store
  Analysis a = analyzed(s);
  int step = opening_step(a);
  EXPECT_EQ(a.steps[step].step, 0);
  EXPECT_EQ(model_answer(a, Quantity::Wavefronts, step), a.warps[step][0].result.wavefronts);
  s.open_step = 2;  // the column load
  a = analyzed(s);
  step = opening_step(a);
  EXPECT_EQ(a.steps[step].step, 2);
  EXPECT_EQ(model_answer(a, Quantity::Wavefronts, step), 32);
  EXPECT_EQ(model_answer(a, Quantity::StepWavefronts, step), a.step_wavefronts(step));
  EXPECT_EQ(model_answer(a, Quantity::RacingAccesses, step), 0);
}

TEST(Lessons, RacingAccessesCountTheHazardModelsRaces) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/histogram-missing-sync.json");
  ASSERT_TRUE(sl.scenario);
  const Analysis a = analyzed(*sl.scenario);
  EXPECT_GT(model_answer(a, Quantity::RacingAccesses, opening_step(a)), 0);
  EXPECT_EQ(model_answer(a, Quantity::RacingAccesses, opening_step(a)), a.hazards.racing_accesses);
}

TEST(Lessons, SceneWarpIsTheWarpWhoseRequestTheQuestionCounts) {
  // The histogram's atomic: warps differ; the scene shows the one the answer is about.
  ScenarioLoad sl = load_scenario_file(kPresets + "/histogram-shared-atomics.json");
  ASSERT_TRUE(sl.scenario);
  const Analysis a = analyzed(*sl.scenario);
  const int step = opening_step(a);
  const int warp = scene_warp(a, step);
  ASSERT_GE(warp, 0);
  const int64_t answer = model_answer(a, Quantity::Wavefronts, step);
  EXPECT_EQ(a.warps[step][warp].result.wavefronts, answer);
  for (size_t w = 0; w < a.warps[step].size(); ++w) {
    EXPECT_LE(a.warps[step][w].result.wavefronts, answer) << "warp " << w;
    if (static_cast<int>(w) < warp) {
      EXPECT_LT(a.warps[step][w].result.wavefronts, answer);
    }
  }
  EXPECT_EQ(scene_warp(a, -1), -1);
}

TEST(Lessons, FiguresInATextAreFilledFromTheAnalysis) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/row-write-column-read.json");
  ASSERT_TRUE(sl.scenario);
  const Analysis a = analyzed(*sl.scenario);
  const int step = opening_step(a);  // the column load: 32-way
  std::string error;
  EXPECT_EQ(fill_scene_text("a {ways}-way conflict: {wavefronts} where {ideal} would do, warp "
                            "{warp}; {{braces}}",
                            a, step, &error)
                .value_or("?" + error),
            "a 32-way conflict: 32 where 1 would do, warp 0; {braces}");
  EXPECT_FALSE(fill_scene_text("{nope}", a, step, &error));
  EXPECT_NE(error.find("unknown figure {nope}"), std::string::npos) << error;
  EXPECT_FALSE(fill_scene_text("an { unclosed", a, step, &error));
  EXPECT_NE(error.find("unclosed '{'"), std::string::npos) << error;
  EXPECT_FALSE(fill_scene_text("a lone }", a, step, &error));
  // Before the reveal only the caption; after, the reveal too.
  Scene scene;
  scene.caption = "The column load.";
  scene.reveal = "{wavefronts} wavefronts.";
  scene.question = Question{"How many?", Quantity::Wavefronts, 32};
  EXPECT_EQ(scene_caption(scene, a, step, false), "The column load.");
  EXPECT_EQ(scene_caption(scene, a, step, true), "The column load. 32 wavefronts.");
}

TEST(Lessons, NoShippedCaptionOrQuestionStatesItsAnswerBeforeTheReveal) {
  for (const std::string& f : lesson_files()) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f;
    for (size_t i = 0; i < l.lesson->scenes.size(); ++i) {
      const Scene& scene = l.lesson->scenes[i];
      if (!scene.question) continue;
      ScenarioLoad sl = scene_scenario(scene, kPresets);
      ASSERT_TRUE(sl.scenario) << f << " scene " << i;
      const Analysis a = analyzed(*sl.scenario);
      const int step = scene_step(a, scene);
      const std::string before = scene_caption(scene, a, step, false) + " " + scene.question->ask;
      for (const char* telling : {"conflict-free", "no conflict", "-way", "wavefronts:"})
        EXPECT_EQ(before.find(telling), std::string::npos)
            << f << " scene " << i << " tells '" << telling << "' early: " << before;
      EXPECT_FALSE(scene.reveal.empty()) << f << " scene " << i << ": the answer needs its words";
    }
  }
}

TEST(Lessons, TheFieldsLessonsCoverSwizzlesVectorWidthsMatrixLoadsAndTheTiledMatmul) {
  const std::map<std::string, std::vector<std::string>> want = {
      {"swizzles", {"transpose-swizzled", "half-tile-swizzle-3-3-3"}},
      {"vector-widths", {"float4-rows-and-broadcasts"}},
      {"ldmatrix", {"ldmatrix-x4-row-major", "ldmatrix-x4-swizzle-3-3-3", "stmatrix-x4-epilogue"}},
      {"tiled-matmul", {"matmul-tile32", "sgemm-as-transposed-store-padded"}},
  };
  for (const auto& [name, presets] : want) {
    LessonLoad l = load_lesson_file(kAssets + "/lessons/" + name + ".json");
    ASSERT_TRUE(l.lesson) << name << "\n" << all(l.errors);
    std::set<std::string> used;
    for (const Scene& s : l.lesson->scenes) used.insert(s.preset);
    for (const std::string& p : presets) EXPECT_TRUE(used.count(p)) << name << " lacks " << p;
    EXPECT_LE(lesson_minutes(*l.lesson), kMaxLessonMinutes) << name;
  }
}

TEST(Lessons, EveryShippedLessonFitsALecture) {
  for (const std::string& f : lesson_files()) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f;
    EXPECT_LE(lesson_minutes(*l.lesson), kMaxLessonMinutes) << f;
  }
}

// A path through a lecture: every shipped lesson fills 40 to 45 minutes, and every scene's notes
// say what fills its minutes after the answer (the live edit, comparison or sweep).
TEST(Lessons, EveryShippedLessonIsAPathThroughALecture) {
  for (const std::string& f : lesson_files()) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f;
    EXPECT_GE(lesson_minutes(*l.lesson), 40) << f;
    for (size_t i = 0; i < l.lesson->scenes.size(); ++i)
      EXPECT_GE(l.lesson->scenes[i].notes.size(), 40u) << f << " scenes[" << i << "]";
  }
}

TEST(Lessons, NotesAreOneParagraphNeverBlank) {
  const std::string scene = R"({"preset": "row-write-row-read", "caption": "c", )";
  LessonLoad ok = lesson_from_json(R"({"scenes": [)" + scene + R"("notes": "Pad it live."}]})");
  ASSERT_TRUE(ok.lesson) << all(ok.errors);
  EXPECT_EQ(ok.lesson->scenes[0].notes, "Pad it live.");
  EXPECT_NE(lesson_to_json(*ok.lesson).find(R"("notes": "Pad it live.")"), std::string::npos);
  EXPECT_NE(first_error(R"({"scenes": [)" + scene + R"("notes": " "}]})").find("scenes[0].notes"),
            std::string::npos);
  EXPECT_NE(first_error(R"({"scenes": [)" + scene + R"("notes": "a\u001b[2Jb"}]})")
                .find("without control characters"),
            std::string::npos);
  EXPECT_NE(first_error(R"({"scenes": [)" + scene + R"("notes": 3}]})").find("scenes[0].notes"),
            std::string::npos);
}

// [SECTION] Yes/no questions, the warps, the busiest bank

TEST(Lessons, ARaceIsAskedYesOrNo) {
  LessonLoad l = lesson_from_json(R"({"title": "t", "scenes": [
    {"preset": "histogram-missing-sync", "caption": "c", "reveal": "{racing_accesses} of them.",
     "question": {"ask": "Does it race?", "quantity": "races", "answer": true}},
    {"preset": "row-write-row-read", "caption": "c", "reveal": "r",
     "question": {"ask": "Does it race?", "quantity": "races", "answer": 0}}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  EXPECT_EQ(l.lesson->scenes[0].question->answer, 1);
  EXPECT_EQ(all(check_lesson(*l.lesson, kPresets)), "");
  EXPECT_EQ(answer_words(Quantity::Races, 1), "yes");
  EXPECT_EQ(answer_words(Quantity::Races, 0), "no");
  EXPECT_EQ(answer_words(Quantity::Wavefronts, 32), "32");
  // Wrong: said in words, with the model's.
  l.lesson->scenes[1].question->answer = 1;
  const auto errors = check_lesson(*l.lesson, kPresets);
  ASSERT_EQ(errors.size(), 1u) << all(errors);
  EXPECT_EQ(errors[0].path, "scenes[1].question.answer");
  EXPECT_NE(errors[0].message.find("yes disagrees with the model: races = no"), std::string::npos)
      << errors[0].message;
  // A count is not a yes, nor a yes a count.
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": "c",
      "question": {"ask": "a", "quantity": "races", "answer": 2}}]})")
                .find("scenes[0].question.answer: a yes/no question"),
            std::string::npos);
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": "c",
      "question": {"ask": "a", "quantity": "wavefronts", "answer": true}}]})")
                .find("scenes[0].question.answer: expected a number"),
            std::string::npos);
  // The racing count tells a race before it is asked.
  LessonLoad early = lesson_from_json(R"({"scenes": [{"preset": "histogram-missing-sync",
      "caption": "{racing_accesses} racing.", "question": {"ask": "Does it race?",
      "quantity": "races", "answer": true}}]})");
  ASSERT_TRUE(early.lesson);
  EXPECT_NE(all(check_lesson(*early.lesson, kPresets)).find("states the answer"),
            std::string::npos);
}

TEST(Lessons, WarpsCountTheWarpsThatIssueTheStep) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/dot-product-reduction.json");
  ASSERT_TRUE(sl.scenario);
  Scenario s = *sl.scenario;
  s.open_step = 2;  // i = 128: threads 0..127 read
  const Analysis a = analyzed(s);
  const int step = opening_step(a);
  EXPECT_EQ(model_answer(a, Quantity::Warps, step), 4);
  EXPECT_EQ(fill_scene_text("{warps} warps, {step_wavefronts} wavefronts", a, step).value_or(""),
            "4 warps, 4 wavefronts");
}

TEST(Lessons, BankPassesReadTheBusiestBankWithOrWithoutTheDetail) {
  // Doubles on cc 1.x: every bank makes 4 passes, yet the request takes 8 wavefronts.
  ScenarioLoad sl = load_scenario_file(kPresets + "/reverse-double-cc1x.json");
  ASSERT_TRUE(sl.scenario);
  Scenario s = *sl.scenario;
  s.open_step = 2;
  const Analysis full = analyzed(s);
  const int step = opening_step(full);
  EXPECT_EQ(
      fill_scene_text("{bank_passes} passes, {wavefronts} wavefronts", full, step).value_or(""),
      "4 passes, 8 wavefronts");
  TraceResult t = trace(s);
  ASSERT_TRUE(t.trace);
  AnalysisResult counts = analyze(s, nullptr, std::move(*t.trace), ServeDetail::CountsOnly);
  ASSERT_TRUE(counts.analysis);
  EXPECT_EQ(fill_scene_text("{bank_passes}", *counts.analysis, step).value_or(""), "4");
}

// [SECTION] A lesson worth a lecture: no repeats, no empty words, 45 minutes

TEST(Lessons, ASceneThatRepeatsAnEarlierPictureAndQuestionIsRefused) {
  // The dynamic version of a kernel puts the same words in the same banks.
  LessonLoad l = lesson_from_json(R"({"scenes": [
    {"preset": "row-write-column-read", "caption": "c", "reveal": "r",
     "question": {"ask": "a", "quantity": "wavefronts", "answer": 32}},
    {"preset": "row-write-column-read-dynamic", "caption": "c", "reveal": "r",
     "question": {"ask": "a", "quantity": "wavefronts", "answer": 32}}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  const auto errors = check_lesson(*l.lesson, kPresets);
  ASSERT_EQ(errors.size(), 1u) << all(errors);
  EXPECT_EQ(errors[0].path, "scenes[1]");
  EXPECT_NE(errors[0].message.find("repeats scenes[0]"), std::string::npos);
  // The same picture asked something else is a new scene.
  l.lesson->scenes[1].question = Question{"a", Quantity::Ideal, 1};
  EXPECT_EQ(all(check_lesson(*l.lesson, kPresets)), "");
}

TEST(Lessons, EmptyWordsAreRefused) {
  LessonLoad l = lesson_from_json(R"({"scenes": [{"preset": "row-write-row-read",
      "caption": "  ", "question": {"ask": "", "quantity": "wavefronts", "answer": 1}}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  const std::string errors = all(check_lesson(*l.lesson, kPresets));
  EXPECT_NE(errors.find("scenes[0].caption: empty"), std::string::npos) << errors;
  EXPECT_NE(errors.find("scenes[0].question.ask: empty"), std::string::npos) << errors;
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": "c",
      "reveal": " "}]})")
                .find("scenes[0].reveal: empty"),
            std::string::npos);
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": "c",
      "title": ""}]})")
                .find("scenes[0].title: empty"),
            std::string::npos);
}

TEST(Lessons, ALessonLongerThanALectureIsRefused) {
  // By the estimate: 4 minutes a scene with a question, 2 without; or the scene's own minutes.
  LessonLoad l = lesson_from_json(R"({"scenes": [
    {"preset": "row-write-row-read", "caption": "c", "minutes": 20},
    {"preset": "column-write-column-read", "caption": "c", "minutes": 20},
    {"preset": "row-write-column-read", "caption": "c", "reveal": "r",
     "question": {"ask": "a", "quantity": "wavefronts", "answer": 32}},
    {"preset": "row-write-column-read-padded", "caption": "c"}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  EXPECT_EQ(lesson_minutes(*l.lesson), 46);
  const std::string errors = all(check_lesson(*l.lesson, kPresets));
  EXPECT_NE(errors.find("about 46 minutes"), std::string::npos) << errors;
  l.lesson->scenes[1].minutes = 19;
  EXPECT_EQ(all(check_lesson(*l.lesson, kPresets)), "");
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": "c",
      "minutes": 0}]})")
                .find("scenes[0].minutes: value 0 out of range"),
            std::string::npos);
}

TEST(Lessons, ALessonSavedReadsBackTheSame) {
  for (const std::string& f : lesson_files()) {
    LessonLoad l = load_lesson_file(f);
    ASSERT_TRUE(l.lesson) << f;
    const std::string saved = lesson_to_json(*l.lesson);
    LessonLoad back = lesson_from_json(saved);
    ASSERT_TRUE(back.lesson) << f << "\n" << all(back.errors);
    EXPECT_EQ(lesson_to_json(*back.lesson), saved) << f;
    ASSERT_EQ(back.lesson->scenes.size(), l.lesson->scenes.size());
    for (size_t i = 0; i < l.lesson->scenes.size(); ++i) {
      const Scene &a = l.lesson->scenes[i], &b = back.lesson->scenes[i];
      EXPECT_EQ(a.caption, b.caption);
      EXPECT_EQ(a.reveal, b.reveal);
      EXPECT_EQ(a.notes, b.notes);
      EXPECT_EQ(a.open_step, b.open_step);
      EXPECT_EQ(a.open_iteration, b.open_iteration);
      EXPECT_EQ(a.scenario.has_value(), b.scenario.has_value());
      EXPECT_EQ(a.question.has_value(), b.question.has_value());
      if (a.question) {
        EXPECT_EQ(a.question->answer, b.question->answer);
      }
    }
  }
}

// [SECTION] Bad lesson files: each says where

TEST(LessonErrors, NotJsonNamesTheLine) {
  EXPECT_NE(first_error("{\"scenes\": [\n}").find("invalid JSON"), std::string::npos);
}

TEST(LessonErrors, UnknownKeysAndMissingFieldsHaveTheirPath) {
  EXPECT_EQ(first_error(R"({"scenes": [], "sceens": []})"),
            "sceens: unknown key (expected one of: name, title, source, description, scenes)");
  EXPECT_EQ(first_error(R"({"scenes": [{"preset": "row-write-row-read"}]})"),
            "scenes[0].caption: missing: what to say on this scene");
  EXPECT_EQ(first_error(R"({"scenes": [{"caption": "c"}]})"),
            "scenes[0]: missing: \"preset\" (a preset's name) or \"scenario\" (embedded)");
  EXPECT_EQ(first_error(R"({"title": "t"})"), "scenes: missing: a lesson is a list of scenes");
}

TEST(LessonErrors, APresetNameIsNeverAPath) {
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "../../etc/passwd", "caption": "c"}]})")
                .find("scenes[0].preset: '../../etc/passwd' is not a preset name"),
            std::string::npos);
}

TEST(LessonErrors, UnknownPresetAndBadQuantityAreReported) {
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "p", "caption": "c",
      "question": {"ask": "a", "quantity": "speed", "answer": 1}}]})")
                .find("scenes[0].question.quantity: unknown quantity 'speed' (known: wavefronts"),
            std::string::npos);
  LessonLoad l = lesson_from_json(R"({"scenes": [{"preset": "no-such-preset", "caption": "c"}]})");
  ASSERT_TRUE(l.lesson);
  const auto errors = check_lesson(*l.lesson, kPresets);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].path, "scenes[0].preset");
  EXPECT_NE(errors[0].message.find("no-such-preset"), std::string::npos);
}

TEST(LessonErrors, AnEmbeddedScenariosErrorsArePrefixedWithTheScene) {
  EXPECT_EQ(first_error(R"({"scenes": [{"caption": "c", "scenario": {"block": [0]}}]})")
                .rfind("scenes[0].scenario.block", 0),
            0u);
}

TEST(LessonErrors, LimitsAreChecked) {
  std::string many = R"({"scenes": [)";
  for (size_t i = 0; i <= kMaxScenes; ++i)
    many += std::string(i ? "," : "") + R"({"preset": "row-write-row-read", "caption": "c"})";
  many += "]}";
  EXPECT_NE(first_error(many).find("at most 64"), std::string::npos);
  EXPECT_NE(first_error(R"({"a": 1, "a": 2})").find("written twice"), std::string::npos);
  EXPECT_NE(first_error(std::string(40, '[') + std::string(40, ']')).find("nested"),
            std::string::npos);
  const std::string long_caption(kMaxCaptionChars + 1, 'x');
  EXPECT_NE(first_error(R"({"scenes": [{"preset": "row-write-row-read", "caption": ")" +
                        long_caption + "\"}]}")
                .find("scenes[0].caption: is 2049 characters long"),
            std::string::npos);
}

TEST(LessonErrors, AnIterationTheLoopNeverTakesIsReported) {
  LessonLoad l = lesson_from_json(R"({"scenes": [{"preset": "kepler-filter-float",
      "caption": "c", "open_iteration": 99}]})");
  ASSERT_TRUE(l.lesson) << all(l.errors);
  const auto errors = check_lesson(*l.lesson, kPresets);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "scenes[0].open_iteration");
}

TEST(LessonErrors, AMissingFileSaysSo) {
  LessonLoad l = load_lesson_file("/nonexistent/lesson.json");
  ASSERT_FALSE(l.lesson);
  EXPECT_NE(l.errors[0].message.find("cannot read the lesson file"), std::string::npos);
}

// [SECTION] A preset's opening step (scenario.h open_step)

TEST(OpenStep, RoundTripsThroughJson) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/row-write-column-read.json");
  ASSERT_TRUE(sl.scenario);
  EXPECT_EQ(sl.scenario->open_step, 2);
  ScenarioLoad again = scenario_from_json(scenario_to_json(*sl.scenario));
  ASSERT_TRUE(again.scenario);
  EXPECT_EQ(again.scenario->open_step, 2);
  Scenario none = *sl.scenario;
  none.open_step = -1;
  EXPECT_EQ(scenario_to_json(none).find("open_step"), std::string::npos);
}

TEST(OpenStep, MustNameAMemoryStepThatExists) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/row-write-column-read.json");
  ASSERT_TRUE(sl.scenario);
  Scenario s = *sl.scenario;
  s.open_step = 1;  // __syncthreads()
  ASSERT_TRUE(check_open_step(s));
  EXPECT_EQ(check_open_step(s)->format(),
            "open_step: step 1 is a __syncthreads(): open on a load, store or atomic");
  s.open_step = 3;
  ASSERT_TRUE(check_open_step(s));
  EXPECT_EQ(check_open_step(s)->format(),
            "open_step: no step 3 (the scenario has 3 steps, numbered from 0)");
  // A file that says so does not load.
  ScenarioLoad bad = scenario_from_json(R"({"steps": [{"kind": "load", "index": "tile[0][0]"}],
                                           "open_step": 1})");
  ASSERT_FALSE(bad.scenario);
  EXPECT_EQ(bad.errors[0].path, "open_step");
}

TEST(OpenStep, AnEditThatRemovesTheStepFallsBackToTheWorstAndSavesWithoutIt) {
  ScenarioLoad sl = load_scenario_file(kPresets + "/row-write-column-read-padded.json");
  ASSERT_TRUE(sl.scenario);
  Scenario s = *sl.scenario;
  s.steps.erase(s.steps.begin() + 1, s.steps.end());  // only the store is left
  EXPECT_TRUE(check(s).empty());                      // still analyzes
  const Analysis a = analyzed(s);
  EXPECT_EQ(opening_step(a), a.worst_step());
  ScenarioLoad again = scenario_from_json(scenario_to_json(s));
  ASSERT_TRUE(again.scenario) << all(again.errors);
  EXPECT_EQ(again.scenario->open_step, -1);
}

TEST(OpenStep, PresetsWhoseWorstStepIsNotThePointOpenOnTheirPoint) {
  // Conflict-free everywhere: without open_step the worst step would be the store at step 0.
  for (const char* name : {"row-write-column-read-padded", "rect-row-write-column-read-pad2",
                           "transpose-swizzle-5-0-5", "kepler-filter-float2-8byte"}) {
    ScenarioLoad sl = load_scenario_file(kPresets + "/" + name + ".json");
    ASSERT_TRUE(sl.scenario) << name;
    const Analysis a = analyzed(*sl.scenario);
    const int open = opening_step(a);
    ASSERT_GE(open, 0) << name;
    EXPECT_EQ(a.steps[open].kind, StepKind::Load) << name;
    EXPECT_NE(open, a.worst_step()) << name;
  }
}
