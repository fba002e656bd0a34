// author.cpp: lessons an instructor writes in the app (see author.h).
#include "lesson/author.h"

#include <filesystem>
#include <utility>

#include "bankviz/io.h"

namespace bankviz::gui {

namespace {

bool blank(const std::string& t) {
  return t.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

std::optional<Scene> scene_from_view(const Analysis& a, int step, const SceneForm& form,
                                     std::string* why) {
  if (step < 0 || step >= static_cast<int>(a.steps.size())) {
    *why = "no step on screen: step to the access the scene is about first";
    return std::nullopt;
  }
  const StepInfo& info = a.steps[static_cast<size_t>(step)];
  if (info.kind == StepKind::Sync) {
    *why = "the step on screen is a barrier: a scene opens on a load, store or atomic";
    return std::nullopt;
  }
  if (blank(form.caption)) {
    *why = "write the caption first: what to say while the scene is on screen";
    return std::nullopt;
  }
  if (form.ask && blank(form.question)) {
    *why = "write the question, or untick \"ask a question\"";
    return std::nullopt;
  }
  Scene scene;
  scene.title = form.title;
  scene.scenario = a.scenario;
  scene.scenario->open_step = info.step;
  scene.open_step = info.step;
  // A step in a loop: the iteration on screen (scene_step() finds it again).
  if (a.scenario.steps[static_cast<size_t>(info.step)].iterations() > 1 ||
      !a.scenario.steps[static_cast<size_t>(info.step)].loop_var.empty())
    scene.open_iteration = info.iteration;
  scene.caption = form.caption;
  scene.reveal = form.reveal;
  if (form.ask) {
    Question q;
    q.ask = form.question;
    q.quantity = form.quantity;
    // The answer is the model's at the step on screen: the one the scene opens on (its step's
    // only execution, or in a loop the iteration named), as check_lesson() reads it.
    q.answer = model_answer(a, q.quantity, step);
    scene.question = q;
  }
  return scene;
}

bool add_scene(AuthorState& s, const Analysis& a, int step, std::string* why) {
  if (s.lesson.scenes.size() >= kMaxScenes) {
    *why = "a lesson holds at most " + std::to_string(kMaxScenes) + " scenes";
    return false;
  }
  std::optional<Scene> scene = scene_from_view(a, step, s.form, why);
  if (!scene) return false;
  s.lesson.scenes.push_back(std::move(*scene));
  s.problems.clear();
  return true;
}

bool move_scene(Lesson& l, size_t i, int dir) {
  if (i >= l.scenes.size()) return false;
  if (dir < 0 ? i == 0 : i + 1 >= l.scenes.size()) return false;
  const size_t j = dir < 0 ? i - 1 : i + 1;
  std::swap(l.scenes[i], l.scenes[j]);
  return true;
}

void remove_scene(Lesson& l, size_t i) {
  if (i < l.scenes.size()) l.scenes.erase(l.scenes.begin() + static_cast<std::ptrdiff_t>(i));
}

std::string default_lesson_path(const Lesson& l) {
  std::string stem;
  for (char c : l.name)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_')
      stem += c;
  if (stem.empty()) stem = "my-lesson";
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::current_path(ec);
  return ec ? stem + ".json" : (dir / (stem + ".json")).string();
}

bool save_lesson(AuthorState& s, const std::string& presets_dir, bool force,
                 const std::function<TextWidth(float px)>& widths) {
  s.confirm_replace = false;
  if (s.lesson.scenes.empty()) {
    s.note = "nothing to save: add a scene first";
    return false;
  }
  if (blank(s.lesson.title)) {
    s.note = "give the lesson a title first";
    return false;
  }
  if (s.path.empty()) s.path = default_lesson_path(s.lesson);
  // What `lessons --check` says of it, before anything is written.
  s.problems = check_lesson(s.lesson, presets_dir);
  if (s.problems.empty() && widths) s.problems = check_caption_fit(s.lesson, presets_dir, widths);
  if (!s.problems.empty()) {
    s.note = std::to_string(s.problems.size()) +
             (s.problems.size() == 1 ? " problem" : " problems") +
             " (below): nothing written; `bankviz-cli lessons --check` would refuse it";
    return false;
  }
  if (std::string why = output_problem(s.path, force); !why.empty()) {
    // Only an existing file that force may replace is a question; anything else an error.
    s.confirm_replace = !force && output_problem(s.path, true).empty();
    s.note = why;
    return false;
  }
  if (std::string err = write_file_atomic(s.path, lesson_to_json(s.lesson), force); !err.empty()) {
    s.note = err;
    return false;
  }
  s.note = "saved " + s.path + " (" + std::to_string(s.lesson.scenes.size()) +
           (s.lesson.scenes.size() == 1 ? " scene" : " scenes") +
           "): open it with \"Open a file...\" or drop it on the window; `bankviz-cli lessons "
           "--check --file` checks it";
  return true;
}

}  // namespace bankviz::gui
