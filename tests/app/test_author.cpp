// Lessons an instructor writes in the app (lesson/author.h): a view added as a scene opens on the
// step on screen with the model's answer, scenes reorder, and "Save" writes only what
// `bankviz-cli lessons --check` accepts, never over a file unless asked.
#include "lesson/author.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../test_support.h"
#include "bankviz/io.h"
#include "cli_run.h"
#include "scratch_dir.h"

using bankviz::test::preset_analysis;

namespace bankviz::gui {
namespace {

namespace fs = std::filesystem;

std::string presets_dir() {
  return std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";
}

// The executed step of `a` whose label starts with `label`.
int step_labelled(const Analysis& a, const std::string& label) {
  for (size_t i = 0; i < a.steps.size(); ++i)
    if (a.steps[i].label.rfind(label, 0) == 0) return static_cast<int>(i);
  return -1;
}

TEST(Author, AViewBecomesASceneOnItsStepWithTheModelsAnswer) {
  const Analysis a = preset_analysis("row-write-column-read");
  const int load = step_labelled(a, "load");
  ASSERT_GE(load, 0);
  AuthorState s;
  s.form.caption = "The transpose reads down a column.";
  s.form.reveal = "{ways}-way: {wavefronts} wavefronts where {ideal} would do.";
  s.form.question = "How many wavefronts does the column load take?";
  std::string why;
  ASSERT_TRUE(add_scene(s, a, load, &why)) << why;
  ASSERT_EQ(s.lesson.scenes.size(), 1u);
  const Scene& sc = s.lesson.scenes[0];
  ASSERT_TRUE(sc.scenario);
  EXPECT_EQ(sc.open_step, a.steps[static_cast<size_t>(load)].step);
  ASSERT_TRUE(sc.question);
  // The column read of a 32x32 int tile: 32 wavefronts, the model's, at the step it opens on.
  EXPECT_EQ(sc.question->answer, a.warps[static_cast<size_t>(load)][0].result.wavefronts);
  EXPECT_EQ(sc.question->answer, 32);
  EXPECT_EQ(scene_step(a, sc), load);
  // Opened elsewhere than the preset's own step: the store (1 wavefront), and the file's check
  // (which analyzes the embedded scenario opened there) agrees with the answer.
  const int store = step_labelled(a, "store");
  ASSERT_GE(store, 0);
  ASSERT_TRUE(add_scene(s, a, store, &why)) << why;
  EXPECT_EQ(s.lesson.scenes[1].question->answer, 1);
  s.lesson.scenes[1].caption = "The store walks a row.";
  EXPECT_TRUE(check_lesson(s.lesson, presets_dir()).empty())
      << check_lesson(s.lesson, presets_dir()).front().format();
}

TEST(Author, AViewIsRefusedInWordsWithoutAStepACaptionOrAQuestion) {
  const Analysis a = preset_analysis("dot-product-reduction");
  AuthorState s;
  std::string why;
  s.form.caption = "c";
  EXPECT_FALSE(add_scene(s, a, -1, &why));
  EXPECT_NE(why.find("no step on screen"), std::string::npos) << why;
  const int sync = [&] {
    for (size_t i = 0; i < a.steps.size(); ++i)
      if (a.steps[i].kind == StepKind::Sync) return static_cast<int>(i);
    return -1;
  }();
  ASSERT_GE(sync, 0);
  EXPECT_FALSE(add_scene(s, a, sync, &why));
  EXPECT_NE(why.find("barrier"), std::string::npos) << why;
  s.form.caption = "  ";
  EXPECT_FALSE(add_scene(s, a, 0, &why));
  EXPECT_NE(why.find("caption"), std::string::npos) << why;
  s.form.caption = "c";
  s.form.question.clear();
  EXPECT_FALSE(add_scene(s, a, 0, &why));
  EXPECT_NE(why.find("question"), std::string::npos) << why;
  EXPECT_TRUE(s.lesson.scenes.empty());
  // Without a question the scene is added.
  s.form.ask = false;
  EXPECT_TRUE(add_scene(s, a, 0, &why)) << why;
  EXPECT_FALSE(s.lesson.scenes[0].question);
}

TEST(Author, ScenesMoveAndGo) {
  Lesson l;
  for (const char* t : {"a", "b", "c"}) {
    Scene sc;
    sc.title = t;
    l.scenes.push_back(sc);
  }
  EXPECT_FALSE(move_scene(l, 0, -1));
  EXPECT_FALSE(move_scene(l, 2, 1));
  EXPECT_FALSE(move_scene(l, 7, 1));
  EXPECT_TRUE(move_scene(l, 2, -1));
  EXPECT_EQ(l.scenes[1].title, "c");
  EXPECT_EQ(l.scenes[2].title, "b");
  remove_scene(l, 0);
  remove_scene(l, 9);
  ASSERT_EQ(l.scenes.size(), 2u);
  EXPECT_EQ(l.scenes[0].title, "c");
}

TEST(Author, SaveWritesWhatTheCheckAcceptsAndNeverOverwritesUnasked) {
  const Analysis a = preset_analysis("row-write-column-read");
  AuthorState s;
  s.lesson.name = "mine";
  s.path = bankviz::test::scratch_dir() + "mine-" + std::to_string(::getpid()) + ".json";
  fs::remove(s.path);
  EXPECT_FALSE(save_lesson(s, presets_dir(), false));  // nothing to save
  EXPECT_NE(s.note.find("add a scene"), std::string::npos) << s.note;
  // A caption that states the answer as digits: check_lesson refuses it, nothing is written.
  s.form.caption = "A 32-way conflict.";
  std::string why;
  ASSERT_TRUE(add_scene(s, a, step_labelled(a, "load"), &why)) << why;
  s.lesson.title = "Mine";
  EXPECT_FALSE(save_lesson(s, presets_dir(), false));
  EXPECT_FALSE(s.problems.empty());
  EXPECT_NE(s.problems[0].format().find("scenes[0].caption"), std::string::npos)
      << s.problems[0].format();
  EXPECT_FALSE(fs::exists(s.path));
  // Written as a figure: sound, saved, and the CLI's check agrees.
  s.lesson.scenes[0].caption = "The transpose reads down a column.";
  s.lesson.scenes[0].reveal = "{ways}-way: {wavefronts} wavefronts.";
  ASSERT_TRUE(save_lesson(s, presets_dir(), false)) << s.note;
  EXPECT_TRUE(s.problems.empty());
  const bankviz::test::Result r = bankviz::test::cli("lessons --check --file '" + s.path + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const LessonLoad back = load_lesson_file(s.path);
  ASSERT_TRUE(back.lesson);
  ASSERT_EQ(back.lesson->scenes.size(), 1u);
  EXPECT_EQ(back.lesson->scenes[0].question->answer, 32);
  // Again: the file is there, so it asks (confirm_replace) and leaves it; with force it replaces.
  s.lesson.title = "Mine, again";
  EXPECT_FALSE(save_lesson(s, presets_dir(), false));
  EXPECT_TRUE(s.confirm_replace);
  EXPECT_EQ(load_lesson_file(s.path).lesson->title, "Mine");
  EXPECT_TRUE(save_lesson(s, presets_dir(), true)) << s.note;
  EXPECT_EQ(load_lesson_file(s.path).lesson->title, "Mine, again");
  fs::remove(s.path);
}

TEST(Author, SaveFitsTheCaptionsToThePresentersStripAsTheCheckDoes) {
  const Analysis a = preset_analysis("row-write-column-read");
  AuthorState s;
  s.lesson.title = "Long";
  s.path = bankviz::test::scratch_dir() + "long-" + std::to_string(::getpid()) + ".json";
  fs::remove(s.path);
  for (int i = 0; i < 40; ++i) s.form.caption += "words ";
  std::string why;
  ASSERT_TRUE(add_scene(s, a, step_labelled(a, "load"), &why)) << why;
  // Every character 10 px: 240 characters do not fit two lines of 804 + 1004 px at 1024x768.
  const auto tens = [](float) -> TextWidth {
    return [](std::string_view t) { return static_cast<float>(t.size()) * 10.0f; };
  };
  EXPECT_FALSE(save_lesson(s, presets_dir(), false, tens));
  ASSERT_FALSE(s.problems.empty());
  EXPECT_NE(s.problems[0].format().find("scenes[0].caption: does not fit 2 lines"),
            std::string::npos)
      << s.problems[0].format();
  EXPECT_FALSE(fs::exists(s.path));
  s.lesson.scenes[0].caption = "Down a column.";
  EXPECT_TRUE(save_lesson(s, presets_dir(), false, tens)) << s.note;
  fs::remove(s.path);
}

TEST(Author, TheProposedFileIsTheNameMadeSafe) {
  Lesson l;
  l.name = "../etc/pass wd";
  const fs::path p = default_lesson_path(l);
  EXPECT_EQ(p.filename().string(), "etcpasswd.json");
  l.name = "///";
  EXPECT_EQ(fs::path(default_lesson_path(l)).filename().string(), "my-lesson.json");
}

}  // namespace
}  // namespace bankviz::gui
