// cmd_lessons.cpp: `bankviz-cli lessons`: the guided lessons (core lesson.h).
//
//   bankviz-cli lessons [--json]                 one line per lesson: name, title, scenes
//   bankviz-cli lessons NAME [--json]            its scenes, each checked against the model
//   bankviz-cli lessons --file PATH [--json]     a lesson file of your own, the same way
//   bankviz-cli lessons --check [NAME | --file PATH]
//                                                every lesson (or one) checked: answers, figures
//                                                in the texts, nothing told before it is asked,
//                                                every caption whole in presenter mode
//                                                (caption_fit.h) at the sizes a class uses
//
// A lesson whose file does not load, or whose scene does not analyze or whose answer disagrees
// with the model, fails (exit 1) with the path of the problem.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "bankviz/lesson.h"
#include "bankviz/trace.h"
#include "caption_fit.h"
#include "caption_font.h"
#include "catalog.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {

namespace {

namespace fs = std::filesystem;

struct LessonsOptions {
  std::string name;
  std::string file;
  bool json = false;
  bool check = false;
};

std::string lessons_dir() {
  const std::string assets = assets_dir();
  return assets.empty() ? std::string() : assets + "/lessons";
}
std::string presets_dir() {
  const std::string assets = assets_dir();
  return assets.empty() ? std::string() : assets + "/presets";
}

std::vector<std::string> lesson_names() {
  return catalog_names("lessons");
}

std::string problems(const std::string& what, const std::vector<Diagnostic>& errors) {
  std::string out = what + ":";
  for (const Diagnostic& d : errors) out += "\n  " + d.format();
  return out;
}

Lesson load_or_exit(const std::string& path) {
  LessonLoad load = load_lesson_file(path);
  if (!load.lesson) throw Exit{kExitFailed, problems(path, load.errors)};
  return *load.lesson;
}

// A name given on the command line is a file stem, never a path.
std::string lesson_path(const std::string& name) {
  std::string why;
  const std::string path = catalog_path("lessons", name, &why);
  if (path.empty()) throw Exit{kExitUsage, why};
  return path;
}

void list_lessons(const LessonsOptions& o) {
  const auto names = lesson_names();
  if (names.empty()) throw Exit{kExitFailed, "no lessons found (set BANKVIZ_ASSETS)"};
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const std::string& n : names) {
    const Lesson l = load_or_exit(lessons_dir() + "/" + n + ".json");
    if (o.json) {
      j.push_back({{"name", l.name},
                   {"title", l.title},
                   {"source", l.source},
                   {"scenes", l.scenes.size()},
                   {"minutes", lesson_minutes(l)}});
    } else {
      std::cout << l.name << "\t" << l.title << "\t" << l.scenes.size() << " scenes, about "
                << lesson_minutes(l) << " minutes\n";
    }
  }
  if (o.json) std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// The scenario analyzed for its counts (analysis.h ServeDetail::CountsOnly); exits when it does
// not analyze.
Analysis counts_or_exit(const Scenario& s) {
  TraceResult t = trace(s);
  AnalysisResult r;
  if (t.trace)
    r = analyze(s, nullptr, std::move(*t.trace), ServeDetail::CountsOnly);
  else
    r.errors = std::move(t.errors);
  if (r.analysis) return std::move(*r.analysis);
  std::string msg = "cannot analyze '" + s.name + "':";
  for (const Diagnostic& d : r.errors) msg += "\n  " + d.format();
  throw Exit{kExitFailed, msg};
}

// Prints the scenes with the model's answers; throws when the lesson and the model disagree.
void show_lesson(const Lesson& l, bool json) {
  const std::vector<Diagnostic> errors = check_lesson(l, presets_dir());
  if (!errors.empty()) throw Exit{kExitFailed, problems("lesson '" + l.name + "'", errors)};
  nlohmann::ordered_json scenes = nlohmann::ordered_json::array();
  if (!json)
    std::cout << l.name << ": " << l.title << " (about " << lesson_minutes(l) << " minutes)\n"
              << l.description << "\n";
  // Consecutive scenes often show one scenario opened at different steps: analyzed once, the
  // counts only, as check_lesson() does (every figure a scene states is a count). Each scene
  // analyzed whole made a 45-scene lesson of one 1024-thread scenario take 8 times its check.
  std::string shown_key;
  std::optional<Analysis> shown;
  int at = 0;  // the minute of the lecture the scene starts at
  for (size_t i = 0; i < l.scenes.size(); ++i) {
    const Scene& scene = l.scenes[i];
    // check_lesson() loaded and analyzed every scene: these cannot fail now.
    const Scenario s = *scene_scenario(scene, presets_dir()).scenario;
    Scenario unopened = s;
    unopened.open_step = -1;
    if (std::string key = scenario_to_json(unopened); !shown || key != shown_key) {
      shown = counts_or_exit(s);
      shown_key = std::move(key);
    }
    shown->scenario.open_step = s.open_step;
    const Analysis& a = *shown;
    const int step = scene_step(a, scene);
    const std::string title = scene.title.empty() ? s.title : scene.title;
    const std::string from = scene.preset.empty() ? "(embedded) " + s.name : scene.preset;
    if (json) {
      nlohmann::ordered_json js = {{"title", title},
                                   {"scenario", from},
                                   {"open_step", step},
                                   {"step_label", a.steps[step].label},
                                   {"warp", scene_warp(a, step)},
                                   {"caption", scene_caption(scene, a, step, false)}};
      if (!scene.reveal.empty()) js["reveal"] = *fill_scene_text(scene.reveal, a, step);
      if (scene.question) {
        const Quantity q = scene.question->quantity;
        const int64_t answer = model_answer(a, q, step);
        js["question"] = {{"ask", scene.question->ask}, {"quantity", quantity_name(q)}};
        if (yes_no(q))
          js["question"]["answer"] = answer != 0;
        else
          js["question"]["answer"] = answer;
      }
      js["minutes"] = scene_minutes(scene);
      if (!scene.notes.empty()) js["notes"] = scene.notes;
      scenes.push_back(std::move(js));
      continue;
    }
    std::cout << "\n"
              << i + 1 << ". " << title << "  [" << from << ", step " << step << ": "
              << a.steps[step].label << ", warp " << scene_warp(a, step) << "]\n   "
              << scene_caption(scene, a, step, false) << "\n";
    if (!scene.reveal.empty())
      std::cout << "   with the answer: " << *fill_scene_text(scene.reveal, a, step) << "\n";
    if (scene.question)
      std::cout << "   Q: " << scene.question->ask << "\n   A: "
                << answer_words(scene.question->quantity,
                                model_answer(a, scene.question->quantity, step))
                << " (" << quantity_name(scene.question->quantity) << ")\n";
    // The lecture's path: the minutes this scene fills, from the lesson's start, and the notes.
    std::cout << "   minutes " << at << "-" << at + scene_minutes(scene) << " of the lecture"
              << (scene.notes.empty() ? "" : ": " + scene.notes) << "\n";
    at += scene_minutes(scene);
  }
  if (json) {
    nlohmann::ordered_json j = {{"name", l.name},
                                {"title", l.title},
                                {"minutes", lesson_minutes(l)},
                                {"source", l.source},
                                {"description", l.description},
                                {"scenes", std::move(scenes)}};
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
}

// --check: every lesson named (all of them by default) checked; one line each, the problems with
// their paths; throws (exit 1) when any lesson is not sound.
void check_lessons(const LessonsOptions& o) {
  std::vector<std::string> paths;
  if (!o.file.empty()) {
    paths.push_back(o.file);
  } else if (!o.name.empty()) {
    paths.push_back(lesson_path(o.name));
  } else {
    for (const std::string& n : lesson_names()) paths.push_back(lessons_dir() + "/" + n + ".json");
    if (paths.empty()) throw Exit{kExitFailed, "no lessons found (set BANKVIZ_ASSETS)"};
  }
  size_t bad = 0, scenes = 0;
  std::string report;
  // The captions are fitted to the presenter's strip in its own type (caption_fit.h); without
  // the font that is said, and the rest is still checked.
  std::string no_font;
  const auto widths = caption_font_widths(&no_font);
  for (const std::string& path : paths) {
    LessonLoad load = load_lesson_file(path);
    std::vector<Diagnostic> errors = load.errors;
    if (load.lesson) errors = check_lesson(*load.lesson, presets_dir());
    if (load.lesson && errors.empty() && widths)
      errors = check_caption_fit(*load.lesson, presets_dir(), widths);
    const std::string name = load.lesson ? load.lesson->name : path;
    if (errors.empty()) {
      scenes += load.lesson->scenes.size();
      std::cout << name << ": " << load.lesson->scenes.size() << " scenes sound\n";
    } else {
      ++bad;
      report += (report.empty() ? "" : "\n") + problems("lesson '" + name + "'", errors);
    }
  }
  if (!widths) std::cout << "captions not fitted: " << no_font << "\n";
  if (bad > 0) throw Exit{kExitFailed, report};
  std::cout << paths.size() << (paths.size() == 1 ? " lesson, " : " lessons, ") << scenes
            << " scenes: every answer is the model's, every figure filled from it, none told "
               "before it is asked"
            << (widths ? ", every caption whole in presenter mode from 1024x768 to 3840x2160" : "")
            << "\n";
}

}  // namespace

void add_lessons_command(CLI::App& app) {
  auto o = std::make_shared<LessonsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lessons", "list the guided lessons, or show one's scenes (checked against the model)");
  cmd->add_option("name", o->name, "a lesson's name (see the list)");
  cmd->add_option("--file", o->file, "a lesson file of your own (docs/LESSONS.md)");
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->add_flag("--check", o->check,
                "check every lesson (or the one named): answers, figures, nothing told before "
                "it is asked, captions whole in presenter mode from 1024x768 to 3840x2160; exit 1 "
                "with the problems");
  cmd->callback([o, cmd] {
    const bool file = cmd->count("--file") > 0;
    if (file && o->file.empty()) throw Exit{kExitUsage, "--file: give a lesson file's path"};
    if (cmd->count("name") > 0 && o->name.empty())
      throw Exit{kExitUsage,
                 "the lesson's name is empty: give one of the names `bankviz-cli "
                 "lessons` lists, or nothing to list them"};
    if (!o->name.empty() && file)
      throw Exit{kExitUsage, "give a lesson's name or --file, not both"};
    if (o->check) {
      if (o->json) throw Exit{kExitUsage, "--check prints text: not with --json"};
      return check_lessons(*o);
    }
    if (file) return show_lesson(load_or_exit(o->file), o->json);
    if (o->name.empty()) return list_lessons(*o);
    show_lesson(load_or_exit(lesson_path(o->name)), o->json);
  });
}

}  // namespace bankviz::cli
