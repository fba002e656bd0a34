// lesson.cpp: lesson files (see lesson.h).
//
// [SECTION] Quantities
// [SECTION] JSON -> Lesson (strict: unknown keys and wrong types are errors with a path)
// [SECTION] Scenes and the model
#include "bankviz/lesson.h"

#include <algorithm>
#include <set>

#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "json_reader.h"

namespace bankviz {

using detail::Json;

// [SECTION] Quantities

namespace {

struct QuantityName {
  Quantity q;
  const char* name;
};
constexpr QuantityName kQuantities[] = {
    {Quantity::Wavefronts, "wavefronts"},          {Quantity::Ideal, "ideal"},
    {Quantity::StepWavefronts, "step_wavefronts"}, {Quantity::RacingAccesses, "racing_accesses"},
    {Quantity::OutOfBounds, "out_of_bounds"},
};

}  // namespace

const char* quantity_name(Quantity q) {
  for (const QuantityName& n : kQuantities)
    if (n.q == q) return n.name;
  return "?";
}

std::optional<Quantity> parse_quantity(std::string_view s) {
  for (const QuantityName& n : kQuantities)
    if (s == n.name) return n.q;
  return std::nullopt;
}

std::string quantity_names() {
  std::string out;
  for (const QuantityName& n : kQuantities) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

// [SECTION] JSON -> Lesson

namespace {

using detail::join;
using detail::Reader;

std::string indexed(const std::string& path, size_t i) {
  return path + '[' + std::to_string(i) + ']';
}

// A preset is named by its file stem: letters, digits, '-', '_' and '.', not starting with '.'
// (never a path: a scene cannot reach a file outside the presets).
bool preset_name_ok(const std::string& n) {
  if (n.empty() || n.size() > 128 || n[0] == '.') return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

void read_question(Reader& r, const Json& j, const std::string& path, Scene& scene,
                   std::vector<Diagnostic>& errors) {
  if (!r.object(j, path, {"ask", "quantity", "answer"})) return;
  Question q;
  for (const char* key : {"ask", "quantity", "answer"})
    if (!j.contains(key)) r.error(join(path, key), "missing");
  r.text(j, path, "ask", q.ask, kMaxCaptionChars);
  std::string quantity;
  r.text(j, path, "quantity", quantity, 64);
  if (j.contains("quantity") && j["quantity"].is_string()) {
    if (auto parsed = parse_quantity(quantity)) {
      q.quantity = *parsed;
    } else {
      errors.push_back({join(path, "quantity"), 0,
                        "unknown quantity '" + quantity + "' (known: " + quantity_names() + ")"});
    }
  }
  r.integer(j, path, "answer", q.answer, 0, int64_t{1} << 30);
  scene.question = q;
}

Scene read_scene(Reader& r, const Json& j, const std::string& path,
                 std::vector<Diagnostic>& errors) {
  Scene scene;
  if (!r.object(
          j, path,
          {"title", "preset", "scenario", "open_step", "open_iteration", "caption", "question"}))
    return scene;
  r.text(j, path, "title", scene.title, kMaxCaptionChars);
  if (has_control(scene.title))
    r.error(join(path, "title"), "the title must be one line without control characters");
  r.text(j, path, "preset", scene.preset, 256);
  r.text(j, path, "caption", scene.caption, kMaxCaptionChars);
  if (!j.contains("caption")) r.error(join(path, "caption"), "missing: what to say on this scene");
  const bool has_preset = j.contains("preset"), has_scenario = j.contains("scenario");
  if (has_preset == has_scenario) {
    r.error(path, has_preset ? "give \"preset\" or \"scenario\", not both"
                             : "missing: \"preset\" (a preset's name) or \"scenario\" (embedded)");
  } else if (has_preset && j["preset"].is_string() && !preset_name_ok(scene.preset)) {
    r.error(join(path, "preset"),
            "'" + scene.preset + "' is not a preset name (letters, digits, '-', '_', '.')");
  }
  if (has_scenario) {
    const Json& sj = j["scenario"];
    if (!sj.is_object()) {
      r.error(join(path, "scenario"), "expected an object (a scenario, docs/SCENARIO.md)");
    } else {
      ScenarioLoad load = scenario_from_json(sj.dump());
      for (Diagnostic d : load.errors) {
        d.path = join(join(path, "scenario"), d.path);
        errors.push_back(std::move(d));
      }
      scene.scenario = std::move(load.scenario);
    }
  }
  int64_t open = -1;
  if (r.integer(j, path, "open_step", open, 0, static_cast<int64_t>(kMaxSteps) - 1))
    scene.open_step = static_cast<int>(open);
  int64_t iteration = 0;
  if (r.integer(j, path, "open_iteration", iteration, -(int64_t{1} << 31), (int64_t{1} << 31) - 1))
    scene.open_iteration = iteration;
  if (auto it = j.find("question"); it != j.end())
    read_question(r, *it, join(path, "question"), scene, errors);
  return scene;
}

void read_lesson(Reader& r, const Json& j, Lesson& lesson, std::vector<Diagnostic>& errors) {
  if (!r.object(j, "", {"name", "title", "source", "description", "scenes"})) return;
  r.text(j, "", "name", lesson.name, 128);
  r.text(j, "", "title", lesson.title, kMaxCaptionChars);
  r.text(j, "", "source", lesson.source, kMaxCaptionChars);
  r.text(j, "", "description", lesson.description, kMaxCaptionChars);
  if (has_control(lesson.name))
    r.error("name", "the name must be one line without control characters");
  // A title heads a window, a slide and the CLI's list: one line.
  if (has_control(lesson.title))
    r.error("title", "the title must be one line without control characters");
  auto it = j.find("scenes");
  if (it == j.end() || !it->is_array()) {
    r.error("scenes", it == j.end() ? "missing: a lesson is a list of scenes"
                                    : "expected an array of scenes");
    return;
  }
  if (it->empty()) r.error("scenes", "no scenes: add at least one");
  if (it->size() > kMaxScenes) {
    r.error("scenes", std::to_string(it->size()) + " scenes; a lesson holds at most " +
                          std::to_string(kMaxScenes));
    return;
  }
  for (size_t i = 0; i < it->size(); ++i)
    lesson.scenes.push_back(read_scene(r, (*it)[i], indexed("scenes", i), errors));
}

}  // namespace

LessonLoad lesson_from_json(std::string_view json_text) {
  LessonLoad out;
  std::optional<Json> parsed = detail::parse_strict_json(json_text, "a lesson", out.errors);
  if (!parsed) return out;
  const Json& j = *parsed;
  Lesson lesson;
  try {
    Reader r(out.errors);
    read_lesson(r, j, lesson, out.errors);
  } catch (const std::exception& e) {  // defensive: nlohmann type errors must never escape
    out.errors.push_back({"", 0, std::string("unexpected JSON content: ") + e.what()});
  }
  limit_diagnostics(out.errors);
  if (out.errors.empty()) out.lesson = std::move(lesson);
  return out;
}

LessonLoad load_lesson_file(const std::string& path) {
  LessonLoad out;
  TextRead text = read_text_file(path, kMaxLessonBytes);
  if (!text.text) {
    out.errors.push_back({"", 0, "cannot read the lesson file " + text.error});
    return out;
  }
  out = lesson_from_json(*text.text);
  if (out.lesson && out.lesson->name.empty()) {
    std::string stem = path.substr(path.find_last_of("/\\") + 1);
    if (size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    out.lesson->name = stem;
  }
  return out;
}

// [SECTION] Scenes and the model

ScenarioLoad scene_scenario(const Scene& scene, const std::string& presets_dir) {
  ScenarioLoad load;
  if (scene.scenario) {
    load.scenario = scene.scenario;
  } else {
    load = load_scenario_file(presets_dir + "/" + scene.preset + ".json");
    if (!load.scenario) {
      for (Diagnostic& d : load.errors) d.message = "preset '" + scene.preset + "': " + d.message;
      return load;
    }
  }
  if (scene.open_step >= 0) {
    load.scenario->open_step = scene.open_step;
    if (std::optional<Diagnostic> d = check_open_step(*load.scenario)) {
      load.errors = {*d};
      load.scenario.reset();
    }
  }
  return load;
}

int opening_step(const Analysis& a) {
  // A stale open_step (the step was edited away, or is a barrier now) falls back to the worst.
  if (a.scenario.open_step >= 0)
    for (size_t i = 0; i < a.steps.size(); ++i)
      if (a.steps[i].step == a.scenario.open_step && a.steps[i].kind != StepKind::Sync)
        return static_cast<int>(i);
  return a.worst_step();
}

int scene_step(const Analysis& a, const Scene& scene) {
  const int open = opening_step(a);
  if (!scene.open_iteration || open < 0) return open;
  for (size_t i = 0; i < a.steps.size(); ++i)
    if (a.steps[i].step == a.steps[open].step && a.steps[i].iteration == *scene.open_iteration)
      return static_cast<int>(i);
  return -1;
}

int64_t model_answer(const Analysis& a, Quantity q, int step) {
  // The worst warp's request at the opening step: the one the picture's question is about.
  const WarpStep* worst = nullptr;
  if (step >= 0 && step < static_cast<int>(a.warps.size()))
    for (const WarpStep& w : a.warps[step])
      if (!worst || w.result.wavefronts > worst->result.wavefronts) worst = &w;
  switch (q) {
    case Quantity::Wavefronts:
      return worst ? worst->result.wavefronts : 0;
    case Quantity::Ideal:
      return worst ? worst->result.ideal : 0;
    case Quantity::StepWavefronts:
      return step >= 0 ? a.step_wavefronts(step) : 0;
    case Quantity::RacingAccesses:
      return a.hazards.racing_accesses;
    case Quantity::OutOfBounds:
      return a.out_of_bounds;
  }
  return 0;
}

std::vector<Diagnostic> check_lesson(const Lesson& lesson, const std::string& presets_dir) {
  std::vector<Diagnostic> out;
  for (size_t i = 0; i < lesson.scenes.size(); ++i) {
    const Scene& scene = lesson.scenes[i];
    const std::string path = indexed("scenes", i);
    ScenarioLoad load = scene_scenario(scene, presets_dir);
    if (!load.scenario) {
      const std::string where = join(path, scene.scenario ? "scenario" : "preset");
      for (const Diagnostic& d : load.errors)
        out.push_back({where, 0, d.path.empty() ? d.message : d.format()});
      continue;
    }
    AnalysisResult r = analyze(*load.scenario);
    if (!r.analysis) {
      for (const Diagnostic& d : r.errors)
        out.push_back({path, 0, "does not analyze: " + d.format()});
      continue;
    }
    const int step = scene_step(*r.analysis, scene);
    if (step < 0) {
      out.push_back({scene.open_iteration ? join(path, "open_iteration") : path, 0,
                     scene.open_iteration
                         ? "the opening step never runs with its loop variable at " +
                               std::to_string(*scene.open_iteration)
                         : std::string("no step of this scene touches shared memory")});
      continue;
    }
    if (scene.question) {
      const int64_t model = model_answer(*r.analysis, scene.question->quantity, step);
      if (model != scene.question->answer)
        out.push_back({join(path, "question.answer"), 0,
                       std::to_string(scene.question->answer) +
                           " disagrees with the model: " + quantity_name(scene.question->quantity) +
                           " = " + std::to_string(model)});
    }
  }
  limit_diagnostics(out);
  return out;
}

}  // namespace bankviz
