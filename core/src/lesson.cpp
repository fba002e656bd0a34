// lesson.cpp: lesson files (see lesson.h).
//
// [SECTION] Quantities
// [SECTION] JSON -> Lesson (strict: unknown keys and wrong types are errors with a path)
// [SECTION] Scenes and the model
#include "bankviz/lesson.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "json_reader.h"
#include "workers.h"

namespace bankviz {

using detail::Json;

// [SECTION] Quantities

namespace {

struct QuantityName {
  Quantity q;
  const char* name;
};
constexpr QuantityName kQuantities[] = {
    {Quantity::Wavefronts, "wavefronts"},
    {Quantity::Ideal, "ideal"},
    {Quantity::StepWavefronts, "step_wavefronts"},
    {Quantity::RacingAccesses, "racing_accesses"},
    {Quantity::OutOfBounds, "out_of_bounds"},
    {Quantity::Warps, "warps"},
    {Quantity::Races, "races"},
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

bool yes_no(Quantity q) {
  return q == Quantity::Races;
}

std::string answer_words(Quantity q, int64_t answer) {
  if (yes_no(q)) return answer != 0 ? "yes" : "no";
  return std::to_string(answer);
}

int scene_minutes(const Scene& scene) {
  if (scene.minutes) return *scene.minutes;
  return scene.question ? 4 : 2;
}

int lesson_minutes(const Lesson& lesson) {
  int sum = 0;
  for (const Scene& s : lesson.scenes) sum += scene_minutes(s);
  return sum;
}

// [SECTION] JSON -> Lesson

namespace {

using detail::join;
using detail::Reader;

// Only spaces (or nothing): a text the room cannot read.
bool blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

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
  if (auto a = j.find("answer"); a != j.end() && a->is_boolean()) {
    if (yes_no(q.quantity))
      q.answer = a->get<bool>() ? 1 : 0;
    else
      r.error(join(path, "answer"),
              std::string("expected a number: \"") + quantity_name(q.quantity) +
                  "\" is answered with a count (true/false answer \"races\")");
  } else if (r.integer(j, path, "answer", q.answer, 0, int64_t{1} << 30) && yes_no(q.quantity) &&
             q.answer > 1) {
    r.error(join(path, "answer"), "a yes/no question: true or false (or 1 or 0)");
  }
  scene.question = q;
}

Scene read_scene(Reader& r, const Json& j, const std::string& path,
                 std::vector<Diagnostic>& errors) {
  Scene scene;
  if (!r.object(j, path,
                {"title", "preset", "scenario", "open_step", "open_iteration", "caption", "reveal",
                 "question", "minutes", "notes"}))
    return scene;
  r.text(j, path, "title", scene.title, kMaxCaptionChars);
  if (has_control(scene.title))
    r.error(join(path, "title"), "the title must be one line without control characters");
  r.text(j, path, "preset", scene.preset, 256);
  r.text(j, path, "caption", scene.caption, kMaxCaptionChars);
  r.text(j, path, "reveal", scene.reveal, kMaxCaptionChars);
  r.text(j, path, "notes", scene.notes, kMaxCaptionChars);
  if (has_control(scene.notes))
    r.error(join(path, "notes"), "the notes must be one paragraph without control characters");
  if (!j.contains("caption")) r.error(join(path, "caption"), "missing: what to say on this scene");
  for (const char* key : {"title", "reveal", "notes"})  // optional, but never written blank
    if (auto it = j.find(key); it != j.end() && it->is_string() && blank(it->get<std::string>()))
      r.error(join(path, key), "empty: give it words or leave the key out");
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
  int64_t minutes = 0;
  if (r.integer(j, path, "minutes", minutes, 1, kMaxLessonMinutes))
    scene.minutes = static_cast<int>(minutes);
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
  } catch (const std::bad_alloc&) {  // under a memory limit: not the file's content
    out.errors.push_back({"", 0, detail::kOutOfMemoryReading});
  } catch (const std::exception& e) {  // defensive: nlohmann type errors must never escape
    out.errors.push_back({"", 0, std::string("unexpected JSON content: ") + e.what()});
  }
  limit_diagnostics(out.errors);
  if (out.errors.empty()) out.lesson = std::move(lesson);
  return out;
}

std::string lesson_to_json(const Lesson& lesson) {
  Json j;
  j["name"] = lesson.name;
  j["title"] = lesson.title;
  if (!lesson.source.empty()) j["source"] = lesson.source;
  if (!lesson.description.empty()) j["description"] = lesson.description;
  Json scenes = Json::array();
  for (const Scene& scene : lesson.scenes) {
    Json sj;
    if (!scene.title.empty()) sj["title"] = scene.title;
    if (scene.scenario)
      sj["scenario"] = detail::scenario_to_json_value(*scene.scenario);
    else
      sj["preset"] = scene.preset;
    if (scene.open_step >= 0) sj["open_step"] = scene.open_step;
    if (scene.open_iteration) sj["open_iteration"] = *scene.open_iteration;
    sj["caption"] = scene.caption;
    if (!scene.reveal.empty()) sj["reveal"] = scene.reveal;
    if (scene.question) {
      const Question& q = *scene.question;
      Json qj;
      qj["ask"] = q.ask;
      qj["quantity"] = quantity_name(q.quantity);
      if (yes_no(q.quantity))
        qj["answer"] = q.answer != 0;
      else
        qj["answer"] = q.answer;
      sj["question"] = std::move(qj);
    }
    if (scene.minutes) sj["minutes"] = *scene.minutes;
    if (!scene.notes.empty()) sj["notes"] = scene.notes;
    scenes.push_back(std::move(sj));
  }
  j["scenes"] = std::move(scenes);
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

LessonLoad load_lesson_file(const std::string& path) {
  LessonLoad out;
  TextRead text = read_text_file(path, kMaxLessonBytes);
  if (!text.text) {
    out.errors.push_back({"", 0, "cannot read the lesson file: " + text.error});
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

int scene_warp(const Analysis& a, int step) {
  if (step < 0 || step >= static_cast<int>(a.warps.size())) return -1;
  int worst = -1;
  for (size_t w = 0; w < a.warps[step].size(); ++w) {
    const int n = a.warps[step][w].result.wavefronts;
    if (n > 0 && (worst < 0 || n > a.warps[step][static_cast<size_t>(worst)].result.wavefronts))
      worst = static_cast<int>(w);
  }
  return worst;
}

int64_t model_answer(const Analysis& a, Quantity q, int step) {
  // The worst warp's request at the opening step: the one the picture's question is about.
  const int warp = scene_warp(a, step);
  const WarpStep* worst = warp >= 0 ? &a.warps[step][static_cast<size_t>(warp)] : nullptr;
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
    case Quantity::Warps:
      return step >= 0 ? a.step_instructions(step) : 0;
    case Quantity::Races:
      return a.hazards.racing_accesses > 0 ? 1 : 0;
  }
  return 0;
}

// [SECTION] Figures in a scene's words

namespace {

// A placeholder's figure at executed step `step` (the worst warp's, as model_answer reads).
struct Figure {
  const char* name;
  int64_t (*value)(const Analysis& a, int step);
};

const AccessResult* worst_result(const Analysis& a, int step) {
  const int w = scene_warp(a, step);
  return w >= 0 ? &a.warps[static_cast<size_t>(step)][static_cast<size_t>(w)].result : nullptr;
}

// The busiest bank's passes in the asked warp's request: what the highest per-bank count reads.
// An analysis of counts only (check_lesson's) has no per-bank figures: the one request is served
// again by the bank model for them.
int64_t busiest_passes(const Analysis& a, int step) {
  const int w = scene_warp(a, step);
  if (w < 0 || !a.arch) return 0;
  const WarpStep& ws = a.warps[static_cast<size_t>(step)][static_cast<size_t>(w)];
  const AccessResult served =
      ws.result.busiest_bank >= 0 ? AccessResult{} : serve(*a.arch, a.step_op(step).op, ws.access);
  const AccessResult& r = ws.result.busiest_bank >= 0 ? ws.result : served;
  return r.busiest_bank >= 0 ? r.bank_passes[static_cast<size_t>(r.busiest_bank)] : 0;
}

constexpr Figure kFigures[] = {
    {"wavefronts",
     [](const Analysis& a, int st) { return model_answer(a, Quantity::Wavefronts, st); }},
    {"ideal", [](const Analysis& a, int st) { return model_answer(a, Quantity::Ideal, st); }},
    {"ways",
     [](const Analysis& a, int st) -> int64_t {
       const AccessResult* r = worst_result(a, st);
       return r ? r->degree() : 0;
     }},
    {"bank_passes", busiest_passes},
    {"step_wavefronts",
     [](const Analysis& a, int st) { return model_answer(a, Quantity::StepWavefronts, st); }},
    {"warps", [](const Analysis& a, int st) { return model_answer(a, Quantity::Warps, st); }},
    {"racing_accesses",
     [](const Analysis& a, int st) { return model_answer(a, Quantity::RacingAccesses, st); }},
    {"out_of_bounds",
     [](const Analysis& a, int st) { return model_answer(a, Quantity::OutOfBounds, st); }},
    {"warp", [](const Analysis& a, int st) -> int64_t { return std::max(0, scene_warp(a, st)); }},
};

// Calls on_text for literal runs and on_name for each {name}; false with *error on a bad brace.
template <typename Text, typename Name>
bool scan_placeholders(std::string_view text, Text on_text, Name on_name, std::string* error) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      on_text(std::string_view("{"));
      i += 2;
    } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      on_text(std::string_view("}"));
      i += 2;
    } else if (c == '{') {
      const size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos || close - i > 32) {
        if (error)
          *error = "an unclosed '{' at character " + std::to_string(i + 1) +
                   " (write {{ for a brace; figures: " + placeholder_names() + ")";
        return false;
      }
      if (!on_name(text.substr(i + 1, close - i - 1))) return false;
      i = close + 1;
    } else {
      size_t j = i;
      while (j < text.size() && text[j] != '{' && text[j] != '}') ++j;
      if (j == i) {  // a lone '}'
        if (error) *error = "a lone '}' at character " + std::to_string(i + 1) + " (write }})";
        return false;
      }
      on_text(text.substr(i, j - i));
      i = j;
    }
  }
  return true;
}

const Figure* find_figure(std::string_view name) {
  for (const Figure& f : kFigures)
    if (name == f.name) return &f;
  return nullptr;
}

// The placeholders a text names (checked: unknown ones are an error).
std::optional<std::vector<std::string>> placeholders_of(std::string_view text, std::string* error) {
  std::vector<std::string> names;
  const bool ok = scan_placeholders(
      text, [](std::string_view) {},
      [&](std::string_view name) {
        if (!find_figure(name)) {
          if (error)
            *error = "unknown figure {" + std::string(name) + "} (known: " + placeholder_names() +
                     "; {{ for a brace)";
          return false;
        }
        names.emplace_back(name);
        return true;
      },
      error);
  if (!ok) return std::nullopt;
  return names;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A figure of the model written as digits: "32-way", "16 way", "4 wavefronts", "1 wavefront".
// Returns the first such phrase, or empty.
std::string written_figure(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_digit(text[i]) || (i > 0 && (is_digit(text[i - 1]) || text[i - 1] == '.'))) continue;
    size_t j = i;
    while (j < text.size() && is_digit(text[j])) ++j;
    size_t k = j;
    if (k < text.size() && (text[k] == ' ' || text[k] == '-')) ++k;
    for (std::string_view word : {std::string_view("way"), std::string_view("wavefront")}) {
      if (text.substr(k, word.size()) == word) {
        size_t end = k + word.size();
        while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
        return std::string(text.substr(i, end - i));
      }
    }
    i = j;
  }
  return {};
}

bool tells(Quantity q, std::string_view name);

// The scene's texts: placeholders known, no figure written as digits, and before the reveal
// (caption and question) nothing that states the question's own figure.
void check_scene_texts(const Scene& scene, const std::string& path, std::vector<Diagnostic>& out) {
  struct Part {
    const char* key;
    const std::string* text;
    bool before;  // seen while the question is open
  };
  std::vector<Part> parts = {{"caption", &scene.caption, true}, {"reveal", &scene.reveal, false}};
  if (scene.question) parts.push_back({"question.ask", &scene.question->ask, true});
  for (const Part& p : parts) {
    // A caption and a question are what the room reads: never empty (a reveal may be absent;
    // the reader refuses one written blank).
    if (p.before && blank(*p.text)) {
      out.push_back({join(path, p.key), 0, "empty: say what the room should read here"});
      continue;
    }
    std::string error;
    std::optional<std::vector<std::string>> names = placeholders_of(*p.text, &error);
    if (!names) {
      out.push_back({join(path, p.key), 0, error});
      continue;
    }
    if (std::string w = written_figure(*p.text); !w.empty())
      out.push_back({join(path, p.key), 0,
                     "'" + w +
                         "' writes a figure of the model as digits: name it ({ways}, "
                         "{wavefronts}, ...) so that it is filled from the analysis"});
    if (!p.before || !scene.question) continue;
    for (const std::string& n : *names)
      if (tells(scene.question->quantity, n))
        out.push_back({join(path, p.key), 0,
                       "{" + n + "} states the answer before it is asked: move it to \"reveal\""});
  }
}

// Whether figure `name` states (or gives away) the answer to a question about `q`.
bool tells(Quantity q, std::string_view name) {
  switch (q) {
    case Quantity::Wavefronts:  // the degree and the busiest bank's passes follow from it
      return name == "wavefronts" || name == "ways" || name == "bank_passes";
    case Quantity::Races:
      return name == "racing_accesses";
    default:
      return name == quantity_name(q);
  }
}

}  // namespace

std::string placeholder_names() {
  std::string out;
  for (const Figure& f : kFigures) out += (out.empty() ? "{" : ", {") + std::string(f.name) + "}";
  return out;
}

std::optional<std::string> fill_scene_text(std::string_view text, const Analysis& a, int step,
                                           std::string* error) {
  std::string out;
  const bool ok = scan_placeholders(
      text, [&](std::string_view t) { out += t; },
      [&](std::string_view name) {
        const Figure* f = find_figure(name);
        if (!f) {
          if (error)
            *error = "unknown figure {" + std::string(name) + "} (known: " + placeholder_names() +
                     "; {{ for a brace)";
          return false;
        }
        out += std::to_string(f->value(a, step));
        return true;
      },
      error);
  if (!ok) return std::nullopt;
  return out;
}

std::string scene_caption(const Scene& scene, const Analysis& a, int step, bool revealed) {
  auto fill = [&](const std::string& t) { return fill_scene_text(t, a, step).value_or(t); };
  std::string out = fill(scene.caption);
  if ((revealed || !scene.question) && !scene.reveal.empty())
    out += (out.empty() ? "" : " ") + fill(scene.reveal);
  return out;
}

namespace {

// What a scene shows and asks, as a key: the asked warp's request (the architecture, the
// instruction, its lanes and their addresses) and the question with the model's answer.
std::string picture_key(const Analysis& a, int step, const Scene& scene) {
  const int w = scene_warp(a, step);
  std::string key = std::string(a.arch ? a.arch->name : "") + '|';
  if (w >= 0) {
    const WarpAccess& acc = a.warps[static_cast<size_t>(step)][static_cast<size_t>(w)].access;
    const OpSpec op = a.step_op(step);
    key += std::to_string(static_cast<int>(op.op)) + ',' + std::to_string(op.width) + ',' +
           std::to_string(op.matrices) + ',' + std::to_string(op.trans) + ',' +
           std::to_string(acc.mask) + ':';
    for (size_t l = 0; l < kWarpSize; ++l)
      if ((acc.mask >> l) & 1u) key += std::to_string(acc.addr[l]) + ',';
  }
  if (scene.question)
    key += std::string("|") + quantity_name(scene.question->quantity) + '=' +
           std::to_string(model_answer(a, scene.question->quantity, step));
  return key;
}

}  // namespace

std::vector<Diagnostic> check_lesson(const Lesson& lesson, const std::string& presets_dir) {
  const size_t n = lesson.scenes.size();
  std::vector<std::vector<Diagnostic>> found(n);  // per scene, in order
  // Each scene's scenario, and its saved text with open_step aside (the trace never reads it).
  std::vector<ScenarioLoad> loads(n);
  std::vector<std::string> keys(n);
  std::vector<std::string> pictures(n);  // picture_key() of each scene that analyzed
  for (size_t i = 0; i < n; ++i) {
    const Scene& scene = lesson.scenes[i];
    loads[i] = scene_scenario(scene, presets_dir);
    if (!loads[i].scenario) {
      const std::string where = join(indexed("scenes", i), scene.scenario ? "scenario" : "preset");
      for (const Diagnostic& d : loads[i].errors)
        found[i].push_back({where, 0, d.path.empty() ? d.message : d.format()});
      continue;
    }
    Scenario unopened = *loads[i].scenario;
    unopened.open_step = -1;
    keys[i] = scenario_to_json(unopened);
  }
  // Scenes often show one scenario opened at different steps: a run of consecutive scenes with
  // one scenario is analyzed once (the counts only: every figure a scene states is a count),
  // each scene reading it opened at its own step. The runs are independent: a worker per core
  // (at most 4) takes the next run, so at most that many analyses (tens of MB each) are held.
  std::vector<std::pair<size_t, size_t>> runs;  // [first, end) scene
  for (size_t i = 0; i < n; ++i) {
    if (!loads[i].scenario) continue;
    if (!runs.empty() && runs.back().second == i && keys[runs.back().first] == keys[i])
      ++runs.back().second;
    else
      runs.push_back({i, i + 1});
  }
  auto check_run = [&](size_t first, size_t end) {
    AnalysisResult r;
    TraceResult t = trace(*loads[first].scenario);
    if (t.trace)
      r = analyze(*loads[first].scenario, nullptr, std::move(*t.trace), ServeDetail::CountsOnly);
    else
      r.errors = std::move(t.errors);
    for (size_t i = first; i < end; ++i) {
      const Scene& scene = lesson.scenes[i];
      const std::string path = indexed("scenes", i);
      std::vector<Diagnostic>& out = found[i];
      if (!r.analysis) {
        for (const Diagnostic& d : r.errors)
          out.push_back({path, 0, "does not analyze: " + d.format()});
        continue;
      }
      r.analysis->scenario.open_step = loads[i].scenario->open_step;
      const int step = scene_step(*r.analysis, scene);
      if (step < 0) {
        out.push_back({scene.open_iteration ? join(path, "open_iteration") : path, 0,
                       scene.open_iteration
                           ? "the opening step never runs with its loop variable at " +
                                 std::to_string(*scene.open_iteration)
                           : std::string("no step of this scene touches shared memory")});
        continue;
      }
      check_scene_texts(scene, path, out);
      pictures[i] = picture_key(*r.analysis, step, scene);
      if (scene.question) {
        const Quantity q = scene.question->quantity;
        const int64_t model = model_answer(*r.analysis, q, step);
        if (model != scene.question->answer)
          out.push_back({join(path, "question.answer"), 0,
                         answer_words(q, scene.question->answer) + " disagrees with the model: " +
                             quantity_name(q) + " = " + answer_words(q, model)});
      }
    }
  };
  for_each_index(runs.size(), [&](size_t k) { check_run(runs[k].first, runs[k].second); });
  // A scene that shows an earlier one's picture and asks the same again teaches nothing new.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i && !pictures[i].empty(); ++j)
      if (pictures[j] == pictures[i]) {
        found[i].push_back({indexed("scenes", i), 0,
                            "repeats " + indexed("scenes", j) +
                                ": the same request on the same banks, asked the same question; "
                                "say it in that scene's reveal, or show something new"});
        break;
      }
  std::vector<Diagnostic> out;
  for (std::vector<Diagnostic>& f : found) out.insert(out.end(), f.begin(), f.end());
  if (const int minutes = lesson_minutes(lesson); minutes > kMaxLessonMinutes)
    out.push_back({"scenes", 0,
                   "about " + std::to_string(minutes) +
                       " minutes (each scene's \"minutes\", else 4 "
                       "with a question and 2 without); a lesson fits a lecture's " +
                       std::to_string(kMaxLessonMinutes) + ": split it or drop scenes"});
  limit_diagnostics(out);
  return out;
}

}  // namespace bankviz
