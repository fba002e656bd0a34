// compare.cpp: before and after, the sweep and the seeds' experiments (compare.h).
//
// [SECTION] Before and after
// [SECTION] Sweep
// [SECTION] Experiments
#include "compare/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>

#include "bankviz/lesson.h"
#include "bankviz/svg.h"
#include "data_dir.h"
#include "recorded.h"  // side_figure_words
#include "shell/app_state.h"
#include "shell/options.h"

namespace bankviz::gui {

namespace {

std::string first_problem(const std::vector<Diagnostic>& errors) {
  return errors.empty() ? std::string("unknown problem") : errors.front().format();
}

// The measured figure a comparison and a sweep show: cycles per instruction over the exposed
// steps (the runner's own sum), beside the model's wavefronts per instruction over the same steps.
bool measured_ok(const std::optional<Measurement>& m) {
  return m && m->ok && m->cycles_per_instruction > 0;
}

}  // namespace

// [SECTION] Before and after

std::vector<CompareChoice> compare_choices(const std::string& preset,
                                           const std::vector<Preset>& presets,
                                           const Analysis* analysis) {
  std::vector<CompareChoice> out;
  // The preset's family: its variants ("X" -> "X-padded"), what it is a variant of ("X-padded"
  // -> "X") and its siblings ("transpose-naive" -> "transpose-padded", "transpose-swizzled").
  if (!preset.empty()) {
    const size_t dash = preset.rfind('-');
    const std::string stem = dash == std::string::npos ? "" : preset.substr(0, dash + 1);
    for (const Preset& p : presets)
      if (p.name != preset &&
          (p.name.starts_with(preset + '-') || preset.starts_with(p.name + '-') ||
           (!stem.empty() && p.name.starts_with(stem))))
        out.push_back({p.name, p.name, "", ""});
  }
  if (!analysis || analysis->scenario.tiles.empty()) return out;
  const TileDecl& t = analysis->scenario.tiles[0];
  out.push_back({"this scenario, padding +1", "", "pad", std::to_string(t.pad + 1)});
  if (t.pad > 0) out.push_back({"this scenario, no padding", "", "pad", "0"});
  // The swizzle that spreads a 32-word row over the banks (CuTe's Swizzle<5,0,5> on elements).
  out.push_back({"this scenario, Swizzle<5,0,5>", "", "swizzle", "5,0,5"});
  if (t.swizzle.bits != 0) out.push_back({"this scenario, no swizzle", "", "swizzle", "none"});
  out.push_back({"this scenario as float2", "", "elem", "float2"});
  out.push_back({"this scenario as float", "", "elem", "float"});
  return out;
}

bool open_compare(AppState& s, const Scenario& b, const std::string& name, std::string* error) {
  AnalysisResult r = analyze(b);
  if (!r.analysis) {
    *error = name + " does not analyze: " + first_problem(r.errors);
    return false;
  }
  CompareState& c = s.compare;
  c.open = true;
  c.b_name = name;
  c.b = b;
  c.b_analysis = std::move(r.analysis);
  ++c.b_version;
  c.measuring = CompareState::Measuring::Idle;
  c.measured_a.reset();
  c.measured_b.reset();
  c.measure_note.clear();
  c.measured_version = -1;
  // Open where the two sides differ most (the float/float2 pair's conflicting tap, not a step
  // where both are conflict-free), on A's worst warp there.
  if (s.analysis) {
    const int step = most_different_step(*s.analysis, *c.b_analysis);
    const int warp = step >= 0 ? scene_warp(*s.analysis, step) : -1;
    if (warp >= 0) seek(s, step, warp, 0);
  }
  update_compare(s);
  return true;
}

bool open_compare(AppState& s, const CompareChoice& choice, std::string* error) {
  if (!choice.preset.empty()) {
    auto it = std::find_if(s.presets.begin(), s.presets.end(),
                           [&](const Preset& p) { return p.name == choice.preset; });
    if (it == s.presets.end()) {
      *error = unknown_preset_message(s, choice.preset);
      return false;
    }
    ScenarioLoad l = load_scenario_file(it->path);
    if (!l.scenario) {
      *error = it->path + ": " + first_problem(l.errors);
      return false;
    }
    return open_compare(s, *l.scenario, choice.preset, error);
  }
  if (!s.analysis) {
    *error = "nothing to compare: the scenario does not analyze";
    return false;
  }
  ScenarioLoad l = apply_sweep_value(s.analysis->scenario, choice.param, choice.value);
  if (!l.scenario) {
    *error = choice.label + ": " + first_problem(l.errors);
    return false;
  }
  l.scenario->name = s.analysis->scenario.name + " (" + choice.param + "=" + choice.value + ")";
  return open_compare(s, *l.scenario, choice.label, error);
}

void close_compare(AppState& s) {
  // B's version keeps counting: the next B's cell grids and word map must never take this one's
  // cached cells for their own.
  const int version = s.compare.b_version;
  s.compare = CompareState{};
  s.compare.b_version = version;
}

bool measure_both(AppState& s, std::string* why) {
  CompareState& c = s.compare;
  if (!c.open || !s.analysis) {
    *why = "nothing to compare";
    return false;
  }
  if (s.measure.measurer.state() == Measurer::State::Unavailable) {
    *why = s.measure.measurer.reason();
    return false;
  }
  if (s.sweep.measuring) {
    *why = "the sweep is measuring: wait for it or cancel it";
    return false;
  }
  c.measured_a.reset();
  c.measured_b.reset();
  c.measure_note.clear();
  c.measuring = CompareState::Measuring::A;
  s.measure.measurer.request(s.analysis->scenario, true);  // the figures: the ratio needs no more
  return true;
}

void update_compare(AppState& s) {
  CompareState& c = s.compare;
  if (!c.open || !c.b_analysis) return;
  c.b_frame = follow_playhead(*c.b_analysis, s.frame, s.playback);
  c.b_cells = frame_cells(*c.b_analysis, c.b_frame);
  // Ask before telling: B's picture too, while a lesson's question is open.
  if (asking(s)) c.b_cells = conceal_answer(std::move(c.b_cells));
  // The GPU on stage: with a GPU, both sides are measured as soon as the comparison opens and
  // again after every edit of A (the ratio B / A follows the controls), one run at a time.
  if (c.measuring == CompareState::Measuring::Idle && c.measured_version != s.version &&
      s.analysis && s.measure.measurer.state() != Measurer::State::Unavailable &&
      !s.sweep.measuring) {
    std::string why;
    c.measured_version = s.version;
    measure_both(s, &why);
  }
  if (c.measuring == CompareState::Measuring::Idle) return;
  if (s.measure.measurer.state() == Measurer::State::Running) return;
  std::optional<Measurement> m = s.measure.measurer.last();
  if (!m || !m->ok) {
    c.measure_note = m ? m->error : s.measure.measurer.reason();
    c.measuring = CompareState::Measuring::Idle;
    return;
  }
  if (c.measuring == CompareState::Measuring::A) {
    c.measured_a = m;
    c.measuring = CompareState::Measuring::B;
    s.measure.measurer.request(c.b, true);
  } else {
    c.measured_b = m;
    c.measuring = CompareState::Measuring::Idle;
    if (s.analysis) s.measure.measurer.request(s.analysis->scenario);  // the panel shows A again
  }
}

std::string compare_slide_svg(const AppState& s, bool light, double width) {
  const CompareState& c = s.compare;
  CompareSlideOptions o;
  o.light = light;
  o.width = width;
  // A recorded figure says where and when it was measured (recorded.h side_figure_words).
  auto cycles = [](const Measurement& m) {
    return side_figure_words(m.cycles_per_instruction, m.device, m.recorded);
  };
  if (measured_ok(c.measured_a) && measured_ok(c.measured_b)) {
    o.measured_a = cycles(*c.measured_a);
    o.measured_b = cycles(*c.measured_b);
    o.measured_ratio =
        ratio_words(c.measured_b->cycles_per_instruction / c.measured_a->cycles_per_instruction);
  }
  // A lesson's caption is part of its exports.
  if (s.lesson.file && s.lesson.scene >= 0 &&
      s.lesson.scene < static_cast<int>(s.lesson.file->scenes.size()) && s.analysis)
    o.caption = scene_caption(s.lesson.file->scenes[static_cast<size_t>(s.lesson.scene)],
                              *s.analysis, s.lesson.step, s.lesson.revealed);
  // B's frame for A's playhead now (a --step given after --compare has moved A since).
  return render_compare_svg(*s.analysis, s.frame, *c.b_analysis,
                            follow_playhead(*c.b_analysis, s.frame, s.playback), o);
}

int setup_compare(AppState& s, const std::string& a, const std::string& b, std::string* error) {
  namespace fs = std::filesystem;
  auto is_file = [](const std::string& what) {
    std::error_code ec;
    return fs::exists(what, ec) || what.find('/') != std::string::npos || what.ends_with(".json");
  };
  // A: the app's scenario (so the controls, keys and timeline drive it).
  if (is_file(a)) {
    if (!load_draft_file(s, a, a, error)) return kExitFailed;
  } else {
    if (!has_preset(s, a)) {
      select_preset(s, a, error);  // the message lists the presets
      return kExitUsage;
    }
    if (!select_preset(s, a, error)) return kExitFailed;
  }
  s.analyzer.wait(1e9);
  poll_analysis(s);
  // A opens on the step it is about (its open_step, else its worst step: lesson.h).
  if (s.analysis)
    if (const int open = opening_step(*s.analysis); open >= 0)
      for (int w = 0; w < s.analysis->warp_count(); ++w)
        if (seek(s, open, w, 0)) break;
  update_frame(s, 0);
  // B: a preset or a file, read like the app's own (core/io.h through load_scenario_file).
  ScenarioLoad l;
  if (is_file(b)) {
    l = load_scenario_file(b);
  } else {
    if (!has_preset(s, b)) {
      *error = "--compare: " + unknown_preset_message(s, b);
      return kExitUsage;
    }
    l = load_scenario_file(assets_dir() + "/presets/" + b + ".json");
  }
  if (!l.scenario) {
    *error = b + ": " + first_problem(l.errors);
    return kExitFailed;
  }
  return open_compare(s, *l.scenario, b, error) ? kExitOk : kExitFailed;
}

// [SECTION] Sweep

Log2Axis log2_axis(double lo, double hi) {
  // Exponents kept within doubles' exact powers of two that a plot can use.
  auto exponent = [](double v, bool up) {
    if (!(v > 0) || !std::isfinite(v)) return 0;
    const double e = up ? std::ceil(std::log2(v) - 1e-9) : std::floor(std::log2(v) + 1e-9);
    return static_cast<int>(std::clamp(e, -30.0, 30.0));
  };
  Log2Axis a;
  const int b = exponent(lo > 0 ? lo : 1, false);
  const int t = std::max(b + 1, exponent(std::max(hi, lo), true));
  a.bottom = std::ldexp(1.0, b);
  a.top = std::ldexp(1.0, t);
  for (int e = b; e <= t; ++e) a.ticks.push_back(std::ldexp(1.0, e));
  return a;
}

double Log2Axis::fraction(double v) const {
  if (!(v > bottom)) return 0;
  return std::clamp(std::log2(v / bottom) / std::log2(top / bottom), 0.0, 1.0);
}

std::string log2_tick_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool run_sweep(AppState& s) {
  SweepState& w = s.sweep;
  cancel_sweep_measure(s.sweep);
  w.points.clear();
  w.cycles.clear();
  w.notes.clear();
  const SweepParse p = parse_sweep(std::string(kSweepParams[w.param]) + '=' + std::string(w.range));
  if (!p.spec) {
    w.error = p.error;
    return false;
  }
  if (!s.analysis) {
    w.error = "nothing to sweep: the scenario does not analyze";
    return false;
  }
  w.error.clear();
  w.base = s.analysis->scenario;
  w.scenario = w.base.name;
  const auto t0 = std::chrono::steady_clock::now();
  w.points = sweep(w.base, *p.spec);
  w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  w.version = s.version;
  w.cycles.assign(w.points.size(), std::nullopt);
  w.notes.assign(w.points.size(), "");
  return true;
}

bool open_sweep(AppState& s, const std::string& spec, std::string* error) {
  const SweepParse p = parse_sweep(spec);
  if (!p.spec) {
    *error = "--sweep " + p.error;
    return false;
  }
  SweepState& w = s.sweep;
  for (int i = 0; i < static_cast<int>(std::size(kSweepParams)); ++i)
    if (p.spec->param == kSweepParams[i]) w.param = i;
  const std::string values = spec.substr(spec.find('=') + 1);
  if (values.size() >= sizeof w.range) {
    *error =
        "--sweep: the values are longer than " + std::to_string(sizeof w.range - 1) + " characters";
    return false;
  }
  std::snprintf(w.range, sizeof w.range, "%s", values.c_str());
  w.open = true;
  if (!run_sweep(s)) {
    *error = "--sweep " + w.error;
    return false;
  }
  return true;
}

bool start_sweep_measure(AppState& s, std::string* why) {
  SweepState& w = s.sweep;
  if (w.points.empty()) {
    *why = "no sweep to measure";
    return false;
  }
  if (s.measure.measurer.state() == Measurer::State::Unavailable) {
    *why = s.measure.measurer.reason();
    return false;
  }
  if (s.compare.measuring != CompareState::Measuring::Idle) {
    *why = "the comparison is measuring: wait for it";
    return false;
  }
  w.cycles.assign(w.points.size(), std::nullopt);
  w.notes.assign(w.points.size(), "");
  w.measure_note.clear();
  w.measuring = true;
  w.next = 0;
  // The first valid point.
  while (w.next < w.points.size() && !w.points[w.next].summary) ++w.next;
  if (w.next == w.points.size()) {
    w.measuring = false;
    *why = "no valid value to measure";
    return false;
  }
  ScenarioLoad l = apply_sweep_value(w.base, kSweepParams[w.param], w.points[w.next].value);
  if (!l.scenario) {
    w.measuring = false;
    *why = first_problem(l.errors);
    return false;
  }
  s.measure.measurer.request(*l.scenario, true);  // a point's figure
  return true;
}

void cancel_sweep_measure(SweepState& w) {
  if (!w.measuring) return;
  w.measuring = false;
  w.measure_note = "cancelled";
}

void update_sweep(AppState& s) {
  SweepState& w = s.sweep;
  if (w.open && !w.measuring && !w.points.empty() && w.version != s.version &&
      w.seconds < kSweepAgainSeconds)
    run_sweep(s);
  if (!w.measuring || s.measure.measurer.state() == Measurer::State::Running) return;
  std::optional<Measurement> m = s.measure.measurer.last();
  if (!m) {
    w.measuring = false;
    w.measure_note = s.measure.measurer.reason();
    return;
  }
  if (measured_ok(m)) {
    w.cycles[w.next] = m->cycles_per_instruction;
  } else {
    w.notes[w.next] = m->error.empty() ? "not measured" : m->error;
    if (s.measure.measurer.state() == Measurer::State::Unavailable) {
      w.measuring = false;
      w.measure_note = w.notes[w.next];
      return;
    }
  }
  // The next valid point, or done (the panel shows A's measurement again).
  for (++w.next; w.next < w.points.size(); ++w.next) {
    if (!w.points[w.next].summary) continue;
    ScenarioLoad l = apply_sweep_value(w.base, kSweepParams[w.param], w.points[w.next].value);
    if (!l.scenario) continue;
    s.measure.measurer.request(*l.scenario, true);
    return;
  }
  w.measuring = false;
  if (s.analysis) s.measure.measurer.request(s.analysis->scenario);
}

// [SECTION] Experiments

namespace {

// The scenarios an experiment runs in written mode: the data-layout kernels as launched (the
// presets bankviz-cli experiments runs too).
std::vector<Scenario> experiment_scenarios(const Experiment& e) {
  std::vector<Scenario> out;
  if (e.name != "data-layout-row-vs-column") return out;
  for (const char* p : {"column-write-column-read", "row-write-row-read"}) {
    ScenarioLoad l = load_scenario_file(assets_dir() + "/presets/" + p + ".json");
    if (l.scenario) out.push_back(*l.scenario);
  }
  return out;
}

}  // namespace

ExperimentsState::ExperimentsState()
    : job(
          [](const int& i) {
            const Experiment e = experiments()[static_cast<size_t>(i)];
            return run_experiment(e, 10, experiment_scenarios(e));
          },
          [](const std::string& why) {
            ExperimentRun r;
            r.status = RunStatus::LaunchError;
            r.message = "the run failed: " + why;
            return r;
          }) {}

bool start_experiment(ExperimentsState& x, int i, std::string* why) {
  const std::vector<Experiment>& all = experiments();
  if (i < 0 || i >= static_cast<int>(all.size())) {
    *why = "no such experiment";
    return false;
  }
  if (x.running >= 0) {
    *why = "another experiment is running";
    return false;
  }
  x.results.resize(all.size());
  x.results[static_cast<size_t>(i)].reset();
  x.running = i;
  x.job.request(i);
  return true;
}

void update_experiments(ExperimentsState& x) {
  if (x.running < 0) return;
  auto done = x.job.take();
  if (!done) return;
  x.results.resize(experiments().size());
  x.results[static_cast<size_t>(x.running)] = std::move(done->result);
  x.running = -1;
}

}  // namespace bankviz::gui
