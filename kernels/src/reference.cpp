// reference.cpp: the CPU evaluation of the generated kernel (reference.h), and verification.
//
// [SECTION] Compiled scenario
// [SECTION] Shared-memory cells and hazards
// [SECTION] One block
// [SECTION] evaluate_reference()
// [SECTION] verify_output()
//
// Ordering model, as CUDA promises it: within one warp the steps run in program order; between
// warps nothing is ordered except by __syncthreads(). So a cell touched by two warps between the
// same two barriers, at least one of them writing (atomics among themselves excepted), is a race:
// its readers may see either value, and they are excluded from the comparison.
#include "bankviz/reference.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "bankviz/expr.h"
#include "types.h"

namespace bankviz {

const char* verify_status_name(VerifyStatus v) {
  switch (v) {
    case VerifyStatus::Verified:
      return "verified";
    case VerifyStatus::Mismatch:
      return "mismatch";
    case VerifyStatus::Race:
      return "race";
    case VerifyStatus::NotRun:
      return "not run";
  }
  return "?";
}

namespace {

constexpr size_t kMaxMessages = 4;

// [SECTION] Compiled scenario ====================================================================

struct CStep {
  const Step* step = nullptr;
  int tile = -1;
  const detail::TypeInfo* type = nullptr;
  std::vector<Expr> subscripts;
  std::optional<Expr> guard, value;
};

bool mentions_block(const Scenario& s) {
  auto has = [](const std::string& t) {
    return t.find("blockIdx") != std::string::npos || t.find("gridDim") != std::string::npos;
  };
  for (const Let& l : s.lets)
    if (has(l.expr)) return true;
  for (const Step& st : s.steps)
    if (has(st.index) || has(st.guard) || has(st.value)) return true;
  return false;
}

// [SECTION] Shared-memory cells and hazards ======================================================

enum class CellState : uint8_t { Uninit, Known, Unknown };

struct Cell {
  CellState state = CellState::Uninit;
  uint64_t bits[4] = {0, 0, 0, 0};                 // per component
  uint32_t checksum = 0;                           // what a load adds to the thread's sum
  int32_t phase = -1;                              // barrier epoch of the masks below
  uint32_t writers = 0, readers = 0, atomics = 0;  // warps that did so in `phase`
  int32_t writer_step = -1;                        // executed step of the last plain store
};

struct TileState {
  std::vector<Cell> cells;
  // Threads that loaded a cell in the current epoch (for write-after-read races).
  std::unordered_map<int64_t, std::vector<int32_t>> readers;
};

void refresh(Cell& c, int32_t phase) {
  if (c.phase != phase) {
    c.phase = phase;
    c.writers = c.readers = c.atomics = 0;
  }
}

uint32_t checksum_of(const detail::TypeInfo& t, const uint64_t bits[4]) {
  uint32_t sum = 0;
  for (int i = 0; i < t.comps; ++i) sum += detail::component_checksum(t, bits[i]);
  return sum;
}

std::string element_text(const TileDecl& t, int64_t elem) {
  std::string out = t.name;
  for (int64_t v : t.unlinear(elem)) out += '[' + std::to_string(v) + ']';
  return out;
}

// [SECTION] One block ============================================================================

struct BlockRun {
  const Scenario& s;
  const std::vector<CStep>& steps;
  const ReferenceOptions& o;
  int64_t block_index = 0;
  bool record = false;  // block 0: record messages and instruction counts
  Reference& ref;
  std::vector<Diagnostic>& errors;

  bool run() {
    const int64_t threads = s.threads();
    const int warps = static_cast<int>(s.warps());
    auto present = [&](int w) { return o.warps == 0 || ((o.warps >> w) & 1u) != 0; };
    Env env;
    for (int d = 0; d < 3; ++d) env.blockDim[d] = s.block[d];
    env.gridDim[0] = o.grid;
    env.blockIdx[0] = block_index;
    for (const Constant& c : s.constants) env.names[c.name] = c.value;

    // Lets, once per thread, in order.
    std::vector<Expr> lets;
    for (const Let& l : s.lets) lets.push_back(*parse_expr(l.expr).expr);
    const size_t nlets = lets.size();
    std::vector<int64_t> let_values(static_cast<size_t>(threads) * nlets);
    auto set_thread = [&](int64_t tid) {
      env.threadIdx[0] = tid % s.block[0];
      env.threadIdx[1] = (tid / s.block[0]) % s.block[1];
      env.threadIdx[2] = tid / (s.block[0] * s.block[1]);
    };
    for (int64_t tid = 0; tid < threads; ++tid) {
      set_thread(tid);
      for (size_t k = 0; k < nlets; ++k) {
        ExprError err;
        std::optional<int64_t> v = lets[k].eval(env, &err);
        if (!v) {
          errors.push_back({"lets[" + std::to_string(k) + "].expr", err.column, err.message});
          return false;
        }
        let_values[static_cast<size_t>(tid) * nlets + k] = *v;
        env.names[s.lets[k].name] = *v;
      }
    }
    auto load_lets = [&](int64_t tid) {
      set_thread(tid);
      for (size_t k = 0; k < nlets; ++k)
        env.names[s.lets[k].name] = let_values[static_cast<size_t>(tid) * nlets + k];
    };

    std::vector<TileState> tiles(s.tiles.size());
    for (size_t i = 0; i < s.tiles.size(); ++i)
      tiles[i].cells.resize(static_cast<size_t>(s.tiles[i].elements()));
    std::vector<uint32_t> sum(static_cast<size_t>(threads), 0);
    std::vector<uint8_t> det(static_cast<size_t>(threads), 1);
    int32_t phase = 0;
    int exec = 0;
    auto race = [&](std::string msg) {
      if (!record) return;
      ++ref.race_count;
      if (ref.races.size() < kMaxMessages) ref.races.push_back(std::move(msg));
    };
    auto note = [&](std::string msg) {
      if (record && ref.notes.size() < kMaxMessages &&
          std::find(ref.notes.begin(), ref.notes.end(), msg) == ref.notes.end())
        ref.notes.push_back(std::move(msg));
    };

    struct LaneAccess {
      int64_t tid;
      int64_t elem;
      uint64_t bits[4];
      int64_t value;
    };
    std::vector<LaneAccess> lanes;
    std::vector<int64_t> subs;

    for (size_t si = 0; si < steps.size(); ++si) {
      const CStep& cs = steps[si];
      const Step& st = *cs.step;
      const int64_t n = st.iterations();
      const bool measured = o.measure == static_cast<int>(si);
      const int64_t reps = measured ? o.reps : 1;
      for (int64_t it = 0; it < n; ++it, ++exec) {
        const int64_t iteration = st.loop_var.empty() ? 0 : st.loop_from + it * st.loop_step;
        if (!st.loop_var.empty()) env.names[st.loop_var] = iteration;
        if (st.kind == StepKind::Sync) {
          ++phase;
          for (TileState& t : tiles) t.readers.clear();
          continue;
        }
        const TileDecl& tile = s.tiles[static_cast<size_t>(cs.tile)];
        const detail::TypeInfo& ty = *cs.type;
        TileState& ts = tiles[static_cast<size_t>(cs.tile)];
        for (int w = 0; w < warps; ++w) {
          if (!present(w)) continue;  // exposed mode: this warp of the lesson did not run
          lanes.clear();
          for (int lane = 0; lane < 32; ++lane) {
            const int64_t tid = int64_t{w} * 32 + lane;
            if (tid >= threads) break;
            load_lets(tid);
            ExprError err;
            auto where = [&](const char* field) {
              std::string t = "steps[" + std::to_string(si) + "]." + field;
              return t;
            };
            auto thread_text = [&] {
              std::string t = "block " + std::to_string(block_index) + ", thread (" +
                              std::to_string(env.threadIdx[0]) + "," +
                              std::to_string(env.threadIdx[1]) + "," +
                              std::to_string(env.threadIdx[2]) + ")";
              if (!st.loop_var.empty()) t += ", " + st.loop_var + "=" + std::to_string(iteration);
              return t;
            };
            if (cs.guard) {
              std::optional<int64_t> g = cs.guard->eval(env, &err);
              if (!g) {
                errors.push_back({where("guard"), err.column, thread_text() + ": " + err.message});
                return false;
              }
              if (*g == 0) continue;
            }
            subs.resize(cs.subscripts.size());
            for (size_t d = 0; d < subs.size(); ++d) {
              std::optional<int64_t> v = cs.subscripts[d].eval(env, &err);
              if (!v) {
                errors.push_back({where("index"), err.column, thread_text() + ": " + err.message});
                return false;
              }
              subs[d] = *v;
            }
            std::optional<int64_t> elem = tile.linear(subs);
            if (!elem) {
              std::string text = tile.name;
              for (int64_t v : subs) text += "[" + std::to_string(v) + "]";
              errors.push_back({where("index"), 0,
                                thread_text() + ": " + text +
                                    " is out of bounds; on a GPU it would touch memory outside "
                                    "the tile, so the kernel is not run"});
              return false;
            }
            LaneAccess a{tid, *elem, {0, 0, 0, 0}, 0};
            if (st.kind != StepKind::Load) {
              if (cs.value) {
                std::optional<int64_t> v = cs.value->eval(env, &err);
                if (!v) {
                  errors.push_back(
                      {where("value"), err.column, thread_text() + ": " + err.message});
                  return false;
                }
                a.value = *v;
              } else {
                a.value = tid;  // the default: the thread's linear index
              }
              for (int c = 0; c < ty.comps; ++c)
                a.bits[c] = detail::component_bits(ty, a.value + c);
            }
            lanes.push_back(a);
          }
          if (lanes.empty()) continue;
          if (record) {
            ref.step_warps[si] |= 1u << w;
            ref.step_instructions[si] += reps;
            (st.kind == StepKind::Load    ? ref.load_instructions
             : st.kind == StepKind::Store ? ref.store_instructions
                                          : ref.atomic_instructions) += reps;
          }
          const uint32_t me = 1u << w;
          const std::string here = "step " + std::to_string(si) + " (" + step_kind_name(st.kind) +
                                   " " + st.index + ") in warp " + std::to_string(w);
          if (st.kind == StepKind::Load) {
            for (const LaneAccess& a : lanes) {
              Cell& c = ts.cells[static_cast<size_t>(a.elem)];
              refresh(c, phase);
              const size_t t = static_cast<size_t>(a.tid);
              if ((c.writers | c.atomics) & ~me) {
                det[t] = 0;
                race("race: " + here + " reads " + element_text(tile, a.elem) +
                     ", written by another warp with no __syncthreads() between: missing "
                     "__syncthreads()");
              } else if (c.state == CellState::Uninit) {
                det[t] = 0;
                note(here + " reads " + element_text(tile, a.elem) +
                     ", which no thread stored: shared memory starts uninitialized");
              } else if (c.state == CellState::Unknown) {
                det[t] = 0;
              } else {
                sum[t] += c.checksum * static_cast<uint32_t>(reps);
              }
              c.readers |= me;
              ts.readers[a.elem].push_back(static_cast<int32_t>(a.tid));
            }
          } else if (st.kind == StepKind::Store) {
            // Lanes of one warp storing to one word: one of them wins, which one is undefined.
            for (size_t i = 0; i < lanes.size(); ++i) {
              const LaneAccess& a = lanes[i];
              Cell& c = ts.cells[static_cast<size_t>(a.elem)];
              refresh(c, phase);
              bool same_warp_conflict = false;
              for (size_t j = 0; j < i; ++j) {
                if (lanes[j].elem == a.elem &&
                    !std::equal(std::begin(a.bits), std::end(a.bits), std::begin(lanes[j].bits)))
                  same_warp_conflict = true;
              }
              if ((c.writers | c.atomics) & ~me) {
                c.state = CellState::Unknown;
                race("race: " + here + " stores " + element_text(tile, a.elem) +
                     ", also written by another warp with no __syncthreads() between");
              } else if (same_warp_conflict) {
                c.state = CellState::Unknown;
                note(here + ": several lanes store different values to " +
                     element_text(tile, a.elem) + "; which one lands is undefined");
              } else {
                c.state = CellState::Known;
                std::copy(std::begin(a.bits), std::end(a.bits), std::begin(c.bits));
                c.checksum = checksum_of(ty, c.bits);
              }
              if (c.readers & ~me) {
                // Another warp read this cell since the last barrier: it may have seen this store.
                for (int32_t r : ts.readers[a.elem]) {
                  if (r / 32 != w) det[static_cast<size_t>(r)] = 0;
                }
                race("race: " + here + " stores " + element_text(tile, a.elem) +
                     ", which another warp reads with no __syncthreads() between");
              }
              c.writers |= me;
              c.writer_step = exec;
            }
          } else {  // atomicAdd: every lane's add lands, in some order
            for (const LaneAccess& a : lanes) {
              Cell& c = ts.cells[static_cast<size_t>(a.elem)];
              refresh(c, phase);
              if ((c.writers | c.readers) & ~me) {
                race("race: " + here + " adds to " + element_text(tile, a.elem) +
                     ", which another warp loads or stores with no __syncthreads() between");
                for (int32_t r : ts.readers[a.elem]) {
                  if (r / 32 != w) det[static_cast<size_t>(r)] = 0;
                }
                c.state = CellState::Unknown;
              } else if (c.state == CellState::Uninit) {
                note(here + " adds to " + element_text(tile, a.elem) +
                     ", which no thread stored: shared memory starts uninitialized");
                c.state = CellState::Unknown;
              } else if (c.state == CellState::Known) {
                uint64_t& b = c.bits[0];
                const int64_t add = a.value * reps;
                if (ty.kind == detail::CompKind::F32 || ty.kind == detail::CompKind::F64) {
                  // Exact only while every partial sum is an integer the format holds exactly;
                  // beyond that the order of the adds changes the rounding.
                  const double limit =
                      ty.kind == detail::CompKind::F32 ? 16777216.0 : 9007199254740992.0;
                  const double now = detail::component_value(ty, b);
                  const double next = now + static_cast<double>(add);
                  if (std::fabs(now) + std::fabs(static_cast<double>(add)) > limit) {
                    c.state = CellState::Unknown;
                  } else {
                    b = detail::component_bits(ty, static_cast<int64_t>(next));
                  }
                } else {
                  b = detail::component_bits(ty,
                                             static_cast<int64_t>(b + static_cast<uint64_t>(add)));
                }
                c.checksum = checksum_of(ty, c.bits);
              }
              c.atomics |= me;
            }
          }
        }
      }
    }
    // One output per thread that ran: every thread, or the present warps' lanes in order.
    const size_t base = static_cast<size_t>(block_index * ref.threads);
    if (ref.lesson_thread.empty()) {
      std::copy(sum.begin(), sum.end(), ref.out.begin() + static_cast<std::ptrdiff_t>(base));
      std::copy(det.begin(), det.end(), ref.determined.begin() + static_cast<std::ptrdiff_t>(base));
    } else {
      for (size_t i = 0; i < ref.lesson_thread.size(); ++i) {
        const size_t t = static_cast<size_t>(ref.lesson_thread[i]);
        ref.out[base + i] = sum[t];
        ref.determined[base + i] = det[t];
      }
    }
    return true;
  }
};

}  // namespace

// [SECTION] evaluate_reference() =================================================================

ReferenceResult evaluate_reference(const Scenario& s, const ReferenceOptions& o) {
  ReferenceResult res;
  res.errors = check(s);
  if (!res.errors.empty()) return res;
  if (o.grid < 1 || o.reps < 1) {
    res.errors.push_back({"grid", 0, "the grid and the repeat count must be at least 1"});
    return res;
  }
  if (s.warps() > 32) {
    res.errors.push_back({"block", 0, "a block has at most 1024 threads (32 warps)"});
    return res;
  }
  std::vector<CStep> steps;
  for (const Step& st : s.steps) {
    CStep cs;
    cs.step = &st;
    if (st.is_memory()) {
      const TileDecl* tile = s.find_tile(st.tile);
      cs.tile = static_cast<int>(tile - s.tiles.data());
      cs.type = detail::type_info(tile->type().name);
      if (!cs.type) {
        res.errors.push_back({"tiles", 0, "no kernel code for element type '" + tile->elem + "'"});
        return res;
      }
      cs.subscripts = parse_subscripts(st.index, tile->name).subscripts;
      if (!st.guard.empty()) cs.guard = parse_expr(st.guard).expr;
      if (!st.value.empty()) cs.value = parse_expr(st.value).expr;
    }
    steps.push_back(std::move(cs));
  }

  if (o.replicas < 1 || o.replicas > 32) {
    res.errors.push_back({"replicas", 0, "the number of replicas must be 1 to 32"});
    return res;
  }
  Reference ref;
  ref.threads = s.threads();
  const uint32_t all = s.warps() >= 32 ? ~0u : (1u << s.warps()) - 1u;
  if ((o.warps != 0 && (o.warps & all) != all) || o.replicas > 1) {
    if ((o.warps & ~all) != 0) {
      res.errors.push_back({"warps", 0, "the warp mask names warps the block does not have"});
      return res;
    }
    const uint32_t present = o.warps == 0 ? all : o.warps;
    // Replicas repeat the present warps' lanes: copy r's lane i plays lesson_thread[i].
    for (int r = 0; r < o.replicas; ++r)
      for (int64_t t = 0; t < s.threads(); ++t)
        if ((present >> (t / 32)) & 1u) ref.lesson_thread.push_back(t);
    ref.threads = static_cast<int64_t>(ref.lesson_thread.size());
  }
  ref.grid = o.grid;
  ref.out.assign(static_cast<size_t>(ref.threads * o.grid), 0);
  ref.determined.assign(ref.out.size(), 0);
  ref.step_instructions.assign(s.steps.size(), 0);
  ref.step_warps.assign(s.steps.size(), 0);

  // Blocks run the same code on the same data unless an expression names blockIdx or gridDim:
  // then each block is evaluated on its own, else block 0 is copied.
  const bool per_block = mentions_block(s);
  const int64_t evaluated = per_block ? o.grid : 1;
  for (int64_t b = 0; b < evaluated; ++b) {
    BlockRun run{s, steps, o, b, b == 0, ref, res.errors};
    if (!run.run()) return res;
  }
  if (!per_block) {
    for (int64_t b = 1; b < o.grid; ++b) {
      std::copy_n(ref.out.begin(), ref.threads,
                  ref.out.begin() + static_cast<std::ptrdiff_t>(b * ref.threads));
      std::copy_n(ref.determined.begin(), ref.threads,
                  ref.determined.begin() + static_cast<std::ptrdiff_t>(b * ref.threads));
    }
  }
  res.ref = std::move(ref);
  return res;
}

// [SECTION] verify_output() ======================================================================

Verification verify_output(const Reference& ref, const std::vector<uint32_t>& got,
                           const int64_t block[3]) {
  Verification v;
  if (got.size() != ref.out.size()) {
    v.status = VerifyStatus::Mismatch;
    v.summary = "the kernel returned " + std::to_string(got.size()) + " values, expected " +
                std::to_string(ref.out.size());
    return v;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!ref.determined[i]) {
      ++v.unchecked;
      continue;
    }
    ++v.checked;
    if (got[i] == ref.out[i]) continue;
    ++v.mismatches;
    if (v.first.size() < 8) {
      Mismatch m;
      m.block = static_cast<int64_t>(i) / ref.threads;
      m.thread = static_cast<int64_t>(i) % ref.threads;
      if (!ref.lesson_thread.empty())
        m.thread = ref.lesson_thread[static_cast<size_t>(m.thread)];  // the lesson's thread
      m.x = m.thread % block[0];
      m.y = (m.thread / block[0]) % block[1];
      m.z = m.thread / (block[0] * block[1]);
      m.expected = ref.out[i];
      m.got = got[i];
      v.first.push_back(m);
    }
  }
  if (v.mismatches > 0) {
    v.status = VerifyStatus::Mismatch;
    const Mismatch& m = v.first.front();
    v.summary = std::to_string(v.mismatches) + " of " + std::to_string(v.checked) +
                " outputs differ from the CPU evaluation; first: block " + std::to_string(m.block) +
                " thread (" + std::to_string(m.x) + "," + std::to_string(m.y) + "," +
                std::to_string(m.z) + "): expected " + std::to_string(m.expected) + ", got " +
                std::to_string(m.got);
  } else if (ref.race_count > 0) {
    v.status = VerifyStatus::Race;
    // No "race: " prefix: the status names it, and the CLI prints "race: <summary>".
    v.summary = std::to_string(v.unchecked) +
                " outputs depend on which warp runs first (a data race: a missing "
                "__syncthreads()) and were not compared; the other " +
                std::to_string(v.checked) + " match the CPU";
  } else {
    v.status = VerifyStatus::Verified;
    v.summary = "all " + std::to_string(v.checked) + " outputs match the CPU evaluation";
    if (v.unchecked > 0)
      v.summary += " (" + std::to_string(v.unchecked) +
                   " not compared: they read uninitialized shared memory or an undefined winner)";
  }
  return v;
}

}  // namespace bankviz
