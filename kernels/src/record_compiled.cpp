// record_compiled.cpp: a recorded line served by the instructions the compiler emitted for it
// (record.h recorded_lines_as_compiled()).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankviz/compiled.h"
#include "bankviz/record.h"

namespace bankviz {

namespace {

// The line an instruction is counted on: its own (an inlined helper's, where the recording
// names the access too), else its call site's.
uint32_t counted_line(const SassInstruction& i) {
  return i.own_line != 0 ? i.own_line : i.line;
}

bool is_load(const std::string& op) {
  return op.rfind("LDS", 0) == 0 && op.rfind("LDSM", 0) != 0;
}
bool is_store(const std::string& op) {
  return op.rfind("STS", 0) == 0 && op.rfind("STSM", 0) != 0;
}

// A line's shared instructions in the listing (pads left out): how many, their opcodes, whether
// any is in a loop (a warp may issue it many times).
struct LineSass {
  int count = 0;
  bool loop = false;
  bool guarded = true;  // every one predicated (not @!PT), none a branch jumps over
  bool plain = true;    // none predicated, none a branch jumps over: each warp reaching the line
                        // issues every one
  std::set<std::string> ops;
  std::string named() const {
    std::string s = std::to_string(count) + " shared instruction" + (count == 1 ? "" : "s") + " (";
    for (const std::string& o : ops) s += (s.back() == '(' ? "" : ", ") + o;
    return s + ")";
  }
};

using WarpsAt = std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>>;  // (line, phase)

bool is_barrier(const SassInstruction& i) {  // __syncthreads(): the phases the recording counts
  return i.opcode.rfind("BAR.SYNC", 0) == 0 && i.operands == "0x0";
}

// A line the recording has no access on, whose shared instructions are all predicated, in a
// kernel with no loop: each is issued by the warps that issued the unpredicated shared
// instruction of a recorded line before it in its block (no label, branch or barrier between:
// every warp reaching one reaches the other), in the phase the barriers before it give, with no
// active lane (none passed its guard). The requests (0 wavefronts); -1 where some instruction
// has no such neighbour or a shared instruction or barrier of the kernel is in a loop.
int64_t issued_beside(uint32_t line, const std::vector<SassInstruction>& sass,
                      const std::string& kernel_function, const WarpsAt& warps_at) {
  std::vector<const SassInstruction*> k;  // the kernel's instructions, in order
  for (const SassInstruction& i : sass)
    if (!kernel_function.empty() && i.function == kernel_function) {
      if (i.in_loop && (i.shared() || is_barrier(i))) return -1;  // (not EXIT's `BRA` to itself)
      k.push_back(&i);
    }
  int64_t requests = -1;
  uint32_t phase = 0;
  for (size_t n = 0; n < k.size(); ++n) {
    if (is_barrier(*k[n])) ++phase;
    const SassInstruction& i = *k[n];
    if (counted_line(i) != line || !i.shared() || i.never_executes()) continue;
    if (i.predicate.empty()) return -1;
    const SassInstruction* j = nullptr;
    for (size_t m = n; m-- > 0 && !k[m + 1]->labelled && !j;) {
      const SassInstruction& c = *k[m];
      if (is_barrier(c) || c.opcode.rfind("BRA", 0) == 0) break;
      if (c.shared() && c.predicate.empty() && warps_at.count({counted_line(c), phase})) j = &c;
    }
    if (!j) return -1;
    requests = std::max<int64_t>(requests, 0) +
               static_cast<int64_t>(warps_at.at({counted_line(*j), phase}).size());
  }
  return requests;
}

// What the SASS alone says of the lines as compiled where the figures cannot be what the kernel
// runs (LineAsCompiled::differs); `per_warp` holds each (line, warp)'s instructions as compiled,
// `warps_at` the warps with an access on each (line, phase).
void add_differences(std::vector<LineAsCompiled>& lines, const std::vector<SassInstruction>& sass,
                     const std::map<std::pair<uint32_t, uint32_t>, int64_t>& per_warp,
                     const std::set<uint32_t>& cas_lines, const std::string& kernel_function,
                     int64_t warps, const WarpsAt& warps_at) {
  std::map<uint32_t, LineSass> by_line, in_kernel;
  std::set<uint32_t> any_line;  // lines with a shared instruction, own or call site
  for (const SassInstruction& i : sass) {
    if (!i.shared() || i.never_executes()) continue;
    any_line.insert(i.line);
    any_line.insert(i.own_line);
    for (auto* m : {&by_line, &in_kernel}) {
      if (m == &in_kernel && (kernel_function.empty() || i.function != kernel_function)) continue;
      LineSass& l = (*m)[counted_line(i)];
      ++l.count;
      l.loop |= i.in_loop;
      l.guarded &= !i.predicate.empty() && !i.under_branch;
      l.plain &= i.predicate.empty() && !i.under_branch;
      l.ops.insert(i.opcode);
    }
  }
  std::set<uint32_t> recorded;
  for (LineAsCompiled& l : lines) {
    recorded.insert(l.line);
    if (l.requests > 0 && !any_line.count(l.line)) {
      l.differs =
          "the compiled kernel has no shared-memory instruction on this line: the compiler kept "
          "its values in registers or put its accesses on another line's instructions";
      continue;
    }
    const auto s = by_line.find(l.line);
    if (s == by_line.end() || s->second.loop || cas_lines.count(l.line)) continue;
    int64_t most = 0;
    for (auto w = per_warp.lower_bound({l.line, 0});
         w != per_warp.end() && w->first.first == l.line; ++w)
      most = std::max(most, w->second);
    // Straight-line instructions every warp reaching the line issues, more than a warp's
    // accesses as compiled: the compiler made other lines' accesses here (a member read through
    // a reference bound on the line before: the load is where the member is used).
    if (const auto k = in_kernel.find(l.line); k != in_kernel.end() && k->second.plain &&
                                               !k->second.loop && most > 0 &&
                                               most < k->second.count) {
      l.differs = "the compiled kernel has " + k->second.named() +
                  " on this line, none in a loop or under a branch, so each warp reaching it "
                  "issues " +
                  std::to_string(k->second.count) + " where the source makes " +
                  std::to_string(most) +
                  " accesses: the compiler made accesses of other lines here";
      continue;
    }
    if (most > s->second.count)
      l.differs = "the compiled kernel has " + s->second.named() +
                  " on this line, none in a loop, so a warp issues at most " +
                  std::to_string(s->second.count) + " where the source makes " +
                  std::to_string(most) +
                  " accesses: the compiler merged, moved or removed some (a value never used is "
                  "never loaded)";
  }
  for (const auto& [line, s] : in_kernel)
    if (line != 0 && !recorded.count(line)) {
      LineAsCompiled l;
      l.line = line;
      if (s.guarded && !s.loop) {
        // Predicated, outside any loop, no branch over them: every warp of the block issues each
        // once, and no lane of the block made an access here: its guard holds for none (0
        // wavefronts), as the hardware counts them (issue 30: a sort's swap on zeroed data).
        l.requests = l.max_requests = warps * s.count;
        l.how = s.named() + " predicated, issued by each of the block's " + std::to_string(warps) +
                " warps with no active lane: no lane passes the line's guard (0 wavefronts)";
        l.max_requests = 0;
        lines.push_back(std::move(l));
        continue;
      }
      if (const int64_t n = s.loop ? -1 : issued_beside(line, sass, kernel_function, warps_at);
          n >= 0) {
        // Under a branch: issued by the warps that reach them (an odd-even sort's swap under
        // its phase's `if`, issue 30).
        l.requests = n;
        l.how = s.named() + " predicated, issued " + std::to_string(n) +
                " times with no active lane by the warps that reach them (those that ran the "
                "shared instruction before them in their block): no lane passes the line's "
                "guard (0 wavefronts)";
        lines.push_back(std::move(l));
        continue;
      }
      l.differs =
          "the source makes no shared-memory access on this line; the compiled kernel has " +
          s.named() +
          " here: the compiler put accesses of other lines here, or no lane of the block passes "
          "the line's guard (its instructions issued with no active lane: 0 wavefronts)";
      lines.push_back(std::move(l));
    }
}

// Lines whose atomicCAS loop retries on words other warps also swap: how many tries each warp
// makes depends on how the warps' instructions interleave on the GPU (the recording's order is
// one of them), so the line's figure is one possibility, said so (a retry within one warp, or
// words no other warp touches, are as recorded whatever the order).
std::set<uint32_t> cas_contended_lines(const Recording& r) {
  std::map<std::pair<uint32_t, uint64_t>, std::set<uint32_t>> warps;  // (line, address)
  std::map<std::tuple<uint32_t, uint64_t, uint32_t>, int> tries;      // (line, address, thread)
  std::set<uint32_t> retried, out;
  for (const RecordedAccess& a : r.accesses) {
    if (a.kind != RecordedKind::AtomicCas) continue;
    warps[{a.line, a.address}].insert(a.thread / kWarpSize);
    if (++tries[{a.line, a.address, a.thread}] == 2) retried.insert(a.line);
  }
  for (const auto& [key, w] : warps)
    if (w.size() > 1 && retried.count(key.first)) out.insert(key.first);
  return out;
}

}  // namespace

std::optional<std::vector<LineAsCompiled>> recorded_lines_as_compiled(
    const Recording& r, const std::vector<SassInstruction>& sass, const Arch& arch,
    bool reuse_loads, std::string* why, const std::string& kernel_function) {
  std::map<uint32_t, LineCompiledForm> forms;
  std::set<uint32_t> cas_lines;  // a compare-and-swap loop's ATOMS.CAST on the line
  std::set<uint32_t> looped;     // a shared instruction of the line in a loop
  for (const SassInstruction& i : sass) {
    if (!i.shared() || i.never_executes() || counted_line(i) == 0) continue;
    LineCompiledForm& f = forms[counted_line(i)];
    f.line = counted_line(i);
    if (is_load(i.opcode)) f.load_width = std::max(f.load_width, i.width()), ++f.loads;
    if (is_store(i.opcode)) f.store_width = std::max(f.store_width, i.width()), ++f.stores;
    if (i.opcode.rfind("ATOMS.CAST", 0) == 0) cas_lines.insert(f.line);
    if (i.in_loop) looped.insert(f.line);
  }
  std::vector<LineCompiledForm> list;
  for (auto [line, f] : forms) {
    f.unrolled = !looped.count(line);
    list.push_back(f);
  }
  const CompiledRecording cr = recording_as_compiled(r, list, reuse_loads);
  const auto ins = recorded_instructions(cr.recording, arch, why);
  if (!ins) return std::nullopt;
  std::map<uint32_t, LineAsCompiled> out;
  for (const RecordedAccess& a : r.accesses) out[a.line].line = a.line;
  std::set<uint32_t> contended, cas_served;
  std::map<std::pair<uint32_t, uint32_t>, int64_t> per_warp;  // (line, warp): instructions
  WarpsAt warps_at;
  for (const RecordedInstruction& in : *ins) {
    LineAsCompiled& l = out[in.line];
    l.line = in.line;
    for (const RecordedWarp& w : in.warps) {
      ++per_warp[{in.line, w.warp}];
      warps_at[{in.line, in.phase}].insert(w.warp);
    }
    const bool atomic_add = in.kind == RecordedKind::AtomicAdd || in.kind == RecordedKind::Atomic;
    if (atomic_add && cas_lines.count(in.line)) {
      std::vector<WarpAccess> warps;
      for (const RecordedWarp& w : in.warps) warps.push_back(w.access);
      const CasLoopCost c = cas_loop_cost(arch, warps);
      l.requests += c.instructions;
      l.wavefronts += c.wavefronts;
      l.ideal += c.instructions;
      l.max_requests += c.max_instructions ? c.max_instructions : c.instructions;
      l.max_wavefronts += c.max_instructions ? c.max_wavefronts : c.wavefronts;
      if (c.max_instructions) contended.insert(in.line);
      continue;
    }
    // atomicCAS is ATOMS.CAS, two wavefronts a pass on Hopper (serve()'s Op::AtomicCas); the
    // recording's instruction is served as an atomic (the picture, a scenario, has no CAS step).
    const bool cas = in.kind == RecordedKind::AtomicCas;
    if (cas) cas_served.insert(in.line);
    for (const RecordedWarp& w : in.warps) {
      const AccessResult s = cas ? serve(arch, Op::AtomicCas, w.access) : w.served;
      ++l.requests, ++l.max_requests;
      l.wavefronts += s.wavefronts;
      l.max_wavefronts += s.wavefronts;
      l.ideal += s.ideal;
    }
  }
  std::vector<LineAsCompiled> lines;
  for (auto& [line, l] : out) {
    if (const auto h = cr.how.find(line); h != cr.how.end()) l.how = h->second;
    if (cas_served.count(line))
      l.how += (l.how.empty() ? "" : "; ") +
               std::string(
                   "atomicCAS as ATOMS.CAS: two wavefronts a pass of its lanes (the picture "
                   "shows the atomic's passes, one wavefront each)");
    if (cas_lines.count(line))
      l.how += (l.how.empty() ? "" : "; ") +
               std::string(
                   "a compare-and-swap loop (LDS, ATOMS.CAST.SPIN): one lane per bank and "
                   "word succeeds per try, 2 instructions a try");
    if (contended.count(line)) {
      l.how += "; other warps update the same words: between " + std::to_string(l.requests) +
               " / " + std::to_string(l.wavefronts) + " (each warp alone) and " +
               std::to_string(l.max_requests) + " / " + std::to_string(l.max_wavefronts) +
               " instructions / wavefronts, as the warps interleave";
    } else {
      l.max_requests = l.max_wavefronts = 0;
    }
    lines.push_back(std::move(l));
  }
  const std::set<uint32_t> cas_contended = cas_contended_lines(r);
  for (LineAsCompiled& l : lines)
    if (cas_contended.count(l.line))
      l.differs =
          "an atomicCAS loop that retries on words other warps also swap: how many tries "
          "each warp makes depends on how the warps interleave on the GPU (" +
          std::to_string(l.requests) + " instructions in the recording's order)";
  const int64_t threads = r.block[0] * r.block[1] * r.block[2];
  add_differences(lines, sass, per_warp, cas_lines, kernel_function, (threads + 31) / 32, warps_at);
  return lines;
}

}  // namespace bankviz
