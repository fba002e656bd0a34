// app_state.cpp: loading presets, re-analyzing edits, advancing the animation.
#include "app_state.h"

#include <algorithm>
#include <filesystem>

#include "imgui.h"

namespace bankviz::gui {

void set_notice(AppState& s, std::string text, double now, double seconds, Notice kind) {
  s.notice = std::move(text);
  s.notice_kind = kind;
  s.notice_until = now + seconds;
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
    ScenarioLoad load = load_scenario_file(p.path);
    p.title = load.scenario && !load.scenario->title.empty() ? load.scenario->title : p.name;
    s.presets.push_back(p);
  }
  std::sort(s.presets.begin(), s.presets.end(),
            [](const Preset& a, const Preset& b) { return a.name < b.name; });
}

bool has_preset(const AppState& s, const std::string& name) {
  return std::any_of(s.presets.begin(), s.presets.end(),
                     [&](const Preset& p) { return p.name == name; });
}

bool select_preset(AppState& s, const std::string& name, std::string* error, bool wait) {
  auto it = std::find_if(s.presets.begin(), s.presets.end(),
                         [&](const Preset& p) { return p.name == name; });
  if (it == s.presets.end()) {
    std::string names;
    for (const Preset& p : s.presets) names += (names.empty() ? "" : ", ") + p.name;
    *error = "unknown preset '" + name + "'" +
             (names.empty() ? " (no presets found)" : "; presets: " + names);
    return false;
  }
  if (!load_draft_file(s, it->path, "preset " + it->path, error, wait)) return false;
  s.preset = name;
  s.t = 0;
  return true;
}

bool load_draft_file(AppState& s, const std::string& path, const std::string& what,
                     std::string* error, bool wait) {
  ScenarioLoad load = load_scenario_file(path);
  if (!load.scenario) {
    *error = what + ":";
    for (const Diagnostic& d : load.errors) *error += "\n  " + d.format();
    return false;
  }
  s.open_pending = true;
  set_draft(s, *load.scenario, wait);
  if (wait && !s.errors.empty()) {
    *error = what + " does not analyze:";
    for (const Diagnostic& d : s.errors) *error += "\n  " + d.format();
    return false;
  }
  return true;
}

void set_draft(AppState& s, const Scenario& draft, bool wait) {
  s.draft = draft;
  reanalyze(s, wait);
}

void reanalyze(AppState& s, bool wait) {
  s.analyzer.request(s.draft);
  s.analyzer.wait(wait ? 1e9 : kEditWaitSeconds);
  update_frame(s, 0);
}

namespace {

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
    s.errors.clear();
    ++s.version;
    s.measurer.request(s.scenario);
    if (s.open_pending) {
      s.open_pending = false;
      const int worst = s.analysis->worst_step();
      const double t = worst >= 0 ? first_beat_of(s, worst, 0) : -1;
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

void update_frame(AppState& s, double dt) {
  poll_analysis(s);
  s.playback.speed = s.settings.speed;
  s.playback.loop = s.settings.loop;
  if (s.playing) s.t += dt;
  if (!s.analysis) {
    s.frame = {};
    s.cells = {};
    return;
  }
  s.frame = frame_at(*s.analysis, s.t, s.playback);
  if (s.frame.finished) s.playing = false;
  s.cells = frame_cells(*s.analysis, s.frame);
}

bool seek(AppState& s, int step, int warp, int wavefront) {
  if (!s.analysis) return false;
  double t = time_of(*s.analysis, s.playback, step, warp, wavefront);
  if (t < 0) return false;
  s.t = t;
  update_frame(s, 0);
  return true;
}

const Diagnostic* error_for(const AppState& s, const std::string& prefix) {
  for (const Diagnostic& d : s.errors)
    if (d.path.rfind(prefix, 0) == 0) return &d;
  return nullptr;
}

}  // namespace bankviz::gui
