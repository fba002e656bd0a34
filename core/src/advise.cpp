// advise.cpp: candidate paddings and swizzles per tile, each analyzed (advise.h), ranked.
//
// [SECTION] Candidates
// [SECTION] Search
// [SECTION] Text and JSON
//
// No bank is computed here: a candidate is a changed copy of the scenario, and its wavefronts are
// analyze()'s (trace -> Arch -> serve()). What this file adds is the search and the ranking.

#include "bankviz/advise.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "bankviz/analysis.h"
#include "bankviz/layout.h"
#include "text_pad.h"
#include "workers.h"

namespace bankviz {

namespace {

// [SECTION] Candidates ===========================================================================

std::string swizzle_name(const Swizzle& z, int elem_bytes) {
  std::string out = "Sw<" + std::to_string(z.bits) + "," + std::to_string(z.base) + "," +
                    std::to_string(z.shift) + ">";
  const Swizzle b = swizzle_elements_to_bytes(z, elem_bytes);
  for (const NamedSwizzle& n : named_swizzles())
    if (n.bytes == b) out += " = " + std::string(n.name);
  return out;
}

// The tile without padding: what a padded candidate's extra bytes are counted from.
int64_t unpadded_bytes(const TileDecl& t) {
  TileDecl u = t;
  if (!u.cute) u.pad = 0;
  return u.bytes();
}

std::vector<Fix> candidates(const Scenario& s, int tile) {
  const TileDecl& t = s.tiles[static_cast<size_t>(tile)];
  std::vector<Fix> out;
  Fix base;
  base.tile = tile;
  base.kind = FixKind::Baseline;
  base.pad = t.pad;
  base.swizzle = t.swizzle;
  base.name = "as it is";
  if (!t.cute && t.pad > 0) base.name += " (pad " + std::to_string(t.pad) + ")";
  // A swizzle on the address (a swizzle pointer, TMA) stays one: the candidates act on the
  // address too, the tile's base entering each (TileDecl::swizzled_offset, through analyze()).
  const std::string on = t.swizzle_on_address ? " on the address" : "";
  if (!t.swizzle.identity()) base.name += " (" + swizzle_name(t.swizzle, t.elem_bytes()) + on + ")";
  out.push_back(base);
  auto same_as_now = [&](int64_t pad, const Swizzle& z) {
    return (t.cute || pad == t.pad) && z == t.swizzle;
  };
  // Padding widens each innermost row; on a 1-D array it only lengthens the end, and a CuTe
  // layout has its strides instead.
  const bool can_pad = !t.cute && !t.dynamic && t.dims.size() >= 2;
  std::set<int64_t> pads_seen;
  auto add_pad = [&](int64_t p) {
    if (!can_pad || !pads_seen.insert(p).second || same_as_now(p, Swizzle{})) return;
    Fix f;
    f.tile = tile, f.kind = FixKind::Pad, f.pad = p;
    f.name = "pad " + std::to_string(p);
    out.push_back(f);
  };
  std::set<std::tuple<int, int, int>> seen;
  auto add_swizzle = [&](const Swizzle& z) {
    if (!seen.insert({z.bits, z.base, z.shift}).second || same_as_now(0, z)) return;
    Fix f;
    f.tile = tile, f.kind = FixKind::Swizzle, f.swizzle = z;
    f.name = swizzle_name(z, t.elem_bytes()) + on;
    out.push_back(f);
  };
  // The likeliest first (a bound cuts the tail): the TMA/GMMA modes in this element's units, the
  // smallest paddings, the classic XOR of a row's 2^b columns with its row number.
  for (const NamedSwizzle& n : named_swizzles())
    if (std::optional<Swizzle> z = swizzle_bytes_to_elements(n.bytes, t.elem_bytes()))
      add_swizzle(*z);
  add_pad(1), add_pad(2);
  for (int b = 1; b <= 5; ++b) add_swizzle({b, 0, b});
  for (int64_t p = 3; p <= kMaxAdvisePad; ++p) add_pad(p);
  for (int b = 1; b <= 5; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int sh = b; sh <= 8; ++sh) add_swizzle({b, m, sh});
  return out;
}

// Simpler first on ties: the baseline, smaller pads, fewer swizzle bits.
int complexity(const Fix& f) {
  switch (f.kind) {
    case FixKind::Baseline:
      return 0;
    case FixKind::Pad:
      return static_cast<int>(f.pad);
    case FixKind::Swizzle:
      return 1 + f.swizzle.bits * 100 + f.swizzle.shift * 10 + f.swizzle.base;
  }
  return 0;
}

}  // namespace

void apply_fix(Scenario& s, const Fix& f) {
  if (f.tile < 0 || f.tile >= static_cast<int>(s.tiles.size()) || f.kind == FixKind::Baseline)
    return;
  TileDecl& t = s.tiles[static_cast<size_t>(f.tile)];
  if (!t.cute) t.pad = f.kind == FixKind::Pad ? f.pad : 0;
  t.swizzle = f.kind == FixKind::Swizzle ? f.swizzle : Swizzle{};
}

// [SECTION] Search ===============================================================================

namespace {

// One advise() run over a traced scenario: its memory steps, their figures as they are, and each
// candidate's figures, filled into the Advice in the order advise() calls the stages.
class Search {
 public:
  Search(const Scenario& s, const Trace& traced, const Arch& arch, Advice& a)
      : s_(s), traced_(traced), arch_(arch), a_(a) {}

  // The memory steps that execute, in program order, with their tile.
  void list_steps() {
    for (const TraceStep& ts : traced_.steps) {
      const StepInfo& info = ts.info;
      if (info.kind == StepKind::Sync || slot_.count(info.step)) continue;
      StepAdvice st;
      st.step = info.step;
      st.tile = info.tile;
      const Step& step = s_.steps[static_cast<size_t>(info.step)];
      st.label = step.label.empty() ? step.kind_text() + " " + step.index : step.label;
      slot_[info.step] = 0;
      a_.steps.push_back(st);
    }
    std::sort(a_.steps.begin(), a_.steps.end(),
              [](const StepAdvice& x, const StepAdvice& y) { return x.step < y.step; });
    for (size_t i = 0; i < a_.steps.size(); ++i) slot_[a_.steps[i].step] = i;
  }

  // The figures as it is: the trace's steps served (serve_step(): the figures analyze() gives
  // them, without its per-wavefront detail and hazards, unread here).
  void serve_as_is() {
    wf_now_.assign(a_.steps.size(), 0);
    ideal_now_.assign(a_.steps.size(), 0);
    ServeMemo memo;
    for (const TraceStep& ts : traced_.steps) {
      auto it = slot_.find(ts.info.step);
      if (ts.info.kind == StepKind::Sync || it == slot_.end()) continue;
      const StepFigures f = serve_step(s_, arch_, ts, &memo);
      wf_now_[it->second] += f.wavefronts;
      ideal_now_[it->second] += f.ideal;
    }
    for (size_t i = 0; i < a_.steps.size(); ++i)
      a_.steps[i].wavefronts = wf_now_[i], a_.steps[i].ideal = ideal_now_[i];
  }

  // The bound: analyses of this scenario's size that fit kMaxAdviseWork lane-steps.
  void set_bound() {
    int64_t lanes = 0;
    for (const TraceStep& ts : traced_.steps)
      if (ts.info.kind != StepKind::Sync) lanes += s_.warps() * kWarpSize;
    a_.bound = static_cast<int>(std::clamp<int64_t>(kMaxAdviseWork / std::max<int64_t>(lanes, 1),
                                                    kMinAdviseAnalyses, kMaxAdviseAnalyses));
  }

  // Which candidates are analyzed is known before any is (check() and the bound decide it), so
  // they are planned in order, evaluated on a worker per core, and ranked in order: the same
  // advice as one after the other.
  void plan_candidates() {
    std::set<int> tiles;
    for (const StepAdvice& st : a_.steps) tiles.insert(st.tile);
    for (int tile : tiles) {
      std::vector<Job>& jobs = plan_.emplace_back(tile, std::vector<Job>{}).second;
      for (Fix& f : candidates(s_, tile)) {
        Job j;
        if (f.kind != FixKind::Baseline) {
          if (a_.analyses >= a_.bound) {
            a_.truncated = true;
            break;
          }
          j.changed = s_;
          apply_fix(j.changed, f);
          if (!check(j.changed).empty()) {
            ++a_.skipped;
            continue;
          }
          ++a_.analyses;
        } else {
          j.served = true, j.wf = wf_now_, j.ideal = ideal_now_;
        }
        j.fix = std::move(f);
        jobs.push_back(std::move(j));
      }
      if (a_.truncated) break;
    }
  }

  void evaluate_candidates() {
    std::vector<Job*> to_evaluate;
    for (auto& [tile, jobs] : plan_)
      for (Job& j : jobs)
        if (j.fix.kind != FixKind::Baseline) to_evaluate.push_back(&j);
    for_each_index(to_evaluate.size(), [&](size_t k) { evaluate(*to_evaluate[k]); });
  }

  void rank() {
    for (auto& [tile, jobs] : plan_) a_.tiles.push_back(rank_tile(tile, jobs));
  }

 private:
  // A candidate changes where one tile's elements lie, not which elements the lanes touch: its
  // trace is this one's, re-placed (relayout_step(), the lanes placed as trace() places them),
  // and only its tile's steps are served again. Where relayout cannot tell (a lane out of
  // bounds, a misaligned row), the candidate is analyzed whole, as every one once was. Each
  // candidate counts as one analysis either way: the bound and the results are the same.
  struct Job {
    Fix fix;
    Scenario changed;
    bool served = false;  // false: analyzed whole, and the analysis refused it (skipped)
    std::vector<int64_t> wf, ideal;
  };

  // Runs on a worker: reads the search's state, writes only j.
  void evaluate(Job& j) const {
    if (relaid(j)) {
      j.served = true;
      return;
    }
    AnalysisResult r = analyze(j.changed);
    if (!r.analysis) return;
    j.served = true;
    per_step(*r.analysis, j.wf, j.ideal);
  }

  bool relaid(Job& j) const {
    const int tile = j.fix.tile;
    const TileDecl& before = s_.tiles[static_cast<size_t>(tile)];
    j.wf.assign(a_.steps.size(), 0);
    j.ideal.assign(a_.steps.size(), 0);
    TraceStep ts;    // one step re-placed at a time, its storage reused
    ServeMemo memo;  // a warp access met again is not served again
    for (size_t e = 0; e < traced_.steps.size(); ++e) {
      if (traced_.steps[e].info.tile != tile) continue;
      if (!relayout_step(j.changed, tile, before, traced_, e, ts)) return false;
      auto it = slot_.find(ts.info.step);
      if (ts.info.kind == StepKind::Sync || it == slot_.end()) continue;
      const StepFigures f = serve_step(j.changed, arch_, ts, &memo);
      j.wf[it->second] += f.wavefronts;
      j.ideal[it->second] += f.ideal;
    }
    return true;
  }

  // Per scenario step: wavefronts and ideal summed over its executions and warps, of a whole
  // analysis (a candidate relayout cannot tell).
  void per_step(const Analysis& an, std::vector<int64_t>& wf, std::vector<int64_t>& ideal) const {
    wf.assign(a_.steps.size(), 0);
    ideal.assign(a_.steps.size(), 0);
    for (size_t e = 0; e < an.steps.size(); ++e) {
      auto it = slot_.find(an.steps[e].step);
      if (an.steps[e].kind == StepKind::Sync || it == slot_.end()) continue;
      wf[it->second] += an.step_wavefronts(static_cast<int>(e));
      ideal[it->second] += an.step_ideal(static_cast<int>(e));
    }
  }

  // One tile's served candidates as fixes, ranked; per step the fixes that reach its fewest
  // wavefronts, cheapest and simplest first.
  TileAdvice rank_tile(int tile, std::vector<Job>& jobs) {
    TileAdvice ta;
    ta.tile = tile;
    for (size_t i = 0; i < a_.steps.size(); ++i)
      if (a_.steps[i].tile == tile) ta.steps.push_back(static_cast<int>(i));
    const int64_t unpadded = unpadded_bytes(s_.tiles[static_cast<size_t>(tile)]);
    for (Job& j : jobs) {
      if (!j.served) {
        ++a_.skipped;
        continue;
      }
      Fix& f = j.fix;
      Scenario c = s_;
      apply_fix(c, f);
      f.extra_bytes = c.tiles[static_cast<size_t>(tile)].bytes() - unpadded;
      for (int i : ta.steps) {
        f.wavefronts.push_back(j.wf[static_cast<size_t>(i)]);
        f.ideal.push_back(j.ideal[static_cast<size_t>(i)]);
        f.total_wavefronts += j.wf[static_cast<size_t>(i)];
        f.total_ideal += j.ideal[static_cast<size_t>(i)];
        f.conflict_free_steps += j.wf[static_cast<size_t>(i)] == j.ideal[static_cast<size_t>(i)];
      }
      if (f.kind == FixKind::Baseline) ta.baseline = static_cast<int>(a_.fixes.size());
      ta.ranked.push_back(static_cast<int>(a_.fixes.size()));
      a_.fixes.push_back(std::move(f));
    }
    auto key = [&](int i) {
      const Fix& f = a_.fixes[static_cast<size_t>(i)];
      return std::make_tuple(f.total_wavefronts, f.extra_bytes, complexity(f));
    };
    std::stable_sort(ta.ranked.begin(), ta.ranked.end(),
                     [&](int x, int y) { return key(x) < key(y); });
    for (size_t k = 0; k < ta.steps.size(); ++k) {
      StepAdvice& st = a_.steps[static_cast<size_t>(ta.steps[k])];
      int64_t best = INT64_MAX;
      for (int i : ta.ranked) best = std::min(best, a_.fixes[static_cast<size_t>(i)].wavefronts[k]);
      for (int i : ta.ranked)
        if (a_.fixes[static_cast<size_t>(i)].wavefronts[k] == best) st.best.push_back(i);
      std::stable_sort(st.best.begin(), st.best.end(), [&](int x, int y) {
        const Fix &fx = a_.fixes[static_cast<size_t>(x)], &fy = a_.fixes[static_cast<size_t>(y)];
        return std::make_pair(fx.extra_bytes, complexity(fx)) <
               std::make_pair(fy.extra_bytes, complexity(fy));
      });
    }
    return ta;
  }

  const Scenario& s_;
  const Trace& traced_;
  const Arch& arch_;
  Advice& a_;
  std::map<int, size_t> slot_;  // scenario step -> index into a_.steps
  std::vector<int64_t> wf_now_, ideal_now_;
  std::vector<std::pair<int, std::vector<Job>>> plan_;  // per tile: its candidates, in order
};

}  // namespace

Advice advise(const Scenario& s) {
  Advice a;
  // One trace: analyzed as it is, and re-placed for each candidate.
  TraceResult traced_now = trace(s);
  ++a.analyses;
  if (!traced_now.trace) {
    a.errors = std::move(traced_now.errors);
    return a;
  }
  const Arch* arch = find_arch(s.arch);
  if (arch == nullptr) {  // trace()'s check() already rejects this; kept for safety
    a.errors.push_back({"arch", 0, "unknown architecture '" + s.arch + "'"});
    return a;
  }
  Search search(s, *traced_now.trace, *arch, a);
  search.list_steps();
  search.serve_as_is();
  search.set_bound();
  search.plan_candidates();
  search.evaluate_candidates();
  search.rank();
  return a;
}

// [SECTION] Text and JSON ========================================================================

namespace {

const char* kind_name(FixKind k) {
  switch (k) {
    case FixKind::Baseline:
      return "baseline";
    case FixKind::Pad:
      return "pad";
    case FixKind::Swizzle:
      return "swizzle";
  }
  return "?";
}

std::string bytes_text(int64_t b) {
  return (b >= 0 ? "+" : "") + std::to_string(b) + " B";
}

constexpr size_t kRankedShown = 12;
constexpr size_t kBestShown = 6;

}  // namespace

std::string render_advice(const Scenario& s, const Advice& a) {
  std::ostringstream o;
  o << "advise: " << s.name << ": " << a.analyses << " analyses";
  if (a.skipped)
    o << ", " << a.skipped << " candidates refused (by check(), or by the analysis: e.g. a "
      << "ldmatrix row no longer 16-byte aligned)";
  if (a.truncated) o << " (stopped at the bound of " << a.bound << " analyses for its size)";
  o << "\n";
  for (const TileAdvice& ta : a.tiles) {
    const TileDecl& t = s.tiles[static_cast<size_t>(ta.tile)];
    o << "\n" << t.declaration() << "  (" << t.bytes() << " bytes";
    if (t.cute) o << ", layout " << t.layout_text();
    o << ")\n";
    for (size_t k = 0; k < ta.steps.size(); ++k) {
      const StepAdvice& st = a.steps[static_cast<size_t>(ta.steps[k])];
      o << "  step " << st.step << " " << st.label << ": now " << st.wavefronts << "/" << st.ideal;
      if (st.conflict_free_now()) {
        o << ", conflict-free\n";
        continue;
      }
      const Fix& best = a.fixes[static_cast<size_t>(st.best.front())];
      const int64_t w = best.wavefronts[k];
      o << (w == st.ideal ? "; conflict-free with: "
                          : "; fewest (" + std::to_string(w) + ") with: ");
      for (size_t b = 0; b < st.best.size() && b < kBestShown; ++b) {
        const Fix& f = a.fixes[static_cast<size_t>(st.best[b])];
        o << (b ? ", " : "") << f.name;
        if (f.extra_bytes != 0) o << " (" << bytes_text(f.extra_bytes) << ")";
      }
      if (st.best.size() > kBestShown) o << ", ... (" << st.best.size() << " in all)";
      o << "\n";
    }
    o << "  ranked over the tile's steps (wavefronts, then shared memory):\n";
    o << "    #  " << pad_right("fix", 22) << pad_left("wavefronts", 11) << pad_left("ideal", 8)
      << pad_left("memory", 10) << "  conflict-free steps\n";
    for (size_t k = 0; k < ta.ranked.size() && k < kRankedShown; ++k) {
      const Fix& f = a.fixes[static_cast<size_t>(ta.ranked[k])];
      o << "  " << pad_left(std::to_string(k + 1), 3) << "  " << pad_right(f.name.substr(0, 22), 22)
        << pad_left(std::to_string(f.total_wavefronts), 11)
        << pad_left(std::to_string(f.total_ideal), 8) << pad_left(bytes_text(f.extra_bytes), 10)
        << "  " << f.conflict_free_steps << "/" << f.ideal.size() << "\n";
    }
    if (ta.ranked.size() > kRankedShown)
      o << "     (" << ta.ranked.size() - kRankedShown << " more; --json lists all)\n";
  }
  if (!a.tiles.empty())
    o << "\nswizzles are CuTe's Swizzle<B,M,S> on element offsets (= SWnn: the TMA/GMMA mode in "
         "bytes); padding is elements per innermost row\n";
  return o.str();
}

std::string advice_json(const Scenario& s, const Advice& a) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["scenario"] = s.name;
  j["analyses"] = a.analyses;
  j["skipped"] = a.skipped;
  j["bound"] = a.bound;
  j["truncated"] = a.truncated;
  auto fix_json = [&](const Fix& f) {
    const TileDecl& t = s.tiles[static_cast<size_t>(f.tile)];
    Json x{{"name", f.name}, {"kind", kind_name(f.kind)}};
    if (f.kind == FixKind::Pad) x["pad"] = f.pad;
    if (f.kind == FixKind::Swizzle) {
      const Swizzle b = swizzle_elements_to_bytes(f.swizzle, t.elem_bytes());
      x["swizzle_elements"] = {f.swizzle.bits, f.swizzle.base, f.swizzle.shift};
      x["swizzle_bytes"] = {b.bits, b.base, b.shift};
      x["swizzle_on"] = t.swizzle_on_address ? "address" : "offset";
    }
    x["extra_bytes"] = f.extra_bytes;
    x["wavefronts"] = f.total_wavefronts;
    x["ideal"] = f.total_ideal;
    x["step_wavefronts"] = f.wavefronts;
    x["conflict_free_steps"] = f.conflict_free_steps;
    return x;
  };
  Json steps = Json::array();
  for (const StepAdvice& st : a.steps) {
    Json best = Json::array();
    for (int i : st.best) best.push_back(a.fixes[static_cast<size_t>(i)].name);
    steps.push_back(Json{{"step", st.step},
                         {"tile", s.tiles[static_cast<size_t>(st.tile)].name},
                         {"label", st.label},
                         {"wavefronts", st.wavefronts},
                         {"ideal", st.ideal},
                         {"best", best}});
  }
  j["steps"] = std::move(steps);
  Json tiles = Json::array();
  for (const TileAdvice& ta : a.tiles) {
    Json ranked = Json::array();
    for (int i : ta.ranked) ranked.push_back(fix_json(a.fixes[static_cast<size_t>(i)]));
    tiles.push_back(Json{{"tile", s.tiles[static_cast<size_t>(ta.tile)].name},
                         {"bytes", s.tiles[static_cast<size_t>(ta.tile)].bytes()},
                         {"ranked", ranked}});
  }
  j["tiles"] = std::move(tiles);
  // Invalid UTF-8 (a label from the command line) is replaced, never thrown.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace bankviz
