// reference.cpp: the CPU evaluation of the generated kernel (reference.h), and verification.
//
// [SECTION] Shared-memory cells
// [SECTION] One block
// [SECTION] evaluate_reference()
// [SECTION] verify_output()
//
// Nothing here evaluates a thread: the trace (core/trace.h) says what every lane touches and
// stores, and the hazard model (core/hazard.h) which of those accesses race; their results are
// excluded from the comparison, so a run reports exactly the races the analysis reports.
#include "bankviz/reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "bankviz/hazard.h"
#include "bankviz/trace.h"
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

// [SECTION] Shared-memory cells ==================================================================

enum class CellState : uint8_t { Uninit, Known, Unknown };

struct Cell {
  CellState state = CellState::Uninit;
  uint64_t bits[4] = {0, 0, 0, 0};  // per component
  uint32_t checksum = 0;            // what a load adds to the thread's sum
};

uint32_t checksum_of(const ElemType& t, const uint64_t bits[4]) {
  uint32_t sum = 0;
  for (int i = 0; i < t.lanes; ++i) sum += detail::component_checksum(t, bits[i]);
  return sum;
}

// Component c of a stored vector holds value + c, computed as the kernel's `v + c` computes it
// (the trace has ruled out signed overflow).
Value component(Value v, int c) {
  return Value::of_unsigned(v.type, v.bits + static_cast<uint64_t>(c));
}

double as_double(Value v) {
  return ctype_signed(v.type) ? static_cast<double>(static_cast<int64_t>(v.bits))
                              : static_cast<double>(v.bits);
}

// The element a memory slot holds, for messages (TileDecl::element_at_slot: the swizzle as the
// tile applies it, on the offset or on the address, is its own inverse).
std::string slot_name(const TileDecl& tile, int64_t slot) {
  const int64_t e = tile.element_at_slot(slot);
  return e < 0 ? "slot " + std::to_string(slot) + " of " + tile.name : tile.element_name(e);
}

// [SECTION] One block ============================================================================

// atomicAdd(&cell, value) `reps` times on a known cell. A float's sum is exact only while every
// partial sum is an integer the format holds exactly; beyond that the order of the adds changes
// the rounding, and the cell becomes unknown. Integers wrap: the add converted to the element
// type, reps times.
void add_to(Cell& c, const ElemType& ty, const Value& value, int64_t reps) {
  uint64_t& b = c.bits[0];
  if (ty.comp_kind == CompKind::F32 || ty.comp_kind == CompKind::F64) {
    const double limit = ty.comp_kind == CompKind::F32 ? 16777216.0 : 9007199254740992.0;
    const double now = detail::component_value(ty, b);
    const double add = as_double(value) * static_cast<double>(reps);
    if (std::fabs(now) + std::fabs(add) > limit) {
      c.state = CellState::Unknown;
      return;
    }
    b = detail::component_bits(ty, Value::of(CType::LongLong, static_cast<int64_t>(now + add)));
  } else {
    const uint64_t add = detail::component_bits(ty, value) * static_cast<uint64_t>(reps);
    b = detail::component_bits(ty, Value{CType::ULongLong, b + add});
  }
  c.checksum = checksum_of(ty, c.bits);
}

// Runs one block's trace on the CPU: the values the loads see and each thread's checksum. What the
// hazard model flags as racing is left out of the comparison.
struct BlockRun {
  const Scenario& s;
  const ReferenceOptions& o;
  int64_t block_index = 0;
  bool record = false;  // block 0: record messages and instruction counts
  Reference& ref;
  std::vector<Diagnostic>& errors;

  // ldmatrix, stmatrix and cp.async: one warp's instruction over whole 16-bit rows or copies
  // (scenario.h). The fragment layout is PTX's for .m8n8.b16: lane t holds, of matrix m, row
  // t/4's halves 2(t%4) and 2(t%4)+1 (with .trans: rows 2(t%4) and 2(t%4)+1 of column t/4), the
  // row of matrix m given by lane 8m+r's address. A thread's checksum is a sum, so only which
  // elements a lane receives matters; where stmatrix puts each half is checked through later
  // loads of the tile.
  template <typename Note>
  void wide_step(const Step& st, const TileDecl& tile, const ElemType& ty, std::vector<Cell>& tc,
                 const WarpTrace& wt, uint32_t racing, size_t w, int64_t reps,
                 const std::string& here, std::vector<uint32_t>& sum, std::vector<uint8_t>& det,
                 Note&& note, const std::function<Value(int)>& value_of, bool measured) {
    auto slot = [&](int lane) { return tile.slot_of_byte(wt.byte[static_cast<size_t>(lane)]); };
    auto row_races = [&](int lane) { return ((racing >> lane) & 1u) != 0; };
    // Several lanes of one instruction writing different bits to one slot: an undefined winner.
    std::unordered_map<int64_t, uint64_t> written;
    auto write = [&](int64_t at, uint64_t bits, bool races) {
      Cell& c = tc[static_cast<size_t>(at)];
      auto [it, fresh] = written.emplace(at, bits);
      if (races || (!fresh && c.state == CellState::Unknown)) {
        c.state = CellState::Unknown;
      } else if (!fresh && it->second != bits) {
        c.state = CellState::Unknown;
        note(here + ": two lanes write different values to " + slot_name(tile, at) +
             "; which one lands is undefined");
      } else {
        c.state = CellState::Known;
        c.bits[0] = bits;
        c.bits[1] = c.bits[2] = c.bits[3] = 0;
        c.checksum = checksum_of(ty, c.bits);
      }
    };
    if (st.kind == StepKind::CpAsync) {
      // Each active lane copies its copy_bytes at byte chunk * copy_bytes of the input
      // (input_word()): its chunk is the step's source, or the thread's index (trace.h).
      const int eb = tile.elem_bytes(), cb = ty.comp_bytes();
      for (uint32_t m = wt.mask; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const int64_t t = wt.chunk[static_cast<size_t>(lane)];
        uint8_t bytes[16] = {};
        for (int k = 0; k < st.copy_bytes / 4; ++k) {
          const uint32_t word = input_word(t * (st.copy_bytes / 4) + k);
          for (int b = 0; b < 4; ++b) bytes[4 * k + b] = static_cast<uint8_t>(word >> (8 * b));
        }
        for (int j = 0; j < st.copy_bytes / eb; ++j) {
          const int64_t at = slot(lane) + j;
          Cell& c = tc[static_cast<size_t>(at)];
          uint64_t bits[4] = {0, 0, 0, 0};
          for (int comp = 0; comp < ty.lanes; ++comp)
            for (int b = 0; b < cb; ++b)
              bits[comp] |= uint64_t{bytes[j * eb + comp * cb + b]} << (8 * b);
          if (row_races(lane)) {
            c.state = CellState::Unknown;
            continue;
          }
          auto [it, fresh] = written.emplace(at, bits[0] ^ (bits[1] << 1) ^ (bits[2] << 2));
          if (!fresh && it->second != (bits[0] ^ (bits[1] << 1) ^ (bits[2] << 2))) {
            c.state = CellState::Unknown;
            note(here + ": two lanes copy different bytes into " + slot_name(tile, at) +
                 "; which one lands is undefined");
            continue;
          }
          if (!fresh && c.state == CellState::Unknown) continue;
          c.state = CellState::Known;
          std::copy(std::begin(bits), std::end(bits), std::begin(c.bits));
          c.checksum = checksum_of(ty, c.bits);
        }
      }
      return;
    }
    // The cell (slot) holding half h (0 low, 1 high) of matrix m in lane t's register.
    auto half_at = [&](int m, int t, int h, int* row_lane) {
      const int row = st.trans ? 2 * (t % 4) + h : t / 4;
      const int col = st.trans ? t / 4 : 2 * (t % 4) + h;
      *row_lane = 8 * m + row;
      return slot(*row_lane) + col;
    };
    for (int t = 0; t < kWarpSize; ++t) {
      const size_t tid = w * 32 + static_cast<size_t>(t);
      for (int m = 0; m < st.matrices; ++m) {
        for (int h = 0; h < 2; ++h) {
          int row_lane = 0;
          const int64_t at = half_at(m, t, h, &row_lane);
          if (st.kind == StepKind::StMatrix) {
            // Register m of lane t holds value + 2m (low half) and value + 2m + 1 (high).
            write(at, detail::component_bits(ty, component(value_of(t), 2 * m + h)),
                  row_races(row_lane));
            continue;
          }
          const Cell& c = tc[static_cast<size_t>(at)];
          if (row_races(row_lane) || c.state != CellState::Known) {
            det[tid] = 0;
            if (!row_races(row_lane) && c.state == CellState::Uninit)
              note(here + " reads " + slot_name(tile, at) +
                   ", which no thread stored: shared memory starts uninitialized");
          } else if (measured) {
            // The measured step adds each register as it is (codegen.h): half h at bit 16h.
            sum[tid] += (static_cast<uint32_t>(c.bits[0] & 0xffffu) << (16 * h)) *
                        static_cast<uint32_t>(reps);
          } else {
            sum[tid] += c.checksum * static_cast<uint32_t>(reps);
          }
        }
      }
    }
  }

  bool run() {
    TraceResult tr =
        o.lesson_grid > 0 ? trace(s, {0, o.lesson_grid}) : trace(s, {block_index, o.grid});
    if (!tr.trace) {
      errors = std::move(tr.errors);
      return false;
    }
    const Trace& t = *tr.trace;
    if (t.out_of_bounds > 0) {
      const Issue& first = t.issues.front();
      errors.push_back(
          {"steps[" + std::to_string(t.steps[static_cast<size_t>(first.step)].info.step) +
               "].index",
           0,
           first.message + "; on a GPU it would touch memory outside the tile, so the kernel is "
                           "not run"});
      return false;
    }
    const Hazards hz = find_hazards(s, t, o.warps);
    if (record) {
      ref.race_count = hz.racing_accesses;
      for (const Hazard& h : hz.examples) ref.races.push_back(h.message);  // every pair named
    }
    auto note = [&](std::string msg) {
      if (record && ref.notes.size() < kMaxMessages &&
          std::find(ref.notes.begin(), ref.notes.end(), msg) == ref.notes.end())
        ref.notes.push_back(std::move(msg));
    };
    auto present = [&](size_t w) { return o.warps == 0 || ((o.warps >> w) & 1u) != 0; };

    const int64_t threads = s.threads();
    std::vector<std::vector<Cell>> cells(s.tiles.size());
    for (size_t i = 0; i < s.tiles.size(); ++i)
      cells[i].resize(static_cast<size_t>(s.tiles[i].storage_elements()));  // slots
    std::vector<uint32_t> sum(static_cast<size_t>(threads), 0);
    std::vector<uint8_t> det(static_cast<size_t>(threads), 1);

    for (size_t exec = 0; exec < t.steps.size(); ++exec) {
      const TraceStep& ts = t.steps[exec];
      if (ts.info.kind == StepKind::Sync) continue;
      const size_t si = static_cast<size_t>(ts.info.step);
      const bool measured = o.measure == ts.info.step;
      const int64_t reps = measured ? o.reps : 1;
      const TileDecl& tile = s.tiles[static_cast<size_t>(ts.info.tile)];
      const ElemType& ty = tile.type();
      std::vector<Cell>& tc = cells[static_cast<size_t>(ts.info.tile)];
      for (size_t w = 0; w < ts.warps.size(); ++w) {
        const WarpTrace& wt = ts.warps[w];
        if (!present(w) || wt.mask == 0) continue;  // exposed mode: this warp did not run
        if (record) {
          ref.step_warps[si] |= 1u << w;
          ref.step_instructions[si] += reps;
          const StepAccess how = s.steps[si].info().access;
          (how == StepAccess::Read  ? ref.load_instructions
           : how == StepAccess::Add ? ref.atomic_instructions
                                    : ref.store_instructions) += reps;
        }
        const uint32_t racing = hz.racing[exec].empty() ? 0 : hz.racing[exec][w];
        const std::string here = "step " + std::to_string(si) + " (" + s.steps[si].kind_text() +
                                 " " + s.steps[si].index + ") in warp " + std::to_string(w);
        if (s.steps[si].info().width != StepWidth::Element) {  // whole rows or copies
          wide_step(
              s.steps[si], tile, ty, tc, wt, racing, w, reps, here, sum, det, note,
              [&](int lane) { return ts.value(w, static_cast<size_t>(lane)); }, measured);
          continue;
        }
        for (uint32_t m = wt.mask; m; m &= m - 1) {
          const int lane = __builtin_ctz(m);
          const bool races = (racing >> lane) & 1u;
          const int64_t elem = wt.element[static_cast<size_t>(lane)];
          const size_t tid = w * 32 + static_cast<size_t>(lane);
          Cell& c = tc[static_cast<size_t>(tile.slot_of_byte(wt.byte[static_cast<size_t>(lane)]))];
          const Value value = ts.value(w, static_cast<size_t>(lane));
          switch (ts.info.kind) {
            case StepKind::Load:
              if (races || c.state != CellState::Known) {
                det[tid] = 0;
                if (!races && c.state == CellState::Uninit)
                  note(here + " reads " + tile.element_name(elem) +
                       ", which no thread stored: shared memory starts uninitialized");
              } else if (measured && ty.sign_extends()) {
                // Exposed mode's measured load adds a signed char's or short's bits as loaded
                // (codegen.cpp, ld_volatile_bits).
                sum[tid] += static_cast<uint32_t>(c.bits[0] & ((1u << (8 * ty.bytes)) - 1u)) *
                            static_cast<uint32_t>(reps);
              } else {
                sum[tid] += c.checksum * static_cast<uint32_t>(reps);
              }
              break;
            case StepKind::Store: {
              uint64_t bits[4] = {0, 0, 0, 0};
              for (int k = 0; k < ty.lanes; ++k)
                bits[k] = detail::component_bits(ty, component(value, k));
              // Lanes of one warp storing different values to one element: one of them wins,
              // which one is undefined.
              bool undefined_winner = false;
              for (uint32_t e = wt.mask & ((1u << lane) - 1); e; e &= e - 1) {
                const int other = __builtin_ctz(e);
                if (wt.byte[static_cast<size_t>(other)] == wt.byte[static_cast<size_t>(lane)] &&
                    wt.value[static_cast<size_t>(other)] != value.bits)
                  undefined_winner = true;
              }
              if (races) {
                c.state = CellState::Unknown;
              } else if (undefined_winner) {
                c.state = CellState::Unknown;
                note(here + ": several lanes store different values to " + tile.element_name(elem) +
                     "; which one lands is undefined");
              } else {
                c.state = CellState::Known;
                std::copy(std::begin(bits), std::end(bits), std::begin(c.bits));
                c.checksum = checksum_of(ty, c.bits);
              }
              break;
            }
            default:  // atomicAdd: every lane's add lands, in some order
              if (races) {
                c.state = CellState::Unknown;
              } else if (c.state == CellState::Uninit) {
                note(here + " adds to " + tile.element_name(elem) +
                     ", which no thread stored: shared memory starts uninitialized");
                c.state = CellState::Unknown;
              } else if (c.state == CellState::Known) {
                add_to(c, ty, value, reps);
              }
              break;
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

int64_t kernel_input_words(const Scenario& s) {
  if (std::none_of(s.steps.begin(), s.steps.end(),
                   [](const Step& st) { return st.info().from_global; }))
    return 0;
  // A step with a "source" may copy any chunk of kSourceBytes; else 16 bytes per thread.
  const bool sourced = std::any_of(s.steps.begin(), s.steps.end(),
                                   [](const Step& st) { return !st.source.empty(); });
  return sourced ? kSourceBytes / 4 : s.threads() * 4;
}

std::vector<uint32_t> kernel_input(const Scenario& s) {
  std::vector<uint32_t> in;
  const int64_t words = kernel_input_words(s);
  in.resize(static_cast<size_t>(words));
  for (int64_t i = 0; i < words; ++i) in[static_cast<size_t>(i)] = input_word(i);
  return in;
}

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
  const bool per_block = uses_block_index(s) && o.lesson_grid == 0;
  const int64_t evaluated = per_block ? o.grid : 1;
  for (int64_t b = 0; b < evaluated; ++b) {
    BlockRun run{s, o, b, b == 0, ref, res.errors};
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
