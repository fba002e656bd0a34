// frame.cpp: beats over an Analysis (see frame.h).
#include "bankviz/frame.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "bankviz/copy_h200.h"
#include "bankviz/text.h"

namespace bankviz {
namespace {

// A warp step takes part in the animation when it is a memory step with at least one wavefront.
int animated_wavefronts(const Analysis& a, size_t step, size_t warp, const Playback& p) {
  if (p.only_warp >= 0 && static_cast<int>(warp) != p.only_warp) return 0;
  if (a.steps[step].kind == StepKind::Sync) return 0;
  if (step >= a.warps.size() || warp >= a.warps[step].size()) return 0;
  return std::max(0, a.warps[step][warp].result.wavefronts);
}

// Calls fn(step, warp, first_beat, wavefronts) for every animated warp step, in order, until fn
// returns true. Returns the number of beats walked.
template <typename Fn>
int walk(const Analysis& a, const Playback& p, Fn&& fn) {
  int beat = 0;
  for (size_t s = 0; s < a.steps.size() && s < a.warps.size(); ++s) {
    for (size_t w = 0; w < a.warps[s].size(); ++w) {
      int n = animated_wavefronts(a, s, w, p);
      if (n == 0) continue;
      if (fn(static_cast<int>(s), static_cast<int>(w), beat, n)) return beat;
      beat += n;
    }
  }
  return beat;
}

struct Span {
  int step = -1, warp = -1, first = 0, count = 0;
};

// The warp step holding beat b (b must be in range).
Span span_of(const Analysis& a, const Playback& p, int b) {
  Span out;
  walk(a, p, [&](int s, int w, int first, int n) {
    if (b >= first + n) return false;
    out = {s, w, first, n};
    return true;
  });
  return out;
}

int beat_at(double t, const Playback& p, int beats, bool* finished) {
  *finished = false;
  double speed = p.speed > 0 ? p.speed : 1.0;
  double x = std::floor(t * speed);
  if (p.loop) {
    double m = std::fmod(x, static_cast<double>(beats));
    if (m < 0) m += beats;
    return static_cast<int>(m);
  }
  if (x < 0) return 0;
  if (x >= beats) {
    *finished = true;
    return beats - 1;
  }
  return static_cast<int>(x);
}

}  // namespace

int beat_count(const Analysis& a, const Playback& p) {
  return walk(a, p, [](int, int, int, int) { return false; });
}

double duration(const Analysis& a, const Playback& p) {
  double speed = p.speed > 0 ? p.speed : 1.0;
  return beat_count(a, p) / speed;
}

double beat_time(int beat, const Playback& p) {
  double speed = p.speed > 0 ? p.speed : 1.0;
  // A thousandth of a beat in, so floor(t * speed) lands on `beat` despite rounding.
  return (beat + 1e-3) / speed;
}

Frame frame_at(const Analysis& a, double t, const Playback& p) {
  Frame f;
  f.beats = beat_count(a, p);
  if (f.beats == 0) return f;
  f.beat = beat_at(t, p, f.beats, &f.finished);
  Span s = span_of(a, p, f.beat);
  f.step = s.step;
  f.warp = s.warp;
  f.wavefront = f.beat - s.first;
  f.wavefronts = s.count;
  double speed = p.speed > 0 ? p.speed : 1.0;
  double x = t * speed;
  f.phase = f.finished ? 1.0 : x - std::floor(x);
  return f;
}

double time_of(const Analysis& a, const Playback& p, int step, int warp, int wavefront) {
  int found = -1;
  walk(a, p, [&](int s, int w, int first, int n) {
    if (s != step || w != warp) return false;
    if (wavefront >= 0 && wavefront < n) found = first + wavefront;
    return true;
  });
  return found < 0 ? -1.0 : beat_time(found, p);
}

Frame follow_playhead(const Analysis& b, const Frame& lead, const Playback& p) {
  Playback bp = p;
  bp.only_warp = -1;
  if (lead.step >= 0) {
    const double tries[] = {time_of(b, bp, lead.step, lead.warp, lead.wavefront),
                            time_of(b, bp, lead.step, lead.warp, 0)};
    for (double t : tries)
      if (t >= 0) return frame_at(b, t, bp);
    for (int w = 0; w < b.warp_count(); ++w)
      if (double t = time_of(b, bp, lead.step, w, 0); t >= 0) return frame_at(b, t, bp);
  }
  const int worst = b.worst_step();
  for (int w = 0; worst >= 0 && w < b.warp_count(); ++w)
    if (double t = time_of(b, bp, worst, w, 0); t >= 0) return frame_at(b, t, bp);
  return frame_at(b, 0, bp);
}

double step_time(const Analysis& a, double t, const Playback& p, StepUnit unit, int dir) {
  int beats = beat_count(a, p);
  if (beats == 0 || dir == 0) return t;
  bool finished = false;
  int b = beat_at(t, p, beats, &finished);
  auto wrap = [&](int x) {
    if (p.loop) return ((x % beats) + beats) % beats;
    return std::clamp(x, 0, beats - 1);
  };
  if (unit == StepUnit::Wavefront) return beat_time(wrap(b + (dir > 0 ? 1 : -1)), p);

  // Group boundaries: a new group starts where the step (or the step and warp) changes.
  std::vector<int> starts;
  int last_step = -1;
  walk(a, p, [&](int s, int, int first, int) {
    if (unit == StepUnit::Warp || s != last_step) starts.push_back(first);
    last_step = s;
    return false;
  });
  // Index of the group holding b.
  int g = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), b) - starts.begin()) - 1;
  int n = static_cast<int>(starts.size());
  int target;
  if (dir > 0) {
    target = g + 1;
  } else {
    target = (b > starts[g]) ? g : g - 1;
  }
  if (p.loop) {
    target = ((target % n) + n) % n;
  } else {
    target = std::clamp(target, 0, n - 1);
  }
  return beat_time(starts[target], p);
}

// [SECTION] Grid

TileGrid tile_grid(const TileDecl& t) {
  std::vector<int64_t> d = t.padded_dims();
  TileGrid g;
  if (d.empty()) return g;
  if (d.size() == 1) {
    g.cols = std::min<int64_t>(d[0], 32);
    g.rows = g.cols > 0 ? (d[0] + g.cols - 1) / g.cols : 0;
    return g;
  }
  g.cols = d.back();
  g.rows = 1;
  for (size_t i = 0; i + 1 < d.size(); ++i) g.rows *= d[i];
  return g;
}

void grid_cell(const TileDecl& t, int64_t element, int64_t* row, int64_t* col) {
  TileGrid g = tile_grid(t);
  int64_t cols = std::max<int64_t>(g.cols, 1);
  *row = element / cols;
  *col = element % cols;
}

int64_t grid_element(const TileDecl& t, int64_t row, int64_t col) {
  TileGrid g = tile_grid(t);
  if (row < 0 || col < 0 || row >= g.rows || col >= g.cols) return -1;
  int64_t e = row * g.cols + col;
  return e < t.elements() ? e : -1;
}

// [SECTION] Frame cells

FrameCells frame_cells(const Analysis& a, const Frame& f) {
  FrameCells out;
  if (f.step < 0 || f.warp < 0 || f.step >= static_cast<int>(a.warps.size())) return out;
  const auto& row = a.warps[f.step];
  if (f.warp >= static_cast<int>(row.size())) return out;
  const WarpStep& ws = row[f.warp];
  const AccessResult& r = ws.result;
  out.tile = a.steps[f.step].tile;
  out.label = a.steps[f.step].label;
  out.wavefronts = r.wavefronts;
  out.ideal = r.ideal;
  out.verdict = a.steps[f.step].tile >= 0 ? verdict(r, a.step_op(f.step)) : verdict(r);
  // cp.async's figures depend on its global source: the verdict says which one they assume.
  if (a.steps[f.step].kind == StepKind::CpAsync) {
    const std::string& src = a.scenario.steps[static_cast<size_t>(a.steps[f.step].step)].source;
    out.verdict += src.empty() ? std::string(" (source: coalesced, assumed")
                               : std::string(" (source: chunk ") + src;
    // From 2 MiB up the L1's set hash, which sets the global passes, was not measured.
    out.verdict += copy_source_exact(ws.access)
                       ? std::string(")")
                       : std::string(
                             "; it reaches 2 MiB or beyond, where the L1's set hash was not "
                             "measured: the hardware may count more or fewer)");
    if (std::string h200 = copy_passes_caveat(copy_global_passes(ws.access), r.wavefronts,
                                              copy_wavefronts_one_pass(*a.arch, ws.access));
        !h200.empty())
      out.verdict += "; " + h200;
  }
  uint32_t current = 0;
  if (f.wavefront >= 0 && f.wavefront < static_cast<int>(r.detail.size()))
    current = r.detail[f.wavefront].lanes;
  // An access wider than one element (a 16-byte ldmatrix row of halves, a cp.async of several)
  // lights every element it covers, each with the lane that gave the address.
  const TileDecl* tile = out.tile >= 0 ? &a.scenario.tiles[static_cast<size_t>(out.tile)] : nullptr;
  const int span = tile ? std::max(1, a.step_op(f.step).width / tile->elem_bytes()) : 1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(ws.access.mask >> lane & 1u) || ws.element[lane] < 0) continue;
    const bool lit = (current >> lane & 1u) != 0;
    out.lanes.push_back({lane, ws.element[lane], ws.access.addr[lane], lit});
    for (int k = 1; k < span; ++k) {
      const uint32_t byte = ws.access.addr[lane] + static_cast<uint32_t>(k * tile->elem_bytes());
      out.lanes.push_back({lane, tile->element_at_slot(tile->slot_of_byte(byte)), byte, lit});
    }
  }
  const int banks = a.arch ? a.arch->banks : kMaxBanks;
  out.bank_load.assign(r.bank_passes.begin(), r.bank_passes.begin() + banks);
  out.conflict_banks = r.conflict_banks;
  if (f.wavefront >= 0 && f.wavefront < static_cast<int>(r.detail.size())) {
    out.wavefront_banks = r.detail[static_cast<size_t>(f.wavefront)].banks;
    out.extra_pass = r.detail[static_cast<size_t>(f.wavefront)].extra;
  }
  std::map<uint32_t, LitWord> words;
  for (size_t w = 0; w < r.detail.size(); ++w) {
    for (const LaneWord& lw : r.detail[w].words) {
      LitWord& word = words[lw.word];
      if (word.lanes == 0) {
        word.word = lw.word;
        word.bank = lw.bank;
        word.wavefront = static_cast<int>(w);
        word.conflict = r.conflicted(lw.bank);
      }
      word.lanes |= 1u << lw.lane;
      if (static_cast<int>(w) == f.wavefront) word.in_wavefront = true;
    }
  }
  for (auto& [_, word] : words) out.words.push_back(word);
  return out;
}

FrameCells conceal_answer(FrameCells c) {
  for (LitLane& l : c.lanes) l.in_wavefront = true;
  uint32_t banks = 0;
  for (LitWord& w : c.words) {
    w.in_wavefront = true;
    w.conflict = false;
    w.wavefront = 0;
    if (w.bank >= 0 && w.bank < kMaxBanks) banks |= 1u << w.bank;
  }
  c.bank_load.clear();
  c.conflict_banks = 0;
  c.wavefront_banks = banks;
  c.extra_pass = false;
  c.wavefronts = 0;
  c.ideal = 0;
  c.verdict.clear();
  return c;
}

}  // namespace bankviz
