// Editing the draft (app/gui/editing/edit.h, app_state.h's apply_edit/undo/reset/save): step list
// operations keep the scenario valid or give check()'s errors, open_step follows its step, a
// saved scenario loads back to the same analysis, an existing file is replaced only with force.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "../test_support.h"
#include "bankviz/io.h"
#include "bankviz/text.h"
#include "cli_run.h"
#include "editing/edit.h"
#include "shell/app_state.h"

using bankviz::test::preset_scenario;

using namespace bankviz;
using namespace bankviz::gui;

namespace {

std::string preset_path(const std::string& name) {
  return std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/" + name + ".json";
}

std::string analysis_json(const Scenario& s) {
  AnalysisResult r = analyze(s);
  EXPECT_TRUE(r.analysis);
  for (const Diagnostic& d : r.errors) ADD_FAILURE() << d.format();
  return r.analysis ? analysis_to_json(*r.analysis) : std::string();
}

std::string temp_path(const std::string& stem) {
  return ::testing::TempDir() + "edit-" + stem + "-" + std::to_string(::getpid()) + ".json";
}

std::vector<std::string> kinds(const Scenario& s) {
  std::vector<std::string> out;
  for (const Step& st : s.steps) out.push_back(st.kind_text());
  return out;
}

}  // namespace

TEST(StepKinds, EveryChoiceParsesAndNamesItselfBack) {
  ASSERT_GE(step_kind_choices().size(), 19u);
  for (const std::string& k : step_kind_choices()) {
    Step st;
    ASSERT_TRUE(parse_step_op(k, st)) << k;
    EXPECT_EQ(st.kind_text(), k);
  }
}

TEST(StepEdits, AddInsertsAfterTheSelectedStepWithItsAccess) {
  Scenario s = preset_scenario("row-write-column-read");
  const size_t n = s.steps.size();
  const size_t at = add_step(s, 0, "atomic");
  EXPECT_EQ(at, 1u);
  ASSERT_EQ(s.steps.size(), n + 1);
  EXPECT_EQ(s.steps[1].kind, StepKind::Atomic);
  EXPECT_EQ(s.steps[1].index, s.steps[0].index);  // starts as the access it follows
  EXPECT_TRUE(check(s).empty());
  EXPECT_TRUE(analyze(s).analysis);
  // Past the end: appended; a sync has no index.
  const size_t end = add_step(s, 999, "sync");
  EXPECT_EQ(end, s.steps.size() - 1);
  EXPECT_EQ(s.steps.back().kind, StepKind::Sync);
  EXPECT_TRUE(s.steps.back().index.empty());
  EXPECT_TRUE(check(s).empty());
}

TEST(StepEdits, AnInstructionTheTileCannotTakeIsCheckErrorNamingTheStep) {
  Scenario s = preset_scenario("row-write-column-read");  // an int tile
  const size_t at = add_step(s, 0, "ldmatrix.x4.trans");
  EXPECT_EQ(s.steps[at].kind, StepKind::LdMatrix);
  EXPECT_EQ(s.steps[at].matrices, 4);
  EXPECT_TRUE(s.steps[at].trans);
  std::vector<Diagnostic> errors = check(s);
  ASSERT_FALSE(errors.empty());
  const std::string p = "steps[" + std::to_string(at) + "]";
  EXPECT_EQ(errors[0].path.rfind(p, 0), 0u) << errors[0].format();
}

TEST(StepEdits, ChangeKindKeepsTheIndexAndRefusesUnknownKinds) {
  Scenario s = preset_scenario("row-write-column-read");
  const std::string index = s.steps[0].index;
  ASSERT_TRUE(set_step_kind(s, 0, "cp.async.8"));
  EXPECT_EQ(s.steps[0].kind, StepKind::CpAsync);
  EXPECT_EQ(s.steps[0].copy_bytes, 8);
  EXPECT_EQ(s.steps[0].index, index);
  EXPECT_FALSE(set_step_kind(s, 0, "ldmatrix.x3"));
  EXPECT_EQ(s.steps[0].kind_text(), "cp.async.8");  // unchanged
  EXPECT_FALSE(set_step_kind(s, 99, "load"));
  // A sync made a load gets the tile's natural index, one subscript per dim.
  Scenario r = preset_scenario("reduction-sequential");  // sdata[128], a sync at step 1
  ASSERT_EQ(r.steps[1].kind, StepKind::Sync);
  ASSERT_TRUE(set_step_kind(r, 1, "load"));
  EXPECT_EQ(r.steps[1].index, "sdata[threadIdx.x]");
  EXPECT_TRUE(check(r).empty());
}

TEST(StepEdits, MoveDuplicateRemoveKeepOpenStepOnItsStep) {
  Scenario s = preset_scenario("row-write-column-read");
  ASSERT_GE(s.steps.size(), 2u);
  s.open_step = 1;
  const std::vector<std::string> before = kinds(s);
  const std::string open_index = s.steps[1].index;
  EXPECT_FALSE(move_step(s, 0, -1));  // already first
  EXPECT_FALSE(move_step(s, s.steps.size() - 1, 1));
  ASSERT_TRUE(move_step(s, 1, -1));
  EXPECT_EQ(s.open_step, 0);
  EXPECT_EQ(s.steps[s.open_step].index, open_index);
  ASSERT_TRUE(move_step(s, 0, 1));
  EXPECT_EQ(kinds(s), before);
  EXPECT_EQ(s.open_step, 1);
  EXPECT_EQ(duplicate_step(s, 0), 1u);
  EXPECT_EQ(s.open_step, 2);  // pushed along by the copy before it
  EXPECT_EQ(s.steps[s.open_step].index, open_index);
  EXPECT_EQ(s.steps[1].index, s.steps[0].index);
  EXPECT_TRUE(check(s).empty());
  remove_step(s, 0);
  EXPECT_EQ(s.open_step, 1);
  remove_step(s, 1);  // its own step gone: open on the worst step
  EXPECT_EQ(s.open_step, -1);
  EXPECT_FALSE(check_open_step(s));
  EXPECT_TRUE(check(s).empty());
  remove_step(s, 99);  // out of range: nothing
}

TEST(StepEdits, RemovingEveryStepIsACheckErrorNotACrash) {
  Scenario s = preset_scenario("row-write-column-read");
  while (!s.steps.empty()) remove_step(s, 0);
  AnalysisResult r = analyze(s);
  EXPECT_FALSE(r.analysis && r.errors.empty() && r.analysis->worst_step() >= 0);
}

TEST(LetEdits, AddedLetsAndConstantsHaveFreshNamesAndAreUsable) {
  Scenario s = preset_scenario("row-write-column-read");
  const size_t li = add_let(s);
  const size_t li2 = add_let(s);
  EXPECT_NE(s.lets[li].name, s.lets[li2].name);
  const size_t ci = add_constant(s);
  EXPECT_NE(s.constants[ci].name, s.lets[li].name);
  EXPECT_TRUE(check(s).empty());
  s.steps[0].guard = s.lets[li].name + " < " + s.constants[ci].name;
  EXPECT_TRUE(check(s).empty());
  EXPECT_TRUE(analyze(s).analysis);
  // A duplicate name is check()'s error at the let's name.
  s.lets[li2].name = s.constants[ci].name;
  std::vector<Diagnostic> errors = check(s);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].path, "lets[" + std::to_string(li2) + "].name");
  remove_let(s, li2);
  remove_constant(s, 5);  // out of range: nothing
  EXPECT_TRUE(check(s).empty());
  remove_constant(s, ci);  // the guard now names a missing constant: an analysis error
  EXPECT_FALSE(analyze(s).errors.empty());
}

TEST(ErrorFor, AFieldsErrorIsNotShownUnderAnotherStepWithALongerNumber) {
  AppState s;
  s.errors = {Diagnostic{"steps[10].index", 3, "expected ']'"}};
  EXPECT_EQ(error_for(s.errors, "steps[1]"), nullptr);
  ASSERT_NE(error_for(s.errors, "steps[10]"), nullptr);
  EXPECT_NE(error_for(s.errors, "steps[10].index"), nullptr);
  EXPECT_EQ(error_for(s.errors, "steps[10].guard"), nullptr);
}

TEST(Save, ASavedScenarioLoadsBackToTheSameAnalysis) {
  Scenario s = preset_scenario("reduction-sequential");
  add_let(s);
  add_constant(s);
  duplicate_step(s, 0);
  s.steps[0].loop_var = "j";
  s.steps[0].loop_from = 0;
  s.steps[0].loop_to = 2;
  ASSERT_TRUE(set_step_kind(s, 1, "atomic"));
  ASSERT_TRUE(check(s).empty());
  const std::string path = temp_path("roundtrip");
  std::remove(path.c_str());
  SaveResult r = save_scenario(s, path, false);
  ASSERT_EQ(r.status, SaveResult::Saved) << r.error;
  EXPECT_TRUE(std::filesystem::path(r.path).is_absolute());
  ScenarioLoad back = load_scenario_file(r.path);
  ASSERT_TRUE(back.scenario) << (back.errors.empty() ? "" : back.errors[0].format());
  EXPECT_EQ(analysis_json(*back.scenario), analysis_json(s));
  std::remove(path.c_str());
}

TEST(Save, BankvizCliAnalyzesASavedEditedScenarioAsTheAppDoes) {
  Scenario s = preset_scenario("row-write-column-read");
  s.tiles[0].pad = 1;
  const size_t at = add_step(s, 0, "atomic");
  s.steps[at].guard = "threadIdx.x < 8";
  ASSERT_TRUE(move_step(s, at, 1));
  const std::string path = temp_path("cli");
  std::remove(path.c_str());
  ASSERT_EQ(save_scenario(s, path, false).status, SaveResult::Saved);
  test::Result r = test::cli("analyze --json --file '" + path + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  std::string expected = analysis_json(s);
  // The CLI ends its output with a newline; compare the JSON itself.
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();
  EXPECT_EQ(r.out, expected);
  std::remove(path.c_str());
}

TEST(Save, AnExistingFileIsReplacedOnlyWithForce) {
  const std::string path = temp_path("exists");
  { std::ofstream(path) << "keep me"; }
  Scenario s = preset_scenario("row-write-column-read");
  SaveResult r = save_scenario(s, path, false);
  EXPECT_EQ(r.status, SaveResult::Exists);
  EXPECT_FALSE(r.error.empty());
  TextRead kept = read_text_file(path, 1 << 20);
  ASSERT_TRUE(kept.text);
  EXPECT_EQ(*kept.text, "keep me");
  r = save_scenario(s, path, true);
  ASSERT_EQ(r.status, SaveResult::Saved) << r.error;
  ScenarioLoad back = load_scenario_file(path);
  ASSERT_TRUE(back.scenario);
  EXPECT_EQ(back.scenario->name, s.name);
  std::remove(path.c_str());
}

TEST(Save, ADirectoryOrAMissingDirectoryIsAFailureNotAQuestion) {
  Scenario s = preset_scenario("row-write-column-read");
  EXPECT_EQ(save_scenario(s, ::testing::TempDir(), true).status, SaveResult::Failed);
  EXPECT_EQ(save_scenario(s, ::testing::TempDir(), false).status, SaveResult::Failed);
  SaveResult r = save_scenario(s, ::testing::TempDir() + "no-such-dir-bankviz/x.json", false);
  EXPECT_EQ(r.status, SaveResult::Failed);
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(save_scenario(s, "", false).status, SaveResult::Failed);
}

TEST(AppEditing, UndoRedoAndResetRestoreTheDraftAndItsAnalysis) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  EXPECT_FALSE(s.edit.unsaved);
  EXPECT_FALSE(s.edit.history.can_undo());  // nothing before the first scenario to go back to
  const Scenario loaded = s.draft;
  Scenario before = s.draft;
  s.draft.tiles[0].pad = 1;
  apply_edit(s, before, "tiles[0].pad");
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->scenario.tiles[0].pad, 1);
  EXPECT_TRUE(s.edit.unsaved);
  before = s.draft;
  remove_step(s.draft, 0);
  apply_edit(s, before);
  EXPECT_EQ(s.edit.history.undo_size(), 2u);

  ASSERT_TRUE(undo_edit(s));
  ASSERT_TRUE(undo_edit(s));
  EXPECT_FALSE(undo_edit(s));
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(scenario_to_json(s.draft), scenario_to_json(loaded));
  EXPECT_FALSE(s.edit.unsaved);  // back to what was loaded
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(analysis_to_json(*s.analysis), analysis_json(loaded));
  ASSERT_TRUE(redo_edit(s));
  EXPECT_EQ(s.draft.tiles[0].pad, 1);

  reset_draft(s);
  EXPECT_EQ(scenario_to_json(s.draft), scenario_to_json(loaded));
  ASSERT_TRUE(undo_edit(s));  // the reset itself is undoable
  EXPECT_EQ(s.draft.tiles[0].pad, 1);
}

TEST(AppEditing, SavingMakesTheDraftCleanAndNamesTheFullPath) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 2;
  apply_edit(s, before);
  ASSERT_TRUE(s.edit.unsaved);
  const std::string path = temp_path("app-save");
  std::remove(path.c_str());
  SaveResult r = save_draft(s, path, false, 0);
  ASSERT_EQ(r.status, SaveResult::Saved) << r.error;
  EXPECT_FALSE(s.edit.unsaved);
  EXPECT_EQ(s.edit.saved_path, r.path);
  EXPECT_EQ(s.status.kind, Notice::Info);
  EXPECT_NE(s.status.text.find(r.path), std::string::npos) << s.status.text;
  // Saving again without force is a question, and changes nothing.
  s.status.text.clear();
  EXPECT_EQ(save_draft(s, path, false, 0).status, SaveResult::Exists);
  EXPECT_TRUE(s.status.text.empty());
  // The file opens in the app as the same scenario.
  AppState t;
  ASSERT_TRUE(load_draft_file(t, path, path, &err)) << err;
  EXPECT_EQ(t.draft.tiles[0].pad, 2);
  std::remove(path.c_str());
}

TEST(AppEditing, OpeningAnotherScenarioOverUnsavedEditsIsUndoable) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 3;
  apply_edit(s, before);
  ASSERT_TRUE(load_draft_file(s, preset_path("reduction-sequential"), "preset", &err)) << err;
  EXPECT_FALSE(s.edit.unsaved);
  EXPECT_EQ(s.draft.name, "reduction-sequential");
  ASSERT_TRUE(undo_edit(s));
  EXPECT_EQ(s.draft.name, "row-write-column-read");
  EXPECT_EQ(s.draft.tiles[0].pad, 3);  // the edit is back
  EXPECT_TRUE(s.edit.unsaved);         // and still not saved
  ASSERT_TRUE(redo_edit(s));
  EXPECT_EQ(s.draft.name, "reduction-sequential");
  EXPECT_FALSE(s.edit.unsaved);
}

TEST(AppEditing, TypingInOneFieldIsOneUndoAndUndoingToThePresetNamesItAgain) {
  AppState s;
  std::string err;
  load_presets(s, std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets");
  ASSERT_TRUE(select_preset(s, "row-write-column-read", &err)) << err;
  EXPECT_EQ(s.preset, "row-write-column-read");
  const std::string index = s.draft.steps[0].index;
  for (const char* typed : {"tile[", "tile[threadIdx.x", "tile[threadIdx.x][0]"}) {
    const Scenario before = s.draft;
    s.draft.steps[0].index = typed;
    apply_edit(s, before, "steps[0].index");
  }
  EXPECT_EQ(s.edit.history.undo_size(), 1u);
  EXPECT_TRUE(s.preset.empty());  // the toolbar says "(edited)"
  ASSERT_TRUE(undo_edit(s));
  EXPECT_EQ(s.draft.steps[0].index, index);
  EXPECT_EQ(s.preset, "row-write-column-read");
  EXPECT_FALSE(s.edit.unsaved);
  ASSERT_TRUE(redo_edit(s));
  EXPECT_EQ(s.draft.steps[0].index, "tile[threadIdx.x][0]");
  EXPECT_TRUE(s.preset.empty());
  reset_draft(s);
  EXPECT_EQ(s.preset, "row-write-column-read");
}

TEST(AppEditing, UndoStaysWithinALessonScene) {
  AppState s;
  std::string err;
  const std::string dir = std::string(BANKVIZ_SOURCE_DIR) + "/assets/";
  ASSERT_TRUE(open_lesson(s, dir + "lessons/data-layout.json", dir + "presets", 0, &err)) << err;
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 1;
  apply_edit(s, before);
  ASSERT_TRUE(s.edit.history.can_undo());
  ASSERT_TRUE(go_to_scene(s, 1, &err)) << err;
  EXPECT_FALSE(s.edit.history.can_undo());
  EXPECT_FALSE(s.edit.unsaved);
}

TEST(AppEditing, UndoKeepsTheStepAndWarpOnScreen) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  const int last = static_cast<int>(s.analysis->steps.size()) - 1;  // the column load
  ASSERT_TRUE(seek(s, last, 5, 3));
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 1;  // the load becomes conflict-free: wavefront 3 is gone
  apply_edit(s, before, "tiles[0].pad");
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(s.frame.step, last);
  EXPECT_EQ(s.frame.warp, 5);
  ASSERT_TRUE(undo_edit(s));
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(s.draft.tiles[0].pad, 0);
  EXPECT_EQ(s.frame.step, last);
  EXPECT_EQ(s.frame.warp, 5);
}

// [SECTION] The description after an edit (issue 18 item 8): regenerated from the analysis, never
// saved stale.

TEST(Description, FollowsTheAnalysisAfterAnEditAndIsThePresetsWhenUndone) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  const std::string preset_text = preset_scenario("row-write-column-read").description;
  ASSERT_NE(preset_text.find("32 wavefronts"), std::string::npos) << preset_text;
  EXPECT_EQ(s.scenario.description, preset_text);  // as loaded: the preset's own words
  // One int of padding per row: the column read becomes conflict-free.
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 1;
  apply_edit(s, before, "tiles[0].pad");
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  ASSERT_TRUE(s.analysis);
  ASSERT_EQ(s.analysis->scenario.tiles[0].pad, 1);
  const std::string& d = s.scenario.description;
  EXPECT_EQ(d.find("32 wavefronts"), std::string::npos) << d;
  EXPECT_EQ(d.find("32-way"), std::string::npos) << d;
  EXPECT_NE(d.find("Edited from row-write-column-read"), std::string::npos) << d;
  // Every memory step's verdict as the model now gives it.
  for (size_t i = 0; i < s.analysis->steps.size(); ++i) {
    if (s.analysis->steps[i].kind == StepKind::Sync) continue;
    EXPECT_NE(d.find(s.analysis->steps[i].label), std::string::npos) << d;
  }
  EXPECT_NE(d.find("conflict-free: 1 wavefront"), std::string::npos) << d;
  // Two ints of padding: the 2-way conflict is named with its figures.
  const Scenario before2 = s.draft;
  s.draft.tiles[0].pad = 2;
  apply_edit(s, before2, "tiles[0].pad");
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  ASSERT_EQ(s.analysis->scenario.tiles[0].pad, 2);
  EXPECT_NE(s.scenario.description.find("2-way bank conflict: 2 wavefronts where 1 would do"),
            std::string::npos)
      << s.scenario.description;
  // Undone to the preset's accesses (both edits of the one field are one undo): the preset's words
  // again.
  ASSERT_TRUE(undo_edit(s));
  ASSERT_EQ(s.draft.tiles[0].pad, 0);
  s.analyzer.wait(1e9);
  update_frame(s, 0);
  EXPECT_EQ(s.scenario.description, preset_text);
}

TEST(Description, ASaveAfterAnEditWritesOneTrueToTheSavedScenario) {
  AppState s;
  std::string err;
  ASSERT_TRUE(load_draft_file(s, preset_path("row-write-column-read"), "preset", &err)) << err;
  const Scenario before = s.draft;
  s.draft.tiles[0].pad = 1;
  apply_edit(s, before, "tiles[0].pad");
  // Saved at once, before the edit's analysis was taken: the save analyzes the draft itself.
  const std::string path = temp_path("describe");
  std::remove(path.c_str());
  ASSERT_EQ(save_draft(s, path, false, 0).status, SaveResult::Saved);
  const ScenarioLoad back = load_scenario_file(path);
  ASSERT_TRUE(back.scenario);
  const Analysis a = *analyze(*back.scenario).analysis;
  EXPECT_EQ(back.scenario->description,
            "Edited from row-write-column-read. " + describe_analysis(a));
  EXPECT_EQ(back.scenario->description.find("32 wavefronts"), std::string::npos);
  EXPECT_FALSE(s.edit.unsaved);
  // Opened again, the file's description is its own (the scenario as loaded).
  AppState t;
  ASSERT_TRUE(load_draft_file(t, path, path, &err)) << err;
  EXPECT_EQ(t.scenario.description, back.scenario->description);
  std::remove(path.c_str());
  // Only the name changed: the preset's description still holds and is what is saved.
  AppState u;
  ASSERT_TRUE(load_draft_file(u, preset_path("row-write-column-read"), "preset", &err)) << err;
  const Scenario named = u.draft;
  u.draft.name = "my-copy";
  apply_edit(u, named, "name");
  ASSERT_EQ(save_draft(u, path, false, 0).status, SaveResult::Saved);
  EXPECT_EQ(load_scenario_file(path).scenario->description,
            preset_scenario("row-write-column-read").description);
  std::remove(path.c_str());
}

TEST(Description, SameModelIgnoresOnlyTheTexts) {
  const Scenario a = preset_scenario("row-write-column-read");
  Scenario b = a;
  b.name = "x";
  b.title = "y";
  b.description = "z";
  b.source = "w";
  b.open_step = 1;
  EXPECT_TRUE(same_model(a, b));
  EXPECT_EQ(draft_description(a, b, nullptr), a.description);  // the texts alone: a's words
  Scenario padded = b;
  padded.tiles[0].pad = 1;
  EXPECT_FALSE(same_model(a, padded));
  Scenario c = a;
  c.block[0] = 16;
  EXPECT_FALSE(same_model(a, c));
  EXPECT_EQ(draft_description(a, c, nullptr)
                .rfind("Edited from row-write-column-read. It does "
                       "not analyze",
                       0),
            0u);
}
