// recording_compiled.cpp: a recording as the compiled kernel makes its accesses (recording.h
// recording_as_compiled()): neighbouring accesses of a thread in one wider instruction, loads the
// compiler keeps in a register left out. The addresses stay the recording's; serve() costs them.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bankviz/recording.h"

namespace bankviz {

namespace {

bool is_plain(const RecordedAccess& a) {
  return a.kind == RecordedKind::Load || a.kind == RecordedKind::Store;
}

// The widest instruction of the access's direction on `line` (0: none there).
int form_width(const std::map<uint32_t, LineCompiledForm>& forms, uint32_t line, RecordedKind k) {
  const auto it = forms.find(line);
  if (it == forms.end()) return 0;
  return k == RecordedKind::Load ? it->second.load_width : it->second.store_width;
}

// The accesses of one thread (indices into r.accesses, in order) that follow `first` as the next
// bytes of its array in the same phase and direction: a chain the compiler may issue as one
// wider instruction. Accesses of other arrays may lie between (the compiler reorders them), an
// access of the other direction to the same array or any atomic ends the chain.
std::vector<size_t> next_bytes_chain(const Recording& r, const std::vector<size_t>& mine, size_t k,
                                     const std::vector<bool>& taken) {
  const RecordedAccess& a = r.accesses[mine[k]];
  std::vector<size_t> chain = {k};
  uint32_t next = a.address + a.width;
  for (size_t q = k + 1; q < mine.size() && q < k + 48 && chain.size() * a.width < 16; ++q) {
    if (taken[q]) continue;
    const RecordedAccess& b = r.accesses[mine[q]];
    if (b.phase != a.phase || !is_plain(b)) break;
    if (b.array != a.array) continue;
    if (b.kind != a.kind) break;
    if (b.width != a.width || b.address != next) break;
    chain.push_back(q);
    next += b.width;
  }
  return chain;
}

// (line, kind, array, subscript, execution) of an access whose chain the compiler cannot have
// merged: the line's wider instruction was there, but this thread's bytes are not aligned to it.
// ptxas merges only what it proves aligned for every thread, so nothing of that subscript is
// merged (another subscript of the line may be: `c[i % 4] * x[(t + i) % 128]`, c's four in one
// LDS.128). Where the line is `unrolled` (none of its instructions in a loop) each execution is
// an instruction of its own, its proof its own: the execution is the access's phase and its
// number among the thread's accesses of that line, kind, array and subscript in the phase (a
// thread whose guard skips one phase's copy still names the next phase's copy as the others do);
// elsewhere both are 0.
using LineKind = std::tuple<uint32_t, int, int32_t, uint32_t, uint32_t, uint32_t>;

// Merges one thread's chains into wider accesses; counts per line what moved where. Lines in
// `unaligned` stay as recorded; a line found so is added to it.
void widen_thread(Recording& r, const std::vector<size_t>& mine,
                  const std::map<uint32_t, LineCompiledForm>& forms, std::vector<bool>& taken,
                  std::map<std::tuple<uint32_t, uint32_t, int>, int64_t>& merged,
                  std::set<LineKind>& unaligned) {
  std::map<std::tuple<uint32_t, int, int32_t, uint32_t, uint32_t>, uint32_t> executions;
  for (size_t k = 0; k < mine.size(); ++k) {
    const RecordedAccess& at = r.accesses[mine[k]];
    const uint32_t execution =
        executions[{at.line, static_cast<int>(at.kind), at.array, at.site, at.phase}]++;
    if (taken[k] || !is_plain(r.accesses[mine[k]])) continue;
    std::vector<size_t> chain = next_bytes_chain(r, mine, k, taken);
    if (chain.size() < 2) continue;
    RecordedAccess& a = r.accesses[mine[k]];
    // The line holding the widest instruction of this direction among the chain's lines.
    uint32_t target = a.line;
    int wide = form_width(forms, a.line, a.kind);
    for (size_t q : chain)
      if (int w = form_width(forms, r.accesses[mine[q]].line, a.kind); w > wide)
        wide = w, target = r.accesses[mine[q]].line;
    // Every other line of the chain has no instruction of this direction as wide: its accesses
    // here are in the target's instruction (an unrolled loop's first iteration, whose two loads
    // are neighbours, in one LDS.128 on the first one's line, the others LDS.64 on their own).
    size_t usable = 0;
    while (usable < chain.size()) {
      const uint32_t l = r.accesses[mine[chain[usable]]].line;
      if (l != target && form_width(forms, l, a.kind) >= wide) break;
      ++usable;
    }
    const auto form = forms.find(target);
    const bool unrolled = form != forms.end() && form->second.unrolled;
    const LineKind key{target, static_cast<int>(a.kind), a.array,
                       a.site, unrolled ? a.phase : 0u,  unrolled ? execution : 0u};
    if (unaligned.count(key)) continue;
    size_t m = 1;
    while (m * 2 <= usable && static_cast<int>(m * 2 * a.width) <= wide &&
           a.address % (m * 2 * a.width) == 0)
      m *= 2;
    if (m < 2) {
      if (usable >= 2 && wide > a.width) unaligned.insert(key);
      continue;
    }
    for (size_t q = 0; q < m; ++q) {
      const RecordedAccess& b = r.accesses[mine[chain[q]]];
      merged[{b.line, target, static_cast<int>(m * a.width)}] += 1;
      if (q > 0) taken[chain[q]] = true;
    }
    a.width = static_cast<uint8_t>(m * a.width);
    a.line = target;
  }
}

// Leaves out one thread's loads of an address it already loaded on the line in the phase.
void reuse_thread(const Recording& r, const std::vector<size_t>& mine, std::vector<bool>& taken,
                  std::map<uint32_t, int64_t>& reused) {
  std::set<std::tuple<uint32_t, int32_t, uint32_t, int>> seen;  // line, array, address, width
  uint32_t phase = 0;
  for (size_t k = 0; k < mine.size(); ++k) {
    if (taken[k]) continue;
    const RecordedAccess& a = r.accesses[mine[k]];
    if (a.phase != phase) seen.clear(), phase = a.phase;
    if (a.kind != RecordedKind::Load) {
      if (a.kind != RecordedKind::Store) {
        seen.clear();
        continue;
      }
      for (auto it = seen.begin(); it != seen.end();)
        it = std::get<1>(*it) == a.array ? seen.erase(it) : std::next(it);
      continue;
    }
    if (!seen.insert({a.line, a.array, a.address, a.width}).second) {
      taken[k] = true;
      ++reused[a.line];
    }
  }
}

int form_count(const std::map<uint32_t, LineCompiledForm>& forms, uint32_t line, RecordedKind k) {
  const auto it = forms.find(line);
  if (it == forms.end()) return 0;
  return k == RecordedKind::Load ? it->second.loads : it->second.stores;
}

// The neighbouring line of each thread's access on a line with no instruction of its direction
// (recording.h, "moved"): the thread's nearest access before it (else after it) of the same
// array, direction and phase on a line with an instruction as wide. Every thread's must be the
// same line, `unrolled`, with instructions of the direction for all of the thread's accesses of
// both lines. Moves them; returns (from, to) -> accesses.
std::map<std::pair<uint32_t, uint32_t>, int64_t> move_to_neighbours(
    Recording& c, const std::map<uint32_t, LineCompiledForm>& forms) {
  std::map<std::pair<uint32_t, int>, std::vector<size_t>> homeless;  // (line, kind) -> accesses
  std::map<std::tuple<uint32_t, uint32_t, int>, int> per_thread;     // (thread, line, kind)
  std::map<uint32_t, std::vector<size_t>> mine;
  for (size_t i = 0; i < c.accesses.size(); ++i) {
    const RecordedAccess& a = c.accesses[i];
    if (!is_plain(a)) continue;
    mine[a.thread].push_back(i);
    ++per_thread[{a.thread, a.line, static_cast<int>(a.kind)}];
    if (a.line != 0 && form_width(forms, a.line, a.kind) == 0)
      homeless[{a.line, static_cast<int>(a.kind)}].push_back(i);
  }
  std::map<std::pair<uint32_t, uint32_t>, int64_t> moved;
  if (homeless.empty()) return moved;
  std::vector<size_t> order(c.accesses.size());  // access -> its position among its thread's
  for (const auto& [t, v] : mine)
    for (size_t k = 0; k < v.size(); ++k) order[v[k]] = k;
  for (const auto& [key, list] : homeless) {
    const auto kind = static_cast<RecordedKind>(key.second);
    std::set<uint32_t> targets;
    for (size_t i : list) {
      const RecordedAccess& a = c.accesses[i];
      const std::vector<size_t>& v = mine[a.thread];
      auto fits = [&](size_t j) {
        const RecordedAccess& b = c.accesses[j];
        return b.phase == a.phase && b.kind == a.kind && b.array == a.array && b.line != a.line &&
               form_width(forms, b.line, kind) >= a.width;
      };
      uint32_t to = 0;  // the nearest, within 64 of the thread's accesses
      for (size_t k = order[i]; k-- > 0 && k + 64 > order[i] && to == 0;)
        if (fits(v[k])) to = c.accesses[v[k]].line;
      for (size_t k = order[i] + 1; k < v.size() && k < order[i] + 64 && to == 0; ++k)
        if (fits(v[k])) to = c.accesses[v[k]].line;
      targets.insert(to);
    }
    if (targets.size() != 1 || *targets.begin() == 0) continue;
    const uint32_t to = *targets.begin();
    const auto f = forms.find(to);
    if (f == forms.end() || !f->second.unrolled) continue;
    bool room = true;
    for (const auto& [t, v] : mine)
      room &= per_thread[{t, key.first, key.second}] + per_thread[{t, to, key.second}] <=
              form_count(forms, to, kind);
    if (!room) continue;
    for (size_t i : list) c.accesses[i].line = to;
    moved[{key.first, to}] += static_cast<int64_t>(list.size());
  }
  return moved;
}

}  // namespace

CompiledRecording recording_as_compiled(const Recording& r,
                                        const std::vector<LineCompiledForm>& forms,
                                        bool reuse_loads) {
  CompiledRecording out;
  out.recording = r;
  Recording& c = out.recording;
  std::map<uint32_t, LineCompiledForm> by_line;
  for (const LineCompiledForm& f : forms) by_line[f.line] = f;
  std::map<uint32_t, std::vector<size_t>> per_thread;
  for (size_t i = 0; i < c.accesses.size(); ++i) per_thread[c.accesses[i].thread].push_back(i);
  std::vector<bool> drop(c.accesses.size(), false);
  std::map<std::tuple<uint32_t, uint32_t, int>, int64_t> merged;  // (from, to, width) -> accesses
  std::map<uint32_t, int64_t> reused;
  // A first pass finds the lines some thread's bytes are not aligned for; the second merges.
  std::set<LineKind> unaligned;
  {
    Recording probe = c;
    std::map<std::tuple<uint32_t, uint32_t, int>, int64_t> ignored;
    for (auto& [thread, mine] : per_thread) {
      std::vector<bool> taken(mine.size(), false);
      widen_thread(probe, mine, by_line, taken, ignored, unaligned);
    }
  }
  for (auto& [thread, mine] : per_thread) {
    std::vector<bool> taken(mine.size(), false);
    widen_thread(c, mine, by_line, taken, merged, unaligned);
    if (reuse_loads) reuse_thread(c, mine, taken, reused);
    for (size_t k = 0; k < mine.size(); ++k)
      if (taken[k]) drop[mine[k]] = true;
  }
  size_t w = 0;
  for (size_t i = 0; i < c.accesses.size(); ++i)
    if (!drop[i]) c.accesses[w++] = c.accesses[i];
  c.accesses.resize(w);
  const auto moved = move_to_neighbours(c, by_line);
  auto say = [&](uint32_t line, const std::string& what) {
    std::string& h = out.how[line];
    h += (h.empty() ? "" : "; ") + what;
  };
  for (const auto& [key, n] : moved) {
    say(key.first, std::to_string(n) + " accesses in line " + std::to_string(key.second) +
                       "'s instructions (this line has none of their kind: the compiler's line "
                       "table puts them there)");
    say(key.second, "with line " + std::to_string(key.first) + "'s " + std::to_string(n) +
                        " accesses, which the compiler's line table puts here");
  }
  for (const auto& [key, n] : merged) {
    const auto& [from, to, width] = key;
    say(from, std::to_string(n) + " accesses in " + std::to_string(width) + "-byte instructions" +
                  (from == to ? std::string() : " on line " + std::to_string(to)) +
                  " (neighbouring bytes of a thread, merged as the compiler did)");
  }
  for (const auto& [line, n] : reused)
    say(line, std::to_string(n) +
                  " loads of an address the thread had loaded on the line left out (the "
                  "compiler kept the value in a register)");
  return out;
}

}  // namespace bankviz
