// recording.cpp: a recording parsed, and served warp by warp (recording.h).
#include "bankviz/recording.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace bankviz {

const char* recorded_kind_name(RecordedKind k) {
  switch (k) {
    case RecordedKind::Load:
      return "ld";
    case RecordedKind::Store:
      return "st";
    case RecordedKind::AtomicAdd:
    case RecordedKind::Atomic:
    case RecordedKind::AtomicCas:
      return "atom";
  }
  return "?";
}

namespace {

std::vector<std::string_view> words(std::string_view l) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < l.size() && out.size() < 9) {
    while (i < l.size() && l[i] == ' ') ++i;
    const size_t b = i;
    while (i < l.size() && l[i] != ' ') ++i;
    if (i > b) out.push_back(l.substr(b, i - b));
  }
  return out;
}

bool number(std::string_view w, uint64_t max, uint64_t* v) {
  uint64_t x = 0;
  const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), x);
  if (ec != std::errc() || p != w.data() + w.size() || x > max) return false;
  *v = x;
  return true;
}

// An access: 6 words, 7 with the index of the array it named (one of the `arrays` listed), 8
// with the subscript it was made through (its site).
bool access_line(const std::vector<std::string_view>& w, uint32_t phase, size_t arrays,
                 RecordedAccess* a) {
  uint64_t t = 0, line = 0, width = 0, addr = 0, value = 0, array = 0, site = 0;
  if (w.size() >= 7 && (arrays == 0 || !number(w[6], arrays - 1, &array))) return false;
  if (w.size() == 8 && !number(w[7], UINT32_MAX, &site)) return false;
  if ((w.size() < 6 || w.size() > 8) || w[2].size() != 1 || !number(w[0], 1023, &t) ||
      !number(w[1], UINT32_MAX, &line) || !number(w[3], 16, &width) ||
      !number(w[4], kMaxSharedBytes, &addr) || !number(w[5], UINT64_MAX, &value))
    return false;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return false;
  const char k = w[2][0];
  if (k != 'L' && k != 'S' && k != 'A' && k != 'X' && k != 'C') return false;
  a->thread = static_cast<uint32_t>(t);
  a->line = static_cast<uint32_t>(line);
  a->kind = k == 'L'   ? RecordedKind::Load
            : k == 'S' ? RecordedKind::Store
            : k == 'A' ? RecordedKind::AtomicAdd
            : k == 'C' ? RecordedKind::AtomicCas
                       : RecordedKind::Atomic;
  a->width = static_cast<uint8_t>(width);
  a->address = static_cast<uint32_t>(addr);
  a->value = value;
  a->phase = phase;
  a->array = w.size() >= 7 ? static_cast<int32_t>(array) : -1;
  a->site = static_cast<uint32_t>(site);
  return true;
}

// Each access's slot (RecordedInstruction::slot). An access whose subscript is said (its site):
// the site's rank among the sites of its line made with its kind, width and array (the order of
// the subscripts in the source: `x += s[a + k] * s[b + k]`'s two loads are slots 0 and 1 however
// often the loop runs them). Without a site: a thread's consecutive accesses on one line in one
// phase are a run; the run's shortest repeating period of (kind, width, array) is one execution
// of the line; an access's slot is its number among the accesses of its kind, width and array
// before it in its period. A run that repeats no period of up to 64 accesses is taken as one
// access executed again and again (every slot 0), which bounds the work.
std::vector<uint32_t> access_slots(const Recording& r) {
  std::vector<uint32_t> slot(r.accesses.size(), 0);
  {
    using Key = std::tuple<uint32_t, int, int, int32_t>;  // line, kind, width, array
    std::map<Key, std::vector<uint32_t>> sites;
    auto key = [](const RecordedAccess& a) {
      return Key{a.line, static_cast<int>(a.kind), a.width, a.array};
    };
    for (const RecordedAccess& a : r.accesses)
      if (a.site != 0) {
        std::vector<uint32_t>& v = sites[key(a)];
        if (std::find(v.begin(), v.end(), a.site) == v.end()) v.push_back(a.site);
      }
    for (auto& [k, v] : sites) std::sort(v.begin(), v.end());
    for (size_t i = 0; i < r.accesses.size(); ++i)
      if (r.accesses[i].site != 0) {
        const std::vector<uint32_t>& v = sites[key(r.accesses[i])];
        slot[i] = static_cast<uint32_t>(std::lower_bound(v.begin(), v.end(), r.accesses[i].site) -
                                        v.begin());
      }
  }
  std::map<uint32_t, std::vector<size_t>> run;  // thread -> its current run (access indexes)
  auto same = [&](size_t a, size_t b) {
    const RecordedAccess &x = r.accesses[a], &y = r.accesses[b];
    return x.kind == y.kind && x.width == y.width && x.array == y.array;
  };
  auto close = [&](std::vector<size_t>& v) {
    size_t p = 1;
    for (; p < v.size() && p <= 64; ++p) {
      bool repeats = true;
      for (size_t i = p; i < v.size() && repeats; ++i) repeats = same(v[i], v[i - p]);
      if (repeats) break;
    }
    if (p > 64) p = 1;
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t j = i - i % p; j < i; ++j) slot[v[i]] += same(v[j], v[i]);
    v.clear();
  };
  for (size_t i = 0; i < r.accesses.size(); ++i) {
    if (r.accesses[i].site != 0) continue;  // its slot is its site's
    std::vector<size_t>& v = run[r.accesses[i].thread];
    if (!v.empty() && (r.accesses[v.back()].line != r.accesses[i].line ||
                       r.accesses[v.back()].phase != r.accesses[i].phase))
      close(v);
    v.push_back(i);
  }
  for (auto& [thread, v] : run) close(v);
  return slot;
}

}  // namespace

std::optional<Recording> parse_recording(std::string_view text, std::string* why) {
  Recording r;
  bool have_block = false, ended = false;
  size_t b = 0;
  for (uint64_t n = 1; b < text.size(); ++n) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    const std::string_view l = text.substr(b, e - b);
    b = e + 1;
    const std::vector<std::string_view> w = words(l);
    const std::string at = "recording line " + std::to_string(n);
    if (w.empty()) continue;
    if (ended) {
      *why = at + ": text after the end";
      return std::nullopt;
    }
    uint64_t x[4] = {};
    if (w[0] == "block") {
      if (have_block || w.size() != 4 || !number(w[1], 1024, &x[0]) || !number(w[2], 1024, &x[1]) ||
          !number(w[3], 64, &x[2]) || x[0] * x[1] * x[2] == 0 || x[0] * x[1] * x[2] > 1024) {
        *why = at + ": a bad block";
        return std::nullopt;
      }
      for (int d = 0; d < 3; ++d) r.block[d] = static_cast<int64_t>(x[d]);
      have_block = true;
    } else if (w[0] == "array") {
      if (w.size() < 5 || w.size() > 6 || (w.size() == 6 && w[5] != "extern") ||
          !number(w[2], UINT32_MAX, &x[0]) || !number(w[3], kMaxSharedBytes, &x[1]) ||
          !number(w[4], kMaxSharedBytes, &x[2]) || x[1] + x[2] > kMaxSharedBytes ||
          r.arrays.size() >= 4096 || w[1].size() > 256) {
        *why = at + ": a bad array";
        return std::nullopt;
      }
      r.arrays.push_back({std::string(w[1]), static_cast<uint32_t>(x[0]),
                          static_cast<uint32_t>(x[1]), static_cast<uint32_t>(x[2]), w.size() == 6});
    } else if (w[0] == "sync" && w.size() == 1) {
      ++r.phases;
    } else if (w[0] == "end" && w.size() == 2) {
      if (!number(w[1], UINT64_MAX, &x[0]) || x[0] != r.accesses.size()) {
        *why = at + ": the end counts " + std::string(w[1]) + " accesses, " +
               std::to_string(r.accesses.size()) + " were recorded";
        return std::nullopt;
      }
      ended = true;
    } else {
      RecordedAccess a;
      if (!have_block || !access_line(w, r.phases - 1, r.arrays.size(), &a) ||
          a.thread >= r.block[0] * r.block[1] * r.block[2]) {
        *why = at + ": not an access of the block: '" + std::string(l.substr(0, 80)) + "'";
        return std::nullopt;
      }
      if (r.accesses.size() >= kMaxRecordedAccesses) {
        *why =
            "the recording holds more than " + std::to_string(kMaxRecordedAccesses) + " accesses";
        return std::nullopt;
      }
      r.accesses.push_back(a);
    }
  }
  if (!ended) {
    *why = "the recording stops before its end (the kernel did not finish)";
    return std::nullopt;
  }
  return r;
}

std::string recording_text(const Recording& r) {
  std::string out = "block " + std::to_string(r.block[0]) + ' ' + std::to_string(r.block[1]) + ' ' +
                    std::to_string(r.block[2]) + '\n';
  for (const RecordedArray& a : r.arrays)
    out += "array " + a.name + ' ' + std::to_string(a.line) + ' ' + std::to_string(a.base) + ' ' +
           std::to_string(a.bytes) + (a.dynamic ? " extern\n" : "\n");
  uint32_t phase = 0;
  constexpr char kKind[] = {'L', 'S', 'A', 'X', 'C'};
  for (const RecordedAccess& a : r.accesses) {
    for (; phase < a.phase; ++phase) out += "sync\n";
    out += std::to_string(a.thread) + ' ' + std::to_string(a.line) + ' ' +
           kKind[static_cast<int>(a.kind)] + ' ' + std::to_string(a.width) + ' ' +
           std::to_string(a.address) + ' ' + std::to_string(a.value) +
           (a.array >= 0 ? ' ' + std::to_string(a.array) : std::string()) +
           (a.array >= 0 && a.site != 0 ? ' ' + std::to_string(a.site) : std::string()) + '\n';
  }
  for (; phase + 1 < r.phases; ++phase) out += "sync\n";
  return out + "end " + std::to_string(r.accesses.size()) + '\n';
}

std::optional<std::vector<RecordedInstruction>> recorded_instructions(const Recording& r,
                                                                      const Arch& arch,
                                                                      std::string* why) {
  // (phase, line, kind, width, n): the n-th such access of a thread is one instruction.
  using Key = std::tuple<uint32_t, uint32_t, int, int, uint32_t>;
  std::map<std::pair<uint32_t, uint32_t>, std::map<std::tuple<uint32_t, int, int>, uint32_t>>
      seen;  // (phase, thread) -> (line, kind, width) -> count
  std::map<Key, size_t> index;
  std::vector<RecordedInstruction> out;
  std::vector<std::map<uint32_t, size_t>> warp_of;  // [instruction] warp -> index in .warps
  std::vector<std::vector<uint64_t>> values;        // atomics: operands per instruction
  const std::vector<uint32_t> slots = access_slots(r);
  for (size_t ai = 0; ai < r.accesses.size(); ++ai) {
    const RecordedAccess& a = r.accesses[ai];
    const int kind = static_cast<int>(a.kind);
    uint32_t& n = seen[{a.phase, a.thread}][{a.line, kind, a.width}];
    const Key key{a.phase, a.line, kind, a.width, n++};
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      RecordedInstruction ins;
      ins.line = a.line;
      ins.phase = a.phase;
      ins.kind = a.kind;
      ins.width = a.width;
      ins.slot = slots[ai];
      ins.array = a.array;
      out.push_back(std::move(ins));
      warp_of.emplace_back();
      values.emplace_back();
    }
    RecordedInstruction& ins = out[it->second];
    if (ins.array != a.array) ins.array = -1;
    const uint32_t warp = a.thread / kWarpSize, lane = a.thread % kWarpSize;
    auto [w, wfresh] = warp_of[it->second].emplace(warp, ins.warps.size());
    if (wfresh) {
      RecordedWarp rw;
      rw.warp = warp;
      rw.access.width = a.width;
      rw.access.mask = 0;
      ins.warps.push_back(rw);
    }
    RecordedWarp& rw = ins.warps[w->second];
    rw.access.mask |= 1u << lane;
    rw.access.addr[lane] = a.address;
    rw.value[lane] = a.value;
    if (a.kind == RecordedKind::AtomicAdd || a.kind == RecordedKind::Atomic ||
        a.kind == RecordedKind::AtomicCas)
      values[it->second].push_back(a.kind == RecordedKind::AtomicAdd ? a.value : ~uint64_t{0});
  }
  for (size_t i = 0; i < out.size(); ++i) {
    RecordedInstruction& ins = out[i];
    // atomicAdd of 1 to a 32-bit word on every lane: ATOMS.POPC.INC on Hopper, as compiled_op()
    // decides for a scenario (analysis.h); other atomics are Op::Atomic. atomicCAS (kept apart
    // as RecordedKind::AtomicCas: ATOMS.CAS, which the H100 costs two wavefronts a pass, serve()'s
    // Op::AtomicCas) is served as Op::Atomic here so that the line's figures and its picture
    // agree: the picture is a scenario, and no scenario step says CAS yet (a step kind needs a
    // CPU reference that decides which lane's compare wins). The profile says why the line's
    // hardware figures are twice these.
    const bool inc =
        ins.kind == RecordedKind::AtomicAdd && ins.width == 4 && arch.measured &&
        std::all_of(values[i].begin(), values[i].end(), [](uint64_t v) { return v == 1; });
    const Op op = ins.kind == RecordedKind::Load    ? Op::Load
                  : ins.kind == RecordedKind::Store ? Op::Store
                  : inc                             ? Op::AtomicInc
                                                    : Op::Atomic;
    std::sort(ins.warps.begin(), ins.warps.end(),
              [](const RecordedWarp& a, const RecordedWarp& b) { return a.warp < b.warp; });
    for (RecordedWarp& w : ins.warps) {
      w.op = op;
      if (std::string bad = validate(op, w.access); !bad.empty()) {
        *why = "line " + std::to_string(ins.line) + ", warp " + std::to_string(w.warp) + ": " + bad;
        return std::nullopt;
      }
      w.served = serve(arch, op, w.access);
    }
  }
  return out;
}

std::vector<RecordedLine> recorded_lines(const std::vector<RecordedInstruction>& instructions) {
  std::map<uint32_t, RecordedLine> by_line;
  for (const RecordedInstruction& ins : instructions) {
    RecordedLine& l = by_line[ins.line];
    l.line = ins.line;
    const std::string op = recorded_kind_name(ins.kind);
    if ((',' + l.ops + ',').find(',' + op + ',') == std::string::npos)
      l.ops += (l.ops.empty() ? "" : ",") + op;
    for (const RecordedWarp& w : ins.warps) {
      l.requests += 1;
      l.wavefronts += w.served.wavefronts;
      l.ideal += w.served.ideal;
    }
  }
  std::vector<RecordedLine> out;
  for (auto& [line, l] : by_line) out.push_back(std::move(l));
  return out;
}

}  // namespace bankviz
