// hazard.cpp: which accesses of a trace race (hazard.h).
//
// Per barrier interval ("epoch": the executed steps between two __syncthreads()), two passes:
// the first records, per element, which warps store and add to it (and the first two accesses of
// each kind from different warps, to name them); the second flags every access that another
// warp's write or add to the same element makes timing-dependent, and names the pair. An epoch
// of loads alone is skipped: two loads never race.
#include "bankviz/hazard.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

namespace bankviz {

const char* hazard_kind_name(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite:
      return "read after write";
    case HazardKind::WriteAfterRead:
      return "write after read";
    case HazardKind::WriteAfterWrite:
      return "write after write";
    case HazardKind::AtomicVsPlain:
      return "atomic against plain access";
  }
  return "?";
}

int64_t Hazards::count(HazardKind k) const {
  return counts[static_cast<int>(k)];
}

namespace {

// Racing step pairs named. Every scenario step writing a slot in an epoch is kept to pair it
// (exact counts however many write one element); the pairing's work (the writers visited, over
// every access) is bounded, past which later pairs are left unnamed and `unnamed_writers` says so:
// only a scenario of thousands of steps writing one element between two barriers reaches it.
constexpr size_t kMaxExamples = 32;
constexpr int64_t kMaxPairingWork = int64_t{1} << 26;

// The first two accesses of one kind to an element from two different warps (enough to name a
// partner from another warp for any access).
struct FirstTwo {
  std::array<AccessRef, 2> ref;
  void note(const AccessRef& a) {
    if (ref[0].warp < 0)
      ref[0] = a;
    else if (ref[1].warp < 0 && ref[0].warp != a.warp)
      ref[1] = a;
  }
  AccessRef other_than(int warp) const { return ref[0].warp != warp ? ref[0] : ref[1]; }
};

// One scenario step's writes (store, stmatrix, cp.async) or adds to a slot in this epoch, with
// the first two warps that made them: every partner of a racing access, not only its first.
struct Writer {
  int32_t next = -1;  // the slot's next writer in the pool, -1 at the end
  int step = -1;      // scenario step
  StepAccess how = StepAccess::Write;
  FirstTwo refs;
};

struct Cell {
  int32_t epoch = -1;
  uint32_t stores = 0, atomics = 0;  // warp masks in this epoch
  FirstTwo store, atomic;
  int32_t writers = -1;      // the first of this epoch's writers (the pool's index), -1: none
  int32_t last_writer = -1;  // the last of them
  int32_t writer_count = 0;
};

// The kind of race between access `a` (how it touches the slot: `mine`) and another warp's write
// or add `partner`; nullopt when the two do not race (two adds).
std::optional<HazardKind> race_kind(StepAccess mine, const AccessRef& a, StepAccess theirs,
                                    const AccessRef& partner) {
  if (theirs == StepAccess::Add) {
    if (mine == StepAccess::Add) return std::nullopt;
    return HazardKind::AtomicVsPlain;
  }
  if (mine == StepAccess::Read)
    return partner.step < a.step ? HazardKind::ReadAfterWrite : HazardKind::WriteAfterRead;
  if (mine == StepAccess::Write) return HazardKind::WriteAfterWrite;
  return HazardKind::AtomicVsPlain;
}

std::string describe(const Scenario& s, const Trace& t, const AccessRef& a, int64_t element) {
  const TraceStep& ts = t.steps[static_cast<size_t>(a.step)];
  const TileDecl& tile = s.tiles[static_cast<size_t>(ts.info.tile)];
  // The element this access touched (a broadcast CuTe layout's racing pair may name two
  // coordinates of one memory slot).
  const int32_t own = ts.warps[static_cast<size_t>(a.warp)].element[static_cast<size_t>(a.lane)];
  const std::string elem = tile.element_name(own >= 0 ? own : element);
  const Step& st = s.steps[static_cast<size_t>(ts.info.step)];
  const OpSpec op = st.op(tile.elem_bytes());
  const std::string what =
      op.width > tile.elem_bytes() ? "the " + std::to_string(op.width) + " bytes at " + elem : elem;
  const std::string_view verb = st.info().verb;
  return thread_text(thread_of(int64_t{a.warp} * kWarpSize + a.lane, s.block)) + " of warp " +
         std::to_string(a.warp) + std::string(verb) + what + " in step " + std::to_string(a.step) +
         " (" + ts.info.label + ")";
}

}  // namespace

bool writes_shared(const TraceStep& ts) {
  return !ts.warps.empty() && step_kind_info(ts.info.kind).access != StepAccess::Read;
}

bool can_race(const Trace& t) {
  return std::any_of(t.steps.begin(), t.steps.end(),
                     [](const TraceStep& ts) { return writes_shared(ts); });
}

namespace {

// One find_hazards() run: per epoch, pass 1 records the writers of every slot, pass 2 flags the
// accesses they make timing-dependent and names every racing pair.
class RaceFinder {
 public:
  RaceFinder(const Scenario& s, const Trace& t, uint32_t warps)
      : s_(s), t_(t), warps_(warps), cells_(s.tiles.size()) {
    h_.racing.resize(t.steps.size());
  }

  Hazards find() {
    int32_t epoch = 0;
    for (size_t begin = 0; begin < t_.steps.size(); ++epoch) {
      pool_.clear();
      size_t end = begin;
      bool writes = false;  // a store or an add in this epoch: every race needs one
      for (; end < t_.steps.size() && t_.steps[end].info.kind != StepKind::Sync; ++end)
        writes = writes || writes_shared(t_.steps[end]);
      if (writes) {  // loads alone never race: nothing to record or flag
        record_writers(begin, end, epoch);
        flag_races(begin, end, epoch);
      }
      begin = end + 1;
    }
    // In program order of their steps.
    std::stable_sort(h_.examples.begin(), h_.examples.end(), [](const Hazard& x, const Hazard& y) {
      return std::pair(x.first.step, x.second.step) < std::pair(y.first.step, y.second.step);
    });
    for (Hazard& e : h_.examples)
      if (e.lanes > 1) e.message += " (" + std::to_string(e.lanes) + " racing lanes like this)";
    return std::move(h_);
  }

 private:
  bool present(int w) const { return warps_ == 0 || ((warps_ >> w) & 1u) != 0; }

  Cell& cell(int tile, int64_t element) {
    std::vector<Cell>& c = cells_[static_cast<size_t>(tile)];
    // The array's slots: a CuTe layout's image (its cosize), not its coordinates.
    if (c.empty())
      c.resize(static_cast<size_t>(s_.tiles[static_cast<size_t>(tile)].storage_elements()));
    return c[static_cast<size_t>(element)];
  }

  // Calls f(step, access, element, first slot, slots) for every access of the present warps in
  // [b, e). Cells are memory slots (TileDecl::slot_of_byte): an access wider than the element
  // (a matrix row, a cp.async) covers several; `element` names the access in messages.
  template <class F>
  void each(size_t b, size_t e, F&& f) {
    for (size_t i = b; i < e; ++i) {
      const TraceStep& ts = t_.steps[i];
      if (ts.warps.empty()) continue;
      const TileDecl& tile = s_.tiles[static_cast<size_t>(ts.info.tile)];
      const int64_t elem_bytes = tile.elem_bytes();  // read once per step, not per lane
      const int64_t span = std::max<int64_t>(
          1, s_.steps[static_cast<size_t>(ts.info.step)].op(tile.elem_bytes()).width / elem_bytes);
      for (size_t w = 0; w < ts.warps.size(); ++w) {
        if (!present(static_cast<int>(w))) continue;
        const WarpTrace& wt = ts.warps[w];
        for (uint32_t m = wt.mask; m; m &= m - 1) {
          const int lane = __builtin_ctz(m);
          f(ts, AccessRef{static_cast<int>(i), static_cast<int>(w), lane},
            wt.element[static_cast<size_t>(lane)],
            // TileDecl::slot_of_byte() with the element size read above
            (static_cast<int64_t>(wt.byte[static_cast<size_t>(lane)]) - tile.base) / elem_bytes,
            span);
        }
      }
    }
  }

  // This epoch's writers of a slot, as linked lists through one pool, in program order. A
  // scenario step's executions (its loop's iterations) are consecutive executed steps, so its
  // writes to a slot meet its entry last in the list; the list is walked only for a step met
  // again after another (a recording's picture, whose lines interleave), within the work bound.
  void note_writer(Cell& c, int step, StepAccess how, const AccessRef& a) {
    const int32_t last = c.last_writer;
    if (last >= 0) {
      Writer& w = pool_[static_cast<size_t>(last)];
      if (w.step == step && w.how == how) return w.refs.note(a);
      work_ += c.writer_count;
      if (work_ <= kMaxPairingWork)
        for (int32_t i = c.writers; i >= 0; i = pool_[static_cast<size_t>(i)].next) {
          Writer& o = pool_[static_cast<size_t>(i)];
          if (o.step == step && o.how == how) return o.refs.note(a);
        }
    }
    Writer w;
    w.step = step, w.how = how;
    w.refs.note(a);
    const int32_t at = static_cast<int32_t>(pool_.size());
    pool_.push_back(w);
    (last < 0 ? c.writers : pool_[static_cast<size_t>(last)].next) = at;
    c.last_writer = at;
    ++c.writer_count;
  }

  // One racing pair: its example, or one more lane of it.
  void record(HazardKind kind, const TraceStep& ts, int64_t element, const AccessRef& a,
              const AccessRef& partner) {
    const bool a_first = a.step < partner.step || (a.step == partner.step && a.warp < partner.warp);
    const AccessRef first = a_first ? a : partner, second = a_first ? partner : a;
    const int s1 = t_.steps[static_cast<size_t>(first.step)].info.step;
    const int s2 = t_.steps[static_cast<size_t>(second.step)].info.step;
    const auto [it, fresh] = pairs_.try_emplace({static_cast<int>(kind), s1, s2}, -1);
    if (!fresh) {
      if (it->second >= 0) ++h_.examples[static_cast<size_t>(it->second)].lanes;
      return;
    }
    ++h_.pairs;
    if (h_.examples.size() >= kMaxExamples) return;
    it->second = static_cast<int32_t>(h_.examples.size());
    h_.examples.push_back({kind, ts.info.tile, element, first, second, 1,
                           std::string("race: ") + hazard_kind_name(kind) + ": " +
                               describe(s_, t_, first, element) + ", and " +
                               describe(s_, t_, second, element) +
                               ", with no __syncthreads() between them: missing "
                               "__syncthreads()"});
  }

  // Pass 1: who writes or adds to what in this epoch (a load is flagged in pass 2 against them;
  // loads need no record: a cell a load alone touches is left as an earlier epoch's).
  void record_writers(size_t begin, size_t end, int32_t epoch) {
    each(begin, end,
         [&](const TraceStep& ts, const AccessRef& a, int64_t, int64_t slot, int64_t span) {
           const StepAccess how = step_kind_info(ts.info.kind).access;
           if (how == StepAccess::Read) return;
           const uint32_t me = 1u << a.warp;
           for (int64_t k = 0; k < span; ++k) {
             Cell& c = cell(ts.info.tile, slot + k);
             if (c.epoch != epoch) {
               c = Cell{};
               c.epoch = epoch;
             }
             if (how == StepAccess::Add)
               c.atomics |= me, c.atomic.note(a);
             else  // store, stmatrix, cp.async
               c.stores |= me, c.store.note(a);
             note_writer(c, ts.info.step, how, a);
           }
         });
  }

  // Pass 2: flag what another warp makes timing-dependent, and name the pair.
  void flag_races(size_t begin, size_t end, int32_t epoch) {
    each(begin, end,
         [&](const TraceStep& ts, const AccessRef& a, int64_t element, int64_t slot, int64_t span) {
           flag(ts, a, element, slot, span, epoch);
         });
  }

  void flag(const TraceStep& ts, const AccessRef& a, int64_t element, int64_t slot, int64_t span,
            int32_t epoch) {
    const uint32_t others = ~(1u << a.warp);
    const StepAccess how = step_kind_info(ts.info.kind).access;
    const bool plain = how != StepAccess::Add;
    // The first slot of the access that another warp writes (or adds to, against a plain one).
    const Cell* hit = nullptr;
    uint32_t writers = 0, adders = 0;
    for (int64_t k = 0; k < span && hit == nullptr; ++k) {
      const Cell& c = cell(ts.info.tile, slot + k);
      if (c.epoch != epoch) continue;  // no write or add in this epoch
      writers = c.stores & others, adders = plain ? c.atomics & others : 0;
      if (writers || adders) hit = &c;
    }
    if (hit == nullptr) return;
    const Cell& c = *hit;
    AccessRef partner;
    HazardKind kind = HazardKind::AtomicVsPlain;
    if (writers) {
      partner = c.store.other_than(a.warp);
      if (how == StepAccess::Read)
        kind = partner.step < a.step ? HazardKind::ReadAfterWrite : HazardKind::WriteAfterRead;
      else if (plain)
        kind = HazardKind::WriteAfterWrite;
    } else {
      partner = c.atomic.other_than(a.warp);
    }
    std::vector<uint32_t>& row = h_.racing[static_cast<size_t>(a.step)];
    if (row.empty()) row.resize(ts.warps.size());
    row[static_cast<size_t>(a.warp)] |= 1u << a.lane;
    ++h_.racing_accesses;
    ++h_.counts[static_cast<int>(kind)];
    name_pairs(ts, a, element, slot, span, epoch);
  }

  // Every pair an access races in: each other warp's writing step on its slots (a step writing
  // several of an access's slots, a wide access, named once).
  void name_pairs(const TraceStep& ts, const AccessRef& a, int64_t element, int64_t slot,
                  int64_t span, int32_t epoch) {
    const uint32_t others = ~(1u << a.warp);
    const StepAccess how = step_kind_info(ts.info.kind).access;
    const bool plain = how != StepAccess::Add;
    found_.clear();
    for (int64_t k = 0; k < span; ++k) {
      const Cell& sc = cell(ts.info.tile, slot + k);
      if (sc.epoch != epoch) continue;
      if (((sc.stores | (plain ? sc.atomics : 0u)) & others) == 0) continue;
      work_ += sc.writer_count;
      if (work_ > kMaxPairingWork) {
        h_.unnamed_writers = true;
        return;
      }
      for (int32_t i = sc.writers; i >= 0; i = pool_[static_cast<size_t>(i)].next) {
        const Writer& wr = pool_[static_cast<size_t>(i)];
        const AccessRef p = wr.refs.other_than(a.warp);
        if (p.warp < 0 || p.warp == a.warp) continue;
        const std::optional<HazardKind> rk = race_kind(how, a, wr.how, p);
        if (!rk) continue;
        if (span == 1) {  // a slot's writers are distinct steps: each pair once
          record(*rk, ts, element, a, p);
          continue;
        }
        found_.push_back({{*rk, wr.step}, p});
      }
    }
    if (found_.empty()) return;
    std::stable_sort(found_.begin(), found_.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t i = 0; i < found_.size(); ++i)
      if (i == 0 || found_[i].first != found_[i - 1].first)
        record(found_[i].first.first, ts, element, a, found_[i].second);
  }

  const Scenario& s_;
  const Trace& t_;
  uint32_t warps_;
  Hazards h_;
  std::vector<std::vector<Cell>> cells_;
  std::vector<Writer> pool_;
  std::vector<std::pair<std::pair<HazardKind, int>, AccessRef>> found_;  // name_pairs()'s
  int64_t work_ = 0;  // writers visited by name_pairs(), against kMaxPairingWork
  // Every racing pair (kind, first step, second step) found -> its example, -1 past the list.
  std::map<std::tuple<int, int, int>, int32_t> pairs_;
};

}  // namespace

Hazards find_hazards(const Scenario& s, const Trace& t, uint32_t warps) {
  return RaceFinder(s, t, warps).find();
}

}  // namespace bankviz
