// analysis.cpp: Scenario -> Analysis. Every thread's index for every executed step, then the
// bank model (access.h) for every warp.
//
// [SECTION] Compiled scenario (expressions parsed once)
// [SECTION] Per-thread evaluation
// [SECTION] Race tracking (a load of another warp's store with no __syncthreads() between)
// [SECTION] analyze()
// [SECTION] Analysis totals
//
// Cost: expressions are parsed once per step, lets once per thread (not once per step), and the
// Env's name slots are created once and then overwritten in place, so the hot loop allocates
// nothing per thread. A 1024-thread block with 4 steps is dominated by serve().
#include "bankviz/analysis.h"

#include <algorithm>

#include "bankviz/expr.h"

namespace bankviz {

namespace {

// [SECTION] Compiled scenario (expressions parsed once)

struct CompiledStep {
  const Step* step = nullptr;
  int index = 0;  // into Scenario::steps
  int tile = -1;
  std::vector<Expr> subscripts;
  std::optional<Expr> guard;
  int64_t* loop_slot = nullptr;  // the loop variable's value in the Env
};

struct ThreadId {
  int64_t x, y, z;
};

// CUDA's linear thread order: tid = x + y*bx + z*bx*by; warp = tid / 32, lane = tid % 32.
ThreadId thread_of(int64_t tid, const int64_t block[3]) {
  return {tid % block[0], (tid / block[0]) % block[1], tid / (block[0] * block[1])};
}

std::string thread_text(const ThreadId& t) {
  return "thread (" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) +
         ")";
}

std::string step_label(const Step& st, int64_t iteration) {
  std::string label = st.label;
  if (label.empty()) {
    label = st.kind == StepKind::Sync ? "__syncthreads()"
                                      : std::string(step_kind_name(st.kind)) + " " + st.index;
  }
  if (!st.loop_var.empty()) label += " (" + st.loop_var + "=" + std::to_string(iteration) + ")";
  return label;
}

// "tile[3][33]" for an issue message.
std::string element_text(const TileDecl& t, const std::vector<int64_t>& subs) {
  std::string out = t.name;
  for (int64_t v : subs) out += '[' + std::to_string(v) + ']';
  return out;
}

// [SECTION] Race tracking (a load of another warp's store with no __syncthreads() between)

// Per element of one tile: which warp last wrote it, in which executed step, and in which
// barrier epoch (the number of __syncthreads() executed before the write). A load by another
// warp in the same epoch is a race: nothing orders the two warps' instructions.
struct WriteLog {
  std::vector<int32_t> warp, step, epoch;
  void ensure(int64_t elements) {
    if (warp.empty()) {
      warp.assign(static_cast<size_t>(elements), -1);
      step.assign(static_cast<size_t>(elements), -1);
      epoch.assign(static_cast<size_t>(elements), -1);
    }
  }
};

constexpr int kMaxBoundsIssuesPerStep = 8;

}  // namespace

// [SECTION] analyze()

AnalysisResult analyze(const Scenario& s, const Arch* arch_override) {
  AnalysisResult out;
  out.errors = check(s);
  if (!out.errors.empty()) return out;
  const Arch* arch = arch_override ? arch_override : find_arch(s.arch);
  if (arch == nullptr) {  // check() already rejects this; kept for safety
    out.errors.push_back({"arch", 0, "unknown architecture '" + s.arch + "'"});
    return out;
  }

  Analysis a;
  a.scenario = s;
  a.arch = arch;
  const int64_t threads = s.threads();
  const int warps = static_cast<int>(s.warps());

  // The Env every thread sees: constants first, then one slot per let and per loop variable.
  // std::map nodes never move, so the slots' addresses stay valid while we overwrite values.
  Env env;
  for (int d = 0; d < 3; ++d) env.blockDim[d] = s.block[d];
  env.gridDim[0] = s.grid;
  for (const Constant& c : s.constants) env.names[c.name] = c.value;

  std::vector<Expr> lets;
  std::vector<int64_t*> let_slots;
  for (const Let& l : s.lets) {
    lets.push_back(*parse_expr(l.expr).expr);  // check() proved it parses
  }

  // [SECTION] Per-thread evaluation: lets once per thread, in order (a let may use earlier ones).
  const size_t nlets = lets.size();
  std::vector<int64_t> let_values(static_cast<size_t>(threads) * nlets);
  for (size_t k = 0; k < nlets; ++k) {
    // Insert the let's slot only now, so a let that names a later let is an unknown name.
    for (int64_t tid = 0; tid < threads; ++tid) {
      const ThreadId t = thread_of(tid, s.block);
      env.threadIdx[0] = t.x, env.threadIdx[1] = t.y, env.threadIdx[2] = t.z;
      for (size_t m = 0; m < k; ++m)
        *let_slots[m] = let_values[static_cast<size_t>(tid) * nlets + m];
      ExprError err;
      std::optional<int64_t> v = lets[k].eval(env, &err);
      if (!v) {
        out.errors.push_back({"lets[" + std::to_string(k) + "].expr", err.column,
                              thread_text(t) + ": " + err.message});
        return out;
      }
      let_values[static_cast<size_t>(tid) * nlets + k] = *v;
    }
    let_slots.push_back(&env.names[s.lets[k].name]);
  }

  std::vector<CompiledStep> steps;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    CompiledStep cs;
    cs.step = &st;
    cs.index = static_cast<int>(i);
    if (!st.loop_var.empty()) cs.loop_slot = &env.names[st.loop_var];
    if (st.is_memory()) {
      const TileDecl* tile = s.find_tile(st.tile);
      cs.tile = static_cast<int>(tile - s.tiles.data());
      cs.subscripts = parse_subscripts(st.index, tile->name).subscripts;
      if (!st.guard.empty()) cs.guard = parse_expr(st.guard).expr;
    }
    steps.push_back(std::move(cs));
  }

  std::vector<WriteLog> writes(s.tiles.size());
  int32_t epoch = 0;
  std::vector<int64_t> subs;
  auto fail = [&](const CompiledStep& cs, const char* field, const ExprError& err,
                  const ThreadId& t, int64_t iteration) {
    std::string where = thread_text(t);
    if (!cs.step->loop_var.empty())
      where += ", " + cs.step->loop_var + "=" + std::to_string(iteration);
    out.errors.push_back({"steps[" + std::to_string(cs.index) + "]." + field, err.column,
                          where + ": " + err.message});
  };

  for (const CompiledStep& cs : steps) {
    const Step& st = *cs.step;
    const int64_t n = st.iterations();
    for (int64_t it = 0; it < n; ++it) {
      const int64_t iteration = st.loop_var.empty() ? 0 : st.loop_from + it * st.loop_step;
      if (cs.loop_slot) *cs.loop_slot = iteration;
      const int exec = static_cast<int>(a.steps.size());
      a.steps.push_back({cs.index, iteration, st.kind, cs.tile, step_label(st, iteration)});
      std::vector<WarpStep>& row = a.warps.emplace_back(static_cast<size_t>(warps));
      for (int w = 0; w < warps; ++w) {
        row[w].warp = w;
        row[w].access.mask = 0;
        row[w].element.fill(-1);
      }
      if (!st.is_memory()) {  // __syncthreads(): a barrier, no access; later loads are ordered
        ++epoch;
        continue;
      }
      const TileDecl& tile = s.tiles[static_cast<size_t>(cs.tile)];
      const std::vector<int64_t> padded = tile.padded_dims();
      const int64_t elem_bytes = tile.elem_bytes();
      WriteLog& log = writes[static_cast<size_t>(cs.tile)];
      const bool writes_tile = st.kind != StepKind::Load;
      log.ensure(tile.elements());
      int bounds_issues = 0;
      int race_count = 0;
      Issue first_race;
      subs.resize(cs.subscripts.size());

      for (int w = 0; w < warps; ++w) {
        WarpStep& ws = row[static_cast<size_t>(w)];
        ws.access.width = static_cast<int>(elem_bytes);
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const int64_t tid = int64_t{w} * kWarpSize + lane;
          if (tid >= threads) break;  // the last warp of a partial block: lanes stay inactive
          const ThreadId t = thread_of(tid, s.block);
          env.threadIdx[0] = t.x, env.threadIdx[1] = t.y, env.threadIdx[2] = t.z;
          for (size_t m = 0; m < nlets; ++m)
            *let_slots[m] = let_values[static_cast<size_t>(tid) * nlets + m];
          ExprError err;
          if (cs.guard) {
            std::optional<int64_t> g = cs.guard->eval(env, &err);
            if (!g) {
              fail(cs, "guard", err, t, iteration);
              return out;
            }
            if (*g == 0) continue;  // if (guard) false: the lane sits this instruction out
          }
          for (size_t d = 0; d < subs.size(); ++d) {
            std::optional<int64_t> v = cs.subscripts[d].eval(env, &err);
            if (!v) {
              fail(cs, "index", err, t, iteration);
              return out;
            }
            subs[d] = *v;
          }
          // (subscripts) -> element offset, row-major over the padded extents: the same
          // mapping as TileDecl::linear, inlined because it runs for every thread and step.
          std::optional<int64_t> elem = 0;
          for (size_t d = 0; d < subs.size(); ++d) {
            if (subs[d] < 0 || subs[d] >= padded[d]) {
              elem.reset();
              break;
            }
            *elem = *elem * padded[d] + subs[d];
          }
          if (!elem) {
            // Out of bounds is undefined behaviour in CUDA: report it, never model it.
            if (bounds_issues < kMaxBoundsIssuesPerStep) {
              std::string msg =
                  thread_text(t) + ": " + element_text(tile, subs) + " is out of bounds";
              for (size_t d = 0; d < subs.size() && d < padded.size(); ++d) {
                if (subs[d] < 0 || subs[d] >= padded[d]) {
                  msg += ": subscript " + std::to_string(d + 1) + " is " + std::to_string(subs[d]) +
                         ", outside [0," + std::to_string(padded[d]) + ")";
                  break;
                }
              }
              a.issues.push_back(
                  {exec, w, lane,
                   "step " + std::to_string(exec) + " (" + a.steps.back().label + "): " + msg});
            }
            ++bounds_issues;
            continue;
          }
          // element -> swizzled element -> byte (TileDecl::byte_offset, with cached sizes).
          const int64_t byte = tile.base + tile.swizzle.apply(*elem) * elem_bytes;
          ws.access.mask |= 1u << lane;
          ws.access.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(byte);
          ws.element[static_cast<size_t>(lane)] = *elem;

          const size_t e = static_cast<size_t>(*elem);
          if (st.kind == StepKind::Load) {
            if (log.warp[e] >= 0 && log.warp[e] != w && log.epoch[e] == epoch) {
              if (race_count == 0) {
                const int wstep = log.step[e];
                first_race = {exec, w, lane,
                              "race: step " + std::to_string(exec) + " (" + a.steps.back().label +
                                  "): " + thread_text(t) + " of warp " + std::to_string(w) +
                                  " reads " + element_text(tile, subs) + ", written by warp " +
                                  std::to_string(log.warp[e]) + " in step " +
                                  std::to_string(wstep) + " (" +
                                  a.steps[static_cast<size_t>(wstep)].label +
                                  ") with no __syncthreads() between them: missing "
                                  "__syncthreads()"};
              }
              ++race_count;
            }
          }
        }
        if (ws.access.mask == 0) continue;
        if (std::string bad = validate(ws.access); !bad.empty()) {
          a.issues.push_back({exec, w, -1, "step " + std::to_string(exec) + ": " + bad});
          ws.access.mask = 0;
          ws.element.fill(-1);
          continue;
        }
        // Atomics (atomicAdd on shared memory) read-modify-write: lanes that hit one word do not
        // share it, each takes its own pass through the bank (measured, docs/HOPPER_RULE.md).
        const Op op = st.kind == StepKind::Load    ? Op::Load
                      : st.kind == StepKind::Store ? Op::Store
                                                   : Op::Atomic;
        ws.result = serve(*arch, op, ws.access);
      }
      // Record this step's writes after all warps have read: within one step each warp
      // reads its own operands before anything of this step is stored.
      if (writes_tile) {
        for (int w = 0; w < warps; ++w) {
          const WarpStep& ws = row[static_cast<size_t>(w)];
          for (int lane = 0; lane < kWarpSize; ++lane) {
            if (!(ws.access.mask >> lane & 1u)) continue;
            const size_t e = static_cast<size_t>(ws.element[static_cast<size_t>(lane)]);
            log.warp[e] = w;
            log.step[e] = exec;
            log.epoch[e] = epoch;
          }
        }
      }
      if (bounds_issues > kMaxBoundsIssuesPerStep) {
        a.issues.push_back({exec, -1, -1,
                            "step " + std::to_string(exec) + " (" + a.steps.back().label +
                                "): " + std::to_string(bounds_issues - kMaxBoundsIssuesPerStep) +
                                " more out-of-bounds accesses not listed"});
      }
      if (race_count > 0) {
        if (race_count > 1) {
          first_race.message += " (" + std::to_string(race_count) + " lanes in this step)";
        }
        a.issues.push_back(std::move(first_race));
      }
    }
  }
  out.analysis = std::move(a);
  return out;
}

// [SECTION] Analysis totals

int Analysis::warp_count() const {
  return static_cast<int>(scenario.warps());
}

int Analysis::step_wavefronts(int step) const {
  int sum = 0;
  if (step < 0 || step >= static_cast<int>(warps.size())) return 0;
  for (const WarpStep& ws : warps[static_cast<size_t>(step)]) sum += ws.result.wavefronts;
  return sum;
}

int Analysis::step_ideal(int step) const {
  int sum = 0;
  if (step < 0 || step >= static_cast<int>(warps.size())) return 0;
  for (const WarpStep& ws : warps[static_cast<size_t>(step)]) sum += ws.result.ideal;
  return sum;
}

int Analysis::total_wavefronts() const {
  int sum = 0;
  for (int i = 0; i < static_cast<int>(warps.size()); ++i) sum += step_wavefronts(i);
  return sum;
}

int Analysis::total_ideal() const {
  int sum = 0;
  for (int i = 0; i < static_cast<int>(warps.size()); ++i) sum += step_ideal(i);
  return sum;
}

int Analysis::worst_step() const {
  int best = -1;
  double best_ratio = -1;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    if (steps[static_cast<size_t>(i)].kind == StepKind::Sync) continue;
    const int ideal = step_ideal(i);
    const double ratio = ideal > 0 ? static_cast<double>(step_wavefronts(i)) / ideal : 0;
    if (ratio > best_ratio) best = i, best_ratio = ratio;
  }
  return best;
}

}  // namespace bankviz
