// author.h: lessons an instructor writes in the app (issue 31; docs/LESSONS.md "Write a lesson in
// the app"). "Add this view as a scene" takes the scenario on screen (embedded whole, so the file
// needs no preset of the user's), opened on the step on screen (its loop iteration too), with a
// caption, an optional reveal and an optional question whose answer is the model's; scenes can be
// moved and removed; "Save" checks the lesson as `bankviz-cli lessons --check` does (the same
// check_lesson()) and writes it, never over a file unless asked. No window here: the panel is
// panel_author.cpp; the tests call these directly.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/lesson.h"
#include "caption_fit.h"

namespace bankviz::gui {

// The form for the next scene.
struct SceneForm {
  std::string title;    // empty: the scenario's
  std::string caption;  // what to say before the answer (never the answer's figure as digits:
                        // write {wavefronts}, {ways}... in the reveal, lesson.h)
  std::string reveal;   // said with the answer; may be empty
  bool ask = true;      // with a question
  std::string question = "How many wavefronts does this access take?";
  Quantity quantity = Quantity::Wavefronts;
};

struct AuthorState {
  bool open = false;
  Lesson lesson;  // name, title, description and the scenes added so far
  SceneForm form;
  std::string path;                  // where "Save" writes ("" until chosen: <name>.json)
  std::vector<Diagnostic> problems;  // the last check's (check_lesson), by scene
  std::string note;                  // the last add's or save's outcome, in words
  bool confirm_replace = false;      // the last save found the file there: "Replace?"
};

// The scene for the view on screen: `scenario` (the analysis' own) embedded, opened on executed
// step `step` (its scenario step and, in a loop, its iteration), with the form's texts and, with a
// question, the model's answer at that step. nullopt with *why set: no step on screen or one
// without a shared-memory access (a barrier), an empty caption or question.
std::optional<Scene> scene_from_view(const Analysis& a, int step, const SceneForm& form,
                                     std::string* why);

// Adds it at the end; false with *why as above, or when the lesson has kMaxScenes already.
bool add_scene(AuthorState& s, const Analysis& a, int step, std::string* why);
// Swaps scene i with its neighbour (dir < 0: the one before); false at an end.
bool move_scene(Lesson& l, size_t i, int dir);
void remove_scene(Lesson& l, size_t i);

// The lesson checked as `lessons --check` checks it (check_lesson with presets from
// `presets_dir`, then its captions fitted to the presenter's strip, caption_fit.h, measured with
// `widths`; not fitted when it is empty) and, when sound, written as lesson_to_json() to `path`
// (atomically; an existing file only with `force`). The problems go to s.problems (nothing is
// written then), the outcome to s.note; true when written.
bool save_lesson(AuthorState& s, const std::string& presets_dir, bool force,
                 const std::function<TextWidth(float px)>& widths = {});

// The file name "Save" proposes: <lesson name>.json in the current directory, the name made of
// letters, digits, '-' and '_' only ("my-lesson" without one).
std::string default_lesson_path(const Lesson& l);

}  // namespace bankviz::gui
