// compare.cpp: summaries, comparisons and sweeps (compare.h).
#include "bankviz/compare.h"
#include "bankviz/pasted.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "workers.h"

namespace bankviz {

Summary summarize(const Analysis& a) {
  return summarize(a.scenario, a.steps, a.step_figures(), a.hazards.racing_accesses,
                   a.out_of_bounds);
}

Summary summarize(const Scenario& scenario, const std::vector<StepInfo>& steps,
                  const std::vector<StepFigures>& figures, int64_t racing_accesses,
                  int64_t out_of_bounds) {
  Summary s;
  s.name = scenario.name;
  s.title = scenario.title;
  for (const StepFigures& f : figures) {
    s.total_wavefronts += f.wavefronts;
    s.total_ideal += f.ideal;
  }
  s.worst_step = worst_step(steps, figures);
  if (s.worst_step >= 0) {
    const size_t w = static_cast<size_t>(s.worst_step);
    const StepFigures f = w < figures.size() ? figures[w] : StepFigures{};
    s.worst_label = steps[w].label;
    s.worst_wavefronts = f.wavefronts;
    s.worst_instructions = f.instructions;
    s.worst_per_request = f.per_request();
  }
  s.racing_accesses = racing_accesses;
  s.out_of_bounds = out_of_bounds;
  return s;
}

namespace {
double ratio(double b, double a) {
  return a > 0 ? b / a : 0;
}
}  // namespace

Comparison compare(const Analysis& a, const Analysis& b) {
  Comparison c;
  c.a = summarize(a);
  c.b = summarize(b);
  c.total_ratio = ratio(c.b.total_wavefronts, c.a.total_wavefronts);
  c.per_request_ratio = ratio(c.b.worst_per_request, c.a.worst_per_request);
  return c;
}

int most_different_step(const Analysis& a, const Analysis& b) {
  auto worst = [](const Analysis& x, size_t i) {
    int n = 0;
    if (i < x.warps.size())
      for (const WarpStep& w : x.warps[i]) n = std::max(n, w.result.wavefronts);
    return n;
  };
  int best = -1;
  double best_ratio = 1.0;
  int best_diff = 0;
  const size_t n = std::min(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.steps[i].kind == StepKind::Sync) continue;
    const int x = worst(a, i), y = worst(b, i);
    if (x <= 0 || y <= 0 || x == y) continue;
    const double ratio = static_cast<double>(std::max(x, y)) / std::min(x, y);
    const int diff = std::abs(x - y);
    if (ratio > best_ratio || (ratio == best_ratio && diff > best_diff)) {
      best = static_cast<int>(i);
      best_ratio = ratio;
      best_diff = diff;
    }
  }
  return best >= 0 ? best : a.worst_step();
}

// [SECTION] Sweep

namespace {

std::string trim(std::string_view t) {
  const size_t a = t.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  return std::string(t.substr(a, t.find_last_not_of(" \t") - a + 1));
}

std::optional<int64_t> to_int(std::string_view t) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::vector<std::string> split(std::string_view t, char sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == sep) {
      out.push_back(trim(t.substr(from, i - from)));
      from = i + 1;
    }
  }
  return out;
}

bool is_integer_param(const std::string& p) {
  return p == "pad" || p == "rows" || p == "cols";
}

}  // namespace

SweepParse parse_sweep(const std::string& text) {
  SweepParse r;
  const size_t eq = text.find('=');
  if (eq == std::string::npos) {
    r.error = "'" + text + "': expected PARAM=VALUES, e.g. pad=0..32 or elem=int,float2";
    return r;
  }
  SweepSpec spec;
  spec.param = trim(std::string_view(text).substr(0, eq));
  const std::string values = trim(std::string_view(text).substr(eq + 1));
  if (std::find(std::begin(kSweepParams), std::end(kSweepParams), spec.param) ==
      std::end(kSweepParams)) {
    std::string list;
    for (const char* p : kSweepParams) list += (list.empty() ? "" : ", ") + std::string(p);
    r.error = "unknown parameter '" + spec.param + "' (" + list + ")";
    return r;
  }
  if (values.empty()) {
    r.error = spec.param + ": no values";
    return r;
  }
  if (is_integer_param(spec.param)) {
    // A..B (inclusive) or a list A,B,C.
    if (const size_t dots = values.find(".."); dots != std::string::npos) {
      const auto from = to_int(trim(std::string_view(values).substr(0, dots)));
      const auto to = to_int(trim(std::string_view(values).substr(dots + 2)));
      if (!from || !to) {
        r.error = spec.param + "=" + values + ": expected integers A..B";
        return r;
      }
      if (*to < *from) {
        r.error = spec.param + "=" + values + ": the range is empty (B < A)";
        return r;
      }
      if (static_cast<__int128>(*to) - *from >= static_cast<__int128>(kMaxSweepValues)) {
        r.error = spec.param + "=" + values + ": " + "at most " + std::to_string(kMaxSweepValues) +
                  " values";
        return r;
      }
      for (int64_t v = *from; v <= *to; ++v) spec.values.push_back(std::to_string(v));
    } else {
      for (const std::string& v : split(values, ',')) {
        if (!to_int(v)) {
          const std::string pasted = non_ascii_hint(v);
          r.error = spec.param + ": '" + v + "' is not an integer" +
                    (pasted.empty() ? "" : ": it holds " + pasted);
          return r;
        }
        spec.values.push_back(v);
      }
    }
  } else {
    spec.values = split(values, spec.param == "swizzle" ? ';' : ',');
    for (const std::string& v : spec.values) {
      if (v.empty()) {
        r.error = spec.param + "=" + values + ": an empty value";
        return r;
      }
    }
  }
  if (spec.values.size() > kMaxSweepValues) {
    r.error = spec.param + ": at most " + std::to_string(kMaxSweepValues) + " values";
    return r;
  }
  r.spec = std::move(spec);
  return r;
}

ScenarioLoad apply_sweep_value(const Scenario& base, const std::string& param,
                               const std::string& value) {
  ScenarioLoad out;
  Scenario s = base;
  if (s.tiles.empty()) {
    out.errors.push_back({"tiles", 0, "no tile to vary"});
    return out;
  }
  TileDecl& t = s.tiles.front();
  auto fail = [&](const std::string& msg) {
    out.errors.push_back({param, 0, msg});
    return out;
  };
  if (is_integer_param(param)) {
    const std::optional<int64_t> v = to_int(value);
    if (!v) return fail("'" + value + "' is not an integer");
    if (param == "pad") t.pad = *v;
    if (param == "rows") {
      if (t.dims.size() < 2) return fail("the tile has one dimension: vary cols");
      t.dims.front() = *v;
    }
    if (param == "cols") t.dims.back() = *v;
  } else if (param == "elem") {
    t.elem = value;
  } else if (param == "swizzle") {
    if (value == "none") {
      t.swizzle = {};
    } else {
      const std::vector<std::string> p = split(value, ',');
      std::optional<int64_t> b, m, sh;
      if (p.size() == 3) b = to_int(p[0]), m = to_int(p[1]), sh = to_int(p[2]);
      if (!b || !m || !sh || *b < -64 || *b > 64 || *m < -64 || *m > 64 || *sh < -64 || *sh > 64)
        return fail("'" + value + "': expected B,M,S like 3,0,3, or none");
      t.swizzle = {static_cast<int>(*b), static_cast<int>(*m), static_cast<int>(*sh)};
    }
  } else {
    return fail("unknown parameter");
  }
  out.errors = check(s);
  if (out.errors.empty()) out.scenario = std::move(s);
  return out;
}

namespace {

// What every point of a sweep re-places: s's trace, its steps, and its warp accesses grouped
// (TraceVariants), made once and read by all the workers.
struct SweepBase {
  explicit SweepBase(const Scenario& s) : traced(trace(s)) {
    const Arch* arch = find_arch(s.arch);
    if (!traced.trace || arch == nullptr || s.tiles.empty()) return;
    tile = s.tiles.front();
    for (const TraceStep& ts : traced.trace->steps) steps.push_back(ts.info);
    variants.emplace(s, *arch, *traced.trace);
  }
  SweepBase(const SweepBase&) = delete;  // variants refers to traced
  SweepBase& operator=(const SweepBase&) = delete;
  TraceResult traced;
  TileDecl tile;  // the first tile as traced
  std::vector<StepInfo> steps;
  std::optional<TraceVariants> variants;
};

// One point's summary: its scenario analyzed, the counts only (a summary is all a point keeps).
// The padding, extents and swizzle move the first tile's elements, not what the lanes touch: the
// scenario's own trace re-placed (trace.h relayout()) where it can tell, each distinct warp access
// placed and served once (TraceVariants), the races found on the re-placed trace where any step
// writes (hazard.h can_race()); else the point traced and analyzed whole.
std::optional<Summary> summarize_point(const Scenario& c, const SweepBase* base,
                                       std::string& error) {
  if (base && base->variants) {
    const Trace& t = *base->traced.trace;
    if (std::optional<std::vector<StepFigures>> f = base->variants->figures(c, 0)) {
      int64_t racing = 0;
      std::optional<Trace> moved;
      if (can_race(t)) moved = relayout(c, 0, base->tile, t);
      if (!can_race(t) || moved) {
        if (moved) racing = find_hazards(c, *moved).racing_accesses;
        return summarize(c, base->steps, *f, racing, t.out_of_bounds);
      }
    }
  }
  TraceResult tr = trace(c);
  if (!tr.trace) {
    error = tr.errors.empty() ? "cannot analyze" : tr.errors.front().format();
    return std::nullopt;
  }
  AnalysisResult r = analyze(c, nullptr, std::move(*tr.trace), ServeDetail::CountsOnly);
  if (!r.analysis) {
    error = r.errors.empty() ? "cannot analyze" : r.errors.front().format();
    return std::nullopt;
  }
  return summarize(*r.analysis);
}

}  // namespace

std::vector<SweepPoint> sweep(const Scenario& s, const SweepSpec& spec) {
  std::vector<SweepPoint> out(spec.values.size());
  // s traced once for every point that re-places it (read by all the workers, written by none).
  std::optional<SweepBase> base;
  if (spec.param != "elem") base.emplace(s);
  auto point = [&](size_t i) {
    SweepPoint& p = out[i];
    p.value = spec.values[i];
    ScenarioLoad l = apply_sweep_value(s, spec.param, p.value);
    if (!l.scenario)
      p.error = l.errors.empty() ? "invalid" : l.errors.front().format();
    else
      p.summary = summarize_point(*l.scenario, base ? &*base : nullptr, p.error);
  };
  // The points are independent: a worker per core (workers.h).
  for_each_index(out.size(), point);
  return out;
}

}  // namespace bankviz
