// app_state.cpp: loading presets, re-analyzing edits, advancing the animation.
#include "shell/app_state.h"

#include <algorithm>
#include <filesystem>

#include "bankviz/lesson.h"
#include "catalog.h"
#include "data_dir.h"
#include "imgui.h"

namespace bankviz::gui {

void set_notice(AppState& s, std::string text, double now, double seconds, Notice kind) {
  s.status.text = std::move(text);
  s.status.kind = kind;
  s.status.until = now + seconds;
}

void report_export(AppState& s, bool ok, const std::string& saved, const std::string& error,
                   double now) {
  if (ok) {
    set_notice(s, "saved " + saved, now);
  } else {
    set_notice(s, error, now, 10, Notice::Error);
  }
}

void load_presets(AppState& s, const std::string& dir) {
  namespace fs = std::filesystem;
  s.presets.clear();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    Preset p;
    p.name = entry.path().stem().string();
    p.path = entry.path().string();
    s.presets.push_back(std::move(p));
  }
  std::sort(s.presets.begin(), s.presets.end(),
            [](const Preset& a, const Preset& b) { return a.name < b.name; });
}

bool has_preset(const AppState& s, const std::string& name) {
  return std::any_of(s.presets.begin(), s.presets.end(),
                     [&](const Preset& p) { return p.name == name; });
}

const std::string& preset_title(const Preset& p) {
  if (!p.title) {
    ScenarioLoad load = load_scenario_file(p.path);
    p.title = load.scenario && !load.scenario->title.empty() ? load.scenario->title : p.name;
  }
  return *p.title;
}

std::string unknown_preset_message(const AppState& s, const std::string& name) {
  std::vector<std::string> names;
  names.reserve(s.presets.size());
  for (const Preset& p : s.presets) names.push_back(p.name);
  return unknown_name_message("presets", name, names);
}

bool select_preset(AppState& s, const std::string& name, std::string* error, bool wait) {
  auto it = std::find_if(s.presets.begin(), s.presets.end(),
                         [&](const Preset& p) { return p.name == name; });
  if (it == s.presets.end()) {
    *error = unknown_preset_message(s, name);
    return false;
  }
  // The playhead is placed by the analysis (open_pending: the preset's open_step, else its worst
  // step), not reset here: a reset after a waited-for load put every preset back on step 0.
  if (!load_draft_file(s, it->path, "preset " + it->path, error, wait)) return false;
  s.preset = name;
  s.edit.loaded_preset = name;
  return true;
}

bool load_draft_file(AppState& s, const std::string& path, const std::string& what,
                     std::string* error, bool wait) {
  return load_draft(s, load_scenario_file(path), what, error, wait);
}

bool load_draft(AppState& s, ScenarioLoad load, const std::string& what, std::string* error,
                bool wait) {
  if (!load.scenario) {
    *error = what + ":";
    for (const Diagnostic& d : load.errors) *error += "\n  " + d.format();
    return false;
  }
  s.open_pending = true;
  set_draft(s, *load.scenario, wait);
  mark_loaded(s);
  s.edit.loaded_preset.clear();  // select_preset names it
  if (wait && !s.errors.empty()) {
    *error = what + " does not analyze:";
    for (const Diagnostic& d : s.errors) *error += "\n  " + d.format();
    return false;
  }
  return true;
}

void set_draft(AppState& s, const Scenario& draft, bool wait) {
  // Undoable: a fix applied by the advisor, and a preset, file or scene opened over the draft on
  // screen (so that opening one by mistake does not lose unsaved edits). Nothing before the
  // first analysis (start-up) is worth going back to.
  if (s.analysis) s.edit.history.record(s.draft);
  s.draft = draft;
  s.edit.unsaved = scenario_to_json(s.draft) != s.edit.clean_json;
  reanalyze(s, wait);
}

void reanalyze(AppState& s, bool wait) {
  if (wait) {
    s.analyzer.run_here(s.draft);  // no worker to wait for (latest_job.h: the browser's start-up)
  } else {
    s.analyzer.request(s.draft);
    s.analyzer.wait(kEditWaitSeconds);
  }
  update_frame(s, 0);
}

namespace {

// The description on screen follows the analysed scenario: the loaded one's own while it makes
// the same accesses, else written from its Analysis (edit.h draft_description).
void refresh_description(AppState& s) {
  if (!s.analysis) return;
  s.scenario.description = draft_description(s.edit.loaded, s.scenario, &*s.analysis);
  s.analysis->scenario.description = s.scenario.description;
}

// The first warp that executes executed step `step` (its time), or -1.
double first_beat_of(const AppState& s, int step, int wavefront) {
  for (int w = 0; w < s.analysis->warp_count(); ++w)
    if (double t = time_of(*s.analysis, s.playback, step, w, wavefront); t >= 0) return t;
  return -1;
}

// After an edit: the same step, warp and wavefront if they still exist, else the same step's
// first beat of that warp, else of any warp; else the time stays (clamped by frame_at).
void keep_place(AppState& s, const Frame& before) {
  if (before.step < 0) return;
  for (double t : {time_of(*s.analysis, s.playback, before.step, before.warp, before.wavefront),
                   time_of(*s.analysis, s.playback, before.step, before.warp, 0),
                   first_beat_of(s, before.step, 0)}) {
    if (t >= 0) {
      s.t = t;
      return;
    }
  }
}

}  // namespace

bool poll_analysis(AppState& s) {
  std::optional<AnalysisOutcome> o = s.analyzer.take();
  if (!o) return false;
  if (o->analysis) {
    const Frame before = s.frame;  // the place on screen before this analysis
    const bool had_analysis = s.analysis.has_value();
    s.scenario = std::move(o->scenario);
    s.analysis = std::move(o->analysis);
    refresh_description(s);
    s.errors.clear();
    ++s.version;
    s.measure.measurer.request(s.scenario);
    if (s.open_pending) {
      s.open_pending = false;
      // A lesson's scene opens on its step; a preset on its own open_step, else its worst step
      // (lesson.h). The scene's answer is the model's, for the analysis on screen.
      const bool in_scene = s.lesson.file && s.lesson.scene >= 0;
      const int open = in_scene ? scene_step(*s.analysis, s.lesson.file->scenes[s.lesson.scene])
                                : opening_step(*s.analysis);
      if (in_scene && s.lesson.file->scenes[s.lesson.scene].question)
        s.lesson.answer = model_answer(
            *s.analysis, s.lesson.file->scenes[s.lesson.scene].question->quantity, open);
      // A scene shows the warp its question is about (the worst of the step: scene_warp).
      const int warp = in_scene ? scene_warp(*s.analysis, open) : -1;
      s.lesson.step = in_scene ? open : -1;
      s.lesson.warp = warp;
      double t = warp >= 0 ? time_of(*s.analysis, s.playback, open, warp, 0) : -1;
      if (t < 0 && open >= 0) t = first_beat_of(s, open, 0);
      s.t = t >= 0 ? t : 0;
    } else if (had_analysis) {
      keep_place(s, before);
    }
  } else if (!o->failure.empty()) {
    // An exception (out of memory, ...): the last good analysis stays on screen.
    s.errors = {Diagnostic{"", 0, o->failure}};
    set_notice(s, o->failure, ImGui::GetCurrentContext() ? ImGui::GetTime() : 0, 10, Notice::Error);
  } else {
    s.errors = std::move(o->errors);
  }
  return true;
}

bool analysis_stale(const AppState& s) {
  return s.analyzer.busy();
}

namespace {

// The beats of a revealed question's answer: the asked warp's wavefronts of the asked step
// (first, n). False when no answer is revealed or it has no beats.
bool answer_beats(const AppState& s, int* first, int* n) {
  if (!s.analysis || !s.lesson.file || !s.lesson.revealed || s.lesson.step < 0 || s.lesson.warp < 0)
    return false;
  const double t0 = time_of(*s.analysis, s.playback, s.lesson.step, s.lesson.warp, 0);
  if (t0 < 0) return false;
  const Frame f = frame_at(*s.analysis, t0, s.playback);
  *first = f.beat;
  *n = f.wavefronts;
  return f.beat >= 0 && f.wavefronts > 0;
}

// The reveal stays on the answer: playing on from the asked warp's wavefronts goes back to
// their first (with loop; else it stops on the last), never on into another warp or step that
// would contradict the answer under it. A beat the presenter moved to by hand is not held.
void advance_time(AppState& s, double dt) {
  int first = 0, n = 0;
  const bool held = s.analysis && answer_beats(s, &first, &n);
  const int before = held ? frame_at(*s.analysis, s.t, s.playback).beat : -1;
  s.t += dt;
  if (!held || before < first || before >= first + n) return;
  const int now = frame_at(*s.analysis, s.t, s.playback).beat;
  if (now >= first && now < first + n) return;
  if (s.playback.loop) {
    s.t = beat_time(first, s.playback);
  } else {
    s.t = beat_time(first + n - 1, s.playback);
    s.playing = false;
  }
}

}  // namespace

void update_frame(AppState& s, double dt) {
  poll_analysis(s);
  s.playback.speed = s.settings.speed;
  s.playback.loop = s.settings.loop;
  // Ask before telling: the beats would count the asked warp's wavefronts aloud.
  if (asking(s)) s.playing = false;
  if (s.playing) advance_time(s, dt);
  if (!s.analysis) {
    s.frame = {};
    s.cells = {};
    return;
  }
  s.frame = frame_at(*s.analysis, s.t, s.playback);
  if (s.frame.finished) s.playing = false;
  s.cells = frame_cells(*s.analysis, s.frame);
  // Ask before telling: while the scene's question is open the picture shows the request whole,
  // with nothing counted or judged (frame.h conceal_answer).
  if (asking(s)) s.cells = conceal_answer(std::move(s.cells));
}

bool asking(const AppState& s) {
  return s.lesson.file && s.lesson.scene >= 0 &&
         s.lesson.scene < static_cast<int>(s.lesson.file->scenes.size()) &&
         s.lesson.file->scenes[static_cast<size_t>(s.lesson.scene)].question && !s.lesson.revealed;
}

void reveal_answer(AppState& s) {
  if (s.lesson.revealed) return;
  s.lesson.revealed = true;
  // The reveal plays the answer: the asked warp's wavefronts, one beat each, from the first.
  if (s.analysis && s.lesson.step >= 0 && s.lesson.warp >= 0 &&
      seek(s, s.lesson.step, s.lesson.warp, 0)) {
    s.playing = true;
  }
  update_frame(s, 0);
}

bool seek(AppState& s, int step, int warp, int wavefront) {
  if (!s.analysis) return false;
  double t = time_of(*s.analysis, s.playback, step, warp, wavefront);
  if (t < 0) return false;
  s.t = t;
  update_frame(s, 0);
  return true;
}

void clicker(AppState& s, int dir) {
  if (s.lesson.file && s.lesson.scene >= 0) {
    const Scene& scene = s.lesson.file->scenes[s.lesson.scene];
    const double now = ImGui::GetCurrentContext() ? ImGui::GetTime() : 0;
    std::string err;
    if (dir > 0 && scene.question && !s.lesson.revealed) {
      reveal_answer(s);
    } else if (dir > 0 && s.lesson.scene + 1 < static_cast<int>(s.lesson.file->scenes.size())) {
      if (!go_to_scene(s, s.lesson.scene + 1, &err, false))
        set_notice(s, err, now, 10, Notice::Error);
    } else if (dir < 0 && s.lesson.scene > 0) {
      if (!go_to_scene(s, s.lesson.scene - 1, &err, false))
        set_notice(s, err, now, 10, Notice::Error);
    }
    return;
  }
  if (!s.analysis) return;
  s.playing = false;
  s.t = step_time(*s.analysis, s.t, s.playback, StepUnit::Step, dir);
  update_frame(s, 0);
}

bool open_lesson(AppState& s, const std::string& path, const std::string& presets_dir, int first,
                 std::string* error) {
  LessonLoad load = load_lesson_file(path);
  std::vector<Diagnostic> errors = load.errors;
  if (load.lesson) errors = check_lesson(*load.lesson, presets_dir);
  if (!errors.empty()) {
    *error = "lesson " + path + ":";
    for (const Diagnostic& d : errors) *error += "\n  " + d.format();
    return false;
  }
  if (first < 0 || first >= static_cast<int>(load.lesson->scenes.size())) {
    *error = "lesson " + path + " has " + std::to_string(load.lesson->scenes.size()) +
             " scenes; there is no scene " + std::to_string(first + 1);
    return false;
  }
  s.lesson.file = std::move(load.lesson);
  s.lesson.presets_dir = presets_dir;
  return go_to_scene(s, first, error);
}

int remembered_scene(const Settings& settings, const std::string& name, size_t scenes) {
  const auto it = settings.lesson_places.find(name);
  if (it == settings.lesson_places.end() || it->second < 1 ||
      static_cast<size_t>(it->second) > scenes)
    return 0;
  return it->second - 1;
}

bool open_catalog_lesson(AppState& s, const std::string& name, int first, std::string* error) {
  const std::string path = catalog_path("lessons", name, error);
  if (path.empty()) return false;
  if (first < 0) {
    const LessonLoad l = load_lesson_file(path);
    first = l.lesson ? remembered_scene(s.settings, name, l.lesson->scenes.size()) : 0;
  }
  // The lesson replaced (if open_lesson fails) stays as it was, catalog name and all.
  const std::string before = s.lesson.catalog;
  s.lesson.catalog = name;
  if (open_lesson(s, path, assets_dir() + "/presets", first, error)) return true;
  s.lesson.catalog = before;
  return false;
}

const std::vector<LessonEntry>& lesson_catalog(AppState& s) {
  if (s.lessons) return *s.lessons;
  s.lessons.emplace();
  for (const std::string& name : catalog_names("lessons")) {
    LessonEntry e;
    e.name = name;
    std::string why;
    const LessonLoad l = load_lesson_file(catalog_path("lessons", name, &why));
    if (l.lesson) {
      e.ok = true;
      e.title = l.lesson->title;
      for (const Scene& sc : l.lesson->scenes)
        e.scenes.push_back(!sc.title.empty() ? sc.title : sc.preset);
    } else {
      e.title = "does not load: " + (l.errors.empty() ? why : l.errors.front().format());
    }
    s.lessons->push_back(std::move(e));
  }
  return *s.lessons;
}

bool open_first_view(AppState& s, std::string* error) {
  // The lesson the settings name (a first start: the default lesson) where the room left it.
  if (!s.settings.lesson.empty()) {
    std::string err;
    if (open_catalog_lesson(s, s.settings.lesson, -1, &err)) return true;
    set_notice(s, "lesson '" + s.settings.lesson + "': " + err, 0, 10, Notice::Error);
    close_lesson(s);
  }
  // Left for a preset when last closed (settings: lesson ""): that preset.
  const std::string name = !s.settings.preset.empty() ? s.settings.preset : "row-write-column-read";
  std::string err;
  if (select_preset(s, name, &err)) return true;
  // A stale preset in the settings: say so and fall back to the first preset.
  set_notice(s, err, 0, 10, Notice::Error);
  if (s.presets.empty() || !select_preset(s, s.presets.front().name, &err)) {
    *error = "no usable preset in " + assets_dir() + "/presets: " + err;
    return false;
  }
  return true;
}

void keep_place(AppState& s) {
  if (!s.preset.empty()) s.settings.preset = s.preset;
  s.settings.lesson = s.lesson.file ? s.lesson.catalog : "";
}

void close_lesson(AppState& s) {
  s.lesson = LessonState{};
  s.settings.lesson.clear();
}

bool choose_preset(AppState& s, const std::string& name, std::string* error, bool wait) {
  if (!select_preset(s, name, error, wait)) return false;
  close_lesson(s);
  s.settings.preset = name;
  return true;
}

bool go_to_scene(AppState& s, int i, std::string* error, bool wait) {
  const Scene& scene = s.lesson.file->scenes[i];
  ScenarioLoad load = scene_scenario(scene, s.lesson.presets_dir);
  if (!load.scenario) {
    *error = "scene " + std::to_string(i + 1) + ":";
    for (const Diagnostic& d : load.errors) *error += "\n  " + d.format();
    return false;
  }
  s.lesson.scene = i;
  s.lesson.revealed = false;
  s.lesson.answer = 0;
  s.lesson.step = s.lesson.warp = -1;
  s.preset = scene.preset;
  s.playing = false;
  s.open_pending = true;
  set_draft(s, *load.scenario, wait);
  mark_loaded(s);
  // A lesson moves by its clicker: undo stays within a scene's edits (an undo into the previous
  // scene's scenario would sit under this scene's caption).
  s.edit.history.clear();
  s.edit.loaded_preset = scene.preset;
  // The place in a catalog lesson: the next start and the Lessons menu take it up here.
  if (const std::string& name = s.lesson.catalog; !name.empty()) {
    s.settings.lesson = name;
    if (s.settings.lesson_places.size() < kMaxLessonPlaces || s.settings.lesson_places.count(name))
      s.settings.lesson_places[name] = i + 1;
  }
  return true;
}

const Diagnostic* error_for(const std::vector<Diagnostic>& errors, const std::string& prefix) {
  for (const Diagnostic& d : errors)
    if (d.path.rfind(prefix, 0) == 0 &&
        (d.path.size() == prefix.size() || d.path[prefix.size()] == '.' ||
         d.path[prefix.size()] == '['))
      return &d;
  return nullptr;
}

// [SECTION] editing

namespace {

void after_change(AppState& s) {
  const std::string json = scenario_to_json(s.draft);
  s.edit.unsaved = json != s.edit.clean_json;
  // Undone back to the preset as loaded: the toolbar names it again instead of "(edited)".
  s.preset = json == scenario_to_json(s.edit.loaded) ? s.edit.loaded_preset : std::string();
  if (s.edit.step >= static_cast<int>(s.draft.steps.size()))
    s.edit.step = static_cast<int>(s.draft.steps.size()) - 1;
  reanalyze(s);
}

}  // namespace

void apply_edit(AppState& s, const Scenario& before, std::string_view field) {
  s.edit.history.record(before, field);
  after_change(s);
}

bool undo_edit(AppState& s) {
  std::optional<Scenario> back = s.edit.history.undo(s.draft);
  if (!back) return false;
  s.draft = std::move(*back);
  after_change(s);
  return true;
}

bool redo_edit(AppState& s) {
  std::optional<Scenario> next = s.edit.history.redo(s.draft);
  if (!next) return false;
  s.draft = std::move(*next);
  after_change(s);
  return true;
}

void reset_draft(AppState& s) {
  s.edit.history.record(s.draft);
  s.draft = s.edit.loaded;
  after_change(s);
}

void mark_loaded(AppState& s) {
  s.edit.history.end_field();
  s.edit.loaded = s.draft;
  refresh_description(s);  // the analysis arrived before this was the loaded scenario
  s.edit.clean_json = scenario_to_json(s.draft);
  s.edit.unsaved = false;
  s.edit.saved_path.clear();
  s.edit.step = -1;
}

SaveResult save_draft(AppState& s, const std::string& path, bool force, double now) {
  // Never a stale description: the loaded one's while the draft makes the same accesses, else
  // written from the draft's analysis (the one on screen when it is the draft's, which it is
  // unless an edit's analysis is still running).
  const Analysis* a = nullptr;
  std::optional<Analysis> fresh;
  if (s.analysis && same_model(s.analysis->scenario, s.draft)) {
    a = &*s.analysis;
  } else if (!same_model(s.edit.loaded, s.draft)) {
    try {
      fresh = std::move(analyze(s.draft).analysis);
    } catch (...) {
      // Out of memory while analyzing: saved as "does not analyze", the save itself goes on.
    }
    if (fresh) a = &*fresh;
  }
  s.draft.description = draft_description(s.edit.loaded, s.draft, a);
  SaveResult r = save_scenario(s.draft, path, force);
  if (r.status == SaveResult::Saved) {
    s.edit.clean_json = scenario_to_json(s.draft);
    s.edit.unsaved = false;
    s.edit.saved_path = r.path;
    set_notice(s, "saved " + r.path, now);
  } else if (r.status == SaveResult::Failed) {
    set_notice(s, r.error, now, 10, Notice::Error);
  }
  return r;
}

}  // namespace bankviz::gui
