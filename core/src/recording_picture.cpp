// recording_picture.cpp: a recording as a scenario and a trace (recording.h recorded_picture()):
// the recorded arrays as tiles, the recorded instructions as executed steps whose lanes' bytes are
// the recorded addresses. analysis.h serves and checks the trace; nothing here counts a bank.
#include <algorithm>
#include <map>
#include <tuple>

#include "bankviz/recording.h"

namespace bankviz {

namespace {

// The element type of an array no declaration describes: an unsigned type of the width it was
// accessed with.
const char* width_type(int width) {
  switch (width) {
    case 1:
      return "unsigned char";
    case 2:
      return "unsigned short";
    case 8:
      return "unsigned long long";
    case 16:
      return "uint4";
    default:
      return "unsigned int";
  }
}

// The recorded array holding byte `address` (the first, where extern arrays share a place), or -1.
int array_at(const Recording& r, uint32_t address) {
  for (size_t i = 0; i < r.arrays.size(); ++i) {
    const RecordedArray& a = r.arrays[i];
    if (address >= a.base && address - a.base < std::max<uint32_t>(a.bytes, 1))
      return static_cast<int>(i);
  }
  return -1;
}

// Recorded array `a`, accessed `width` bytes at a time, as a tile at its recorded base: its
// declaration where one of that name has that element size (and, static, that size), else one
// dimension of `width`-byte elements.
TileDecl array_tile(const RecordedArray& a, int width, const std::vector<TileDecl>& declared) {
  TileDecl t;
  for (const TileDecl& d : declared) {
    if (d.name != a.name || d.elem_bytes() != width) continue;
    if (a.dynamic && d.dynamic) {
      t = d;
      t.dims = {std::max<int64_t>(1, a.bytes / width)};
      t.pad = 0;
    } else if (!a.dynamic && !d.dynamic && d.bytes() == a.bytes) {
      t = d;
    } else {
      continue;
    }
    t.base = a.base;
    return t;
  }
  t.name = a.name;
  t.elem = width_type(width);
  t.dims = {std::max<int64_t>(1, a.bytes / width)};
  t.pad = 0;
  t.dynamic = a.dynamic;
  t.base = a.base;
  return t;
}

// The array every active lane of `ins` reaches, or -1 with *why: the one its accesses named where
// the recording says (RecordedInstruction::array), else the first holding the byte; extern arrays
// that share that place are named in *shared ("a, b"), since the recording does not say which.
int instruction_array(const Recording& r, const RecordedInstruction& ins, std::string* why,
                      std::string* shared) {
  int found = -1;
  for (const RecordedWarp& w : ins.warps)
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (!(w.access.mask >> lane & 1u)) continue;
      const uint32_t at = w.access.addr[lane];
      int a = ins.array;
      if (a >= 0 && static_cast<size_t>(a) < r.arrays.size()) {
        const RecordedArray& n = r.arrays[static_cast<size_t>(a)];
        if (at < n.base || at - n.base >= std::max<uint32_t>(n.bytes, 1)) a = -1;
      } else {
        a = array_at(r, at);
        for (size_t o = 0; a >= 0 && o < r.arrays.size(); ++o) {
          const RecordedArray& n = r.arrays[o];
          if (static_cast<int>(o) == a || at < n.base ||
              at - n.base >= std::max<uint32_t>(n.bytes, 1))
            continue;
          const std::string pair = r.arrays[static_cast<size_t>(a)].name + " and " + n.name;
          if (shared->find(pair) == std::string::npos)
            *shared += (shared->empty() ? "" : "; ") + pair;
        }
      }
      if (a < 0 || (found >= 0 && a != found)) {
        *why = "line " + std::to_string(ins.line) + ": one instruction reaches " +
               (a < 0 ? std::string("a byte outside the recorded array it names")
                      : r.arrays[static_cast<size_t>(found)].name + " and " +
                            r.arrays[static_cast<size_t>(a)].name) +
               ", which one step of a picture cannot show";
        return -1;
      }
      found = a;
    }
  if (found < 0) *why = "line " + std::to_string(ins.line) + ": an instruction with no lane";
  return found;
}

StepKind step_kind(RecordedKind k) {
  return k == RecordedKind::Load    ? StepKind::Load
         : k == RecordedKind::Store ? StepKind::Store
                                    : StepKind::Atomic;
}

// The scenario's tiles: the arrays `chosen` reaches, each with the one width it is accessed with.
// tile_of[array] = index in s.tiles (or -1); false with *why.
bool picture_tiles(const Recording& r, const std::vector<const RecordedInstruction*>& chosen,
                   const std::vector<int>& array_of, const std::vector<TileDecl>& declared,
                   Scenario& s, std::vector<int>& tile_of, std::string* why) {
  std::vector<int> width(r.arrays.size(), 0);
  for (size_t i = 0; i < chosen.size(); ++i) {
    int& w = width[static_cast<size_t>(array_of[i])];
    if (w != 0 && w != chosen[i]->width) {
      *why = r.arrays[static_cast<size_t>(array_of[i])].name + " is accessed " + std::to_string(w) +
             " and " + std::to_string(chosen[i]->width) +
             " bytes at a time: a tile of a picture has one element size";
      return false;
    }
    w = chosen[i]->width;
  }
  s.tiles.clear();
  tile_of.assign(r.arrays.size(), -1);
  for (size_t a = 0; a < r.arrays.size(); ++a) {
    if (width[a] == 0) continue;
    if (s.tiles.size() >= kMaxTiles) {
      *why = "the picture reaches more than " + std::to_string(kMaxTiles) + " arrays";
      return false;
    }
    tile_of[a] = static_cast<int>(s.tiles.size());
    s.tiles.push_back(array_tile(r.arrays[a], width[a], declared));
  }
  return true;
}

// The lanes of one recorded instruction as one executed step's warps (every warp of the block).
TraceStep traced_instruction(const RecordedInstruction& ins, const TileDecl& tile, int64_t warps) {
  TraceStep ts;
  ts.value_type = ins.width >= 8 ? CType::ULongLong : CType::UInt;
  ts.warps.resize(static_cast<size_t>(warps));
  for (WarpTrace& wt : ts.warps) wt.element.fill(-1);
  for (const RecordedWarp& w : ins.warps) {
    if (w.warp >= ts.warps.size()) continue;  // parse_recording() keeps threads in the block
    WarpTrace& wt = ts.warps[w.warp];
    wt.mask = w.access.mask;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (!(wt.mask >> lane & 1u)) continue;
      wt.byte[lane] = w.access.addr[lane];
      wt.element[lane] = static_cast<int32_t>(
          (static_cast<int64_t>(w.access.addr[lane]) - tile.base) / tile.elem_bytes());
      wt.value[lane] = w.value[lane];
    }
  }
  return ts;
}

}  // namespace

std::optional<RecordedPicture> recorded_picture(const Recording& r,
                                                const std::vector<RecordedInstruction>& ins,
                                                const std::vector<TileDecl>& declared,
                                                uint32_t line, const Arch& arch, std::string* why) {
  RecordedPicture p;
  std::vector<const RecordedInstruction*> chosen;
  std::vector<int> array_of;
  for (const RecordedInstruction& i : ins) {
    if (line != 0 && i.line != line) continue;
    const int a = instruction_array(r, i, why, &p.shared_place);
    if (a < 0) return std::nullopt;
    chosen.push_back(&i);
    array_of.push_back(a);
  }
  if (chosen.empty()) {
    *why = line != 0 ? "the recording has no shared-memory access on line " + std::to_string(line)
                     : std::string("the recording has no shared-memory access");
    return std::nullopt;
  }
  Scenario& s = p.scenario;
  s.name = "recorded";
  s.arch = arch.id;
  for (int d = 0; d < 3; ++d) s.block[d] = r.block[d];
  s.grid = 1;
  s.steps.clear();
  std::vector<int> tile_of;
  if (!picture_tiles(r, chosen, array_of, declared, s, tile_of, why)) return std::nullopt;
  const int64_t executed_bound = std::min(kMaxExecutedSteps, kMaxThreadSteps / s.threads());
  // (line, kind, width, tile, op, slot) -> scenario step; a sync step once, where first needed.
  std::map<std::tuple<uint32_t, int, int, int, int, uint32_t>, int> step_of;
  std::vector<int64_t> runs;  // executions per scenario step
  int sync_step = -1;
  uint32_t phase = chosen.front()->phase;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const RecordedInstruction& in = *chosen[i];
    const int tile = tile_of[static_cast<size_t>(array_of[i])];
    const TileDecl& td = s.tiles[static_cast<size_t>(tile)];
    if (static_cast<int64_t>(p.trace.steps.size()) + 2 > executed_bound) {
      *why = (line != 0 ? "line " + std::to_string(line) : std::string("the kernel")) +
             " runs more warp instructions than one picture holds (" +
             std::to_string(executed_bound) + " steps of " + std::to_string(s.threads()) +
             " threads)";
      return std::nullopt;
    }
    if (in.phase != phase) {
      phase = in.phase;
      if (sync_step < 0) {
        sync_step = static_cast<int>(s.steps.size());
        Step st;
        st.kind = StepKind::Sync;
        s.steps.push_back(st);
        p.step_lines.push_back(0);
        runs.push_back(0);
      }
      TraceStep sync;
      sync.info = {sync_step, runs[static_cast<size_t>(sync_step)]++, StepKind::Sync, -1,
                   "__syncthreads()"};
      p.trace.steps.push_back(std::move(sync));
    }
    const Op op = in.warps.empty() ? Op::Load : in.warps.front().op;
    auto [it, fresh] = step_of.emplace(std::make_tuple(in.line, static_cast<int>(in.kind), in.width,
                                                       tile, static_cast<int>(op), in.slot),
                                       static_cast<int>(s.steps.size()));
    if (fresh) {
      Step st;
      st.kind = step_kind(in.kind);
      st.tile = td.name;
      st.index = td.name + std::string(kRecordedIndex) + std::to_string(in.line) +
                 (in.slot > 0 ? ", access " + std::to_string(in.slot + 1) : std::string()) + "]";
      // compiled_op() (analysis.h) makes ATOMS.POPC.INC of an atomicAdd of the constant 1, as
      // recorded_instructions() did for this one.
      if (st.kind == StepKind::Atomic) st.value = op == Op::AtomicInc ? "1" : "(recorded)";
      if (st.kind == StepKind::Store) st.value = "(recorded)";
      st.label = st.kind_text() + " " + td.name + ", line " + std::to_string(in.line);
      // One of several accesses of the line (cache[i] += cache[i + s]'s second load): which.
      if (in.slot > 0) st.label += ", access " + std::to_string(in.slot + 1);
      s.steps.push_back(std::move(st));
      p.step_lines.push_back(in.line);
      runs.push_back(0);
    }
    TraceStep ts = traced_instruction(in, td, s.warps());
    const int step = it->second;
    ts.info = {step, runs[static_cast<size_t>(step)]++, step_kind(in.kind), tile,
               s.steps[static_cast<size_t>(step)].label};
    p.trace.steps.push_back(std::move(ts));
  }
  // A step run more than once: each execution named by its turn ("(3 of 8)").
  for (TraceStep& ts : p.trace.steps) {
    const int64_t n = runs[static_cast<size_t>(ts.info.step)];
    if (n > 1 && ts.info.kind != StepKind::Sync)
      ts.info.label +=
          " (" + std::to_string(ts.info.iteration + 1) + " of " + std::to_string(n) + ")";
  }
  return p;
}

}  // namespace bankviz
