// compiled.cpp: the written kernel as compiled, from its SASS (compiled.h).
#include "bankviz/compiled.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/copy_h200.h"
#include "bankviz/profile.h"  // same_file()
#include "bankviz/sass.h"
#include "plan.h"  // kMaxLaunchModelThreads

extern char** environ;

namespace bankviz {

// [SECTION] SASS ==================================================================================

namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The base opcode ("LDS" of "LDS.U16") and whether it touches shared memory.
std::string_view base_opcode(std::string_view op) {
  return op.substr(0, op.find('.'));
}

bool has_modifier(std::string_view op, std::string_view m) {
  size_t at = op.find('.');
  while (at != std::string_view::npos) {
    const size_t next = op.find('.', at + 1);
    if (op.substr(at + 1, next == std::string_view::npos ? op.npos : next - at - 1) == m)
      return true;
    at = next;
  }
  return false;
}

// "//## File "x.cu", line 12 inlined at "x.cu", line 40": every location in `locs`, the first
// (where the code is written) first, the last (the call site) last.
bool file_line(std::string_view l, std::vector<std::pair<std::string, uint32_t>>& locs) {
  size_t at = 0;
  while (locs.size() < 64) {
    const size_t q = l.find('"', at);
    if (q == std::string_view::npos) break;
    const size_t q2 = l.find('"', q + 1);
    if (q2 == std::string_view::npos) break;
    const size_t ln = l.find("line ", q2);
    if (ln == std::string_view::npos) break;
    uint32_t v = 0;
    size_t d = ln + 5;
    bool digits = false;
    while (d < l.size() && l[d] >= '0' && l[d] <= '9' && v < 100000000u) {
      v = v * 10 + static_cast<uint32_t>(l[d] - '0'), ++d, digits = true;
    }
    if (!digits) break;
    locs.emplace_back(std::string(l.substr(q + 1, q2 - q - 1)), v);
    at = d;
  }
  return !locs.empty();
}

}  // namespace

bool SassInstruction::shared() const {
  const std::string_view b = base_opcode(opcode);
  return b == "LDS" || b == "STS" || b == "ATOMS" || b == "LDSM" || b == "STSM" || b == "LDGSTS";
}

bool SassInstruction::never_executes() const {
  return predicate == "@!PT";
}

uint32_t SassInstruction::line_in(const std::string& file_name) const {
  for (const auto& [f, l] : chain)
    if (l > 0 && same_file(f, file_name)) return l;
  return 0;
}

int SassInstruction::width() const {
  const std::string_view b = base_opcode(opcode);
  if (b == "LDSM" || b == "STSM") return 16;
  if (has_modifier(opcode, "128")) return 16;
  if (has_modifier(opcode, "64")) return 8;
  if (has_modifier(opcode, "U16") || has_modifier(opcode, "S16")) return 2;
  if (has_modifier(opcode, "U8") || has_modifier(opcode, "S8")) return 1;
  return 4;
}

std::vector<SassInstruction> parse_nvdisasm(std::string_view text) {
  std::vector<SassInstruction> out;
  std::map<std::string, uint32_t> labels;   // ".L_x_3" -> the pc of the next instruction
  std::vector<std::string> pending_labels;  // labels seen before their instruction
  std::vector<std::pair<size_t, std::string>> branches;  // (instruction, target label)
  std::vector<std::pair<size_t, std::string>> backward;  // every branch to a label: loops
  std::string file, own_file, function;
  uint32_t line = 0, own_line = 0;
  std::vector<std::pair<std::string, uint32_t>> chain;
  // The "//##" lines since the last instruction, each (own file, own line, file, line). nvdisasm
  // writes an inlined instruction's chain one link a line, innermost first, then the kernel's
  // line: `line 8 inlined at line 9`, `line 9 inlined at line 24`, `line 24`; the lines before
  // the chain (another location with no instruction) do not link to it.
  struct Loc {
    std::string own_file;
    uint32_t own_line;
    std::string file;
    uint32_t line;
    std::vector<std::pair<std::string, uint32_t>> locs;  // own first, call site last
  };
  std::vector<Loc> run;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (starts_with(l, "//##")) {
      Loc c{{}, 0, {}, 0, {}};
      if (file_line(l, c.locs) && run.size() < 4096) {
        std::tie(c.own_file, c.own_line) = c.locs.front();
        std::tie(c.file, c.line) = c.locs.back();
        run.push_back(std::move(c));
      }
      continue;
    }
    if (starts_with(l, ".L_") && !l.empty() && l.back() == ':') {
      pending_labels.emplace_back(l.substr(0, l.size() - 1));
      continue;
    }
    if (starts_with(l, ".text.") && l.size() > 7 && l.back() == ':') {  // a function's start
      function = std::string(l.substr(6, l.size() - 7));
      continue;
    }
    if (!starts_with(l, "/*")) continue;
    const size_t close = l.find("*/");
    if (close == std::string_view::npos) continue;
    uint32_t pc = 0;
    bool hex = close > 2;
    for (size_t i = 2; i < close && hex; ++i) {
      const char c = l[i];
      const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (v < 0 || pc > 0x0fffffffu)
        hex = false;
      else
        pc = pc * 16 + static_cast<uint32_t>(v);
    }
    if (!hex) continue;
    std::string_view rest = trim(l.substr(close + 2));
    if (!rest.empty() && rest.back() == ';') rest = trim(rest.substr(0, rest.size() - 1));
    if (!run.empty()) {  // this instruction's location: the run's last, its chain's first
      size_t first = run.size() - 1;
      while (first > 0 && run[first - 1].line == run[first].own_line &&
             run[first - 1].file == run[first].own_file &&
             (run[first - 1].own_line != run[first - 1].line ||
              run[first - 1].own_file != run[first - 1].file))
        --first;
      file = run.back().file;
      line = run.back().line;
      own_file = run[first].own_file;
      own_line = run[first].own_line;
      chain.clear();
      for (size_t k = first; k < run.size(); ++k)
        for (const auto& loc : run[k].locs)
          if (chain.empty() || chain.back() != loc) chain.push_back(loc);
      run.clear();
    }
    SassInstruction in;
    in.pc = pc;
    in.file = file;
    in.line = line;
    in.own_file = own_file;
    in.own_line = own_line;
    in.chain = chain;
    in.function = function;
    if (starts_with(rest, "@")) {
      const size_t sp = rest.find(' ');
      if (sp == std::string_view::npos) continue;
      in.predicate = std::string(rest.substr(0, sp));
      rest = trim(rest.substr(sp));
    }
    const size_t sp = rest.find(' ');
    in.opcode = std::string(rest.substr(0, sp));
    if (in.opcode.empty() || in.opcode[0] < 'A' || in.opcode[0] > 'Z') continue;
    in.operands = sp == std::string_view::npos ? std::string() : std::string(trim(rest.substr(sp)));
    in.labelled = !pending_labels.empty();
    for (const std::string& name : pending_labels) labels[function + '\n' + name] = pc;
    pending_labels.clear();
    if (base_opcode(in.opcode) == "BRA") {
      const size_t a = in.operands.find(".L_");
      if (a != std::string::npos) {
        const size_t b = in.operands.find(')', a);
        // Labels are looked up within the function (pcs start again at 0 in each).
        std::string target =
            function + '\n' +
            in.operands.substr(a, b == std::string::npos ? std::string::npos : b - a);
        if (!in.predicate.empty() && in.predicate != "@PT")
          branches.emplace_back(out.size(), target);
        backward.emplace_back(out.size(), std::move(target));
      }
    }
    out.push_back(std::move(in));
  }
  // A conditional branch forward jumps over the instructions up to its target: some warps
  // never issue them.
  for (const auto& [i, label] : branches) {
    const auto t = labels.find(label);
    if (t == labels.end() || t->second <= out[i].pc) continue;
    for (size_t j = i + 1;
         j < out.size() && out[j].pc < t->second && out[j].function == out[i].function; ++j)
      out[j].under_branch = true;
  }
  // A branch back to a label (or to itself) closes a loop: the instructions from the label to
  // the branch may run many times.
  for (const auto& [i, label] : backward) {
    const auto t = labels.find(label);
    if (t == labels.end() || t->second > out[i].pc) continue;
    for (size_t j = i + 1; j-- > 0 && out[j].pc >= t->second && out[j].function == out[i].function;)
      out[j].in_loop = true;
  }
  return out;
}

// [SECTION] nvdisasm =============================================================================

std::string find_cuda_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) dirs.push_back(std::string(h) + "/bin");
  if (const char* h = std::getenv("CUDA_PATH"); h && *h) dirs.push_back(std::string(h) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  if (const char* p = std::getenv("PATH"); p) {
    std::string_view path = p;
    while (!path.empty()) {
      const size_t c = path.find(':');
      dirs.emplace_back(path.substr(0, c));
      if (c == std::string_view::npos) break;
      path.remove_prefix(c + 1);
    }
  }
  for (const std::string& d : dirs) {
    if (d.empty()) continue;
    const std::string f = d + "/" + name;
    struct stat st {};
    if (stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(f.c_str(), X_OK) == 0) return f;
  }
  return {};
}

std::string disassemble(const std::vector<char>& cubin, std::string* why) {
  auto fail = [&](std::string m) {
    if (why) *why = std::move(m);
    return std::string();
  };
  const std::string tool = find_cuda_tool("nvdisasm");
  if (tool.empty())
    return fail("nvdisasm (CUDA toolkit) not found in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH");
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/bankviz-XXXXXX.cubin";
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  const int fd = mkstemps(name.data(), 6);
  if (fd < 0) return fail("cannot create a temporary file for the cubin");
  path = name.data();
  size_t done = 0;
  while (done < cubin.size()) {
    const ssize_t n = write(fd, cubin.data() + done, cubin.size() - done);
    if (n <= 0) {
      close(fd);
      unlink(path.c_str());
      return fail("cannot write the cubin to " + path);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    unlink(path.c_str());
    return fail("cannot make a pipe for nvdisasm");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::string a0 = tool, a1 = "-gi", a2 = "-c";
  char* argv[] = {a0.data(), a1.data(), a2.data(), path.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, tool.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    unlink(path.c_str());
    return fail("cannot run " + tool);
  }
  std::string out;
  constexpr size_t kMaxListing = size_t{64} << 20;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool timed_out = false;
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0) break;
    if (r == 0) continue;
    const ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n <= 0) break;
    if (out.size() + static_cast<size_t>(n) > kMaxListing) {
      timed_out = true;  // treated like a hang: stop it
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  unlink(path.c_str());
  if (timed_out) return fail(tool + " ran past 60 s or 64 MB of output");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail(tool + " failed on the cubin");
  return out;
}

// [SECTION] The model as compiled ================================================================

namespace {

struct Cost {
  int64_t instructions = 0, wavefronts = 0;
  int idle_warps = 0;  // warps that issue it without an active lane
  bool invalid = false;
};

// What ptxas made of an atomic step, read off its SASS (measured on an H100, docs/COUNTERS.md):
// Plain: one instruction per warp. CasLoop: atomicAdd on a float is a loop of LDS and
// ATOMS.CAST.SPIN. Elected: an atomic on an address the compiler knows to be the same for the
// whole warp is done once, by one lane (@P0 ATOMS after a warp reduction).
// UniformAddress: a load addressed by a uniform register alone ("LDS.128 R8, [UR4]"): every lane
// reads one address, one wavefront per instruction (H100: s19-float4-store step 3, odd lanes of
// a float4 broadcast, 1 wavefront where the same lanes through [R] take 2).
enum class Form { Plain, CasLoop, Elected, UniformAddress };

// The address operand is uniform registers and constants only ("[UR4]", "[UR4+0x10]").
bool uniform_address(const SassInstruction& in) {
  const size_t open = in.operands.find('[');
  const size_t close = in.operands.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return false;
  const std::string_view addr = std::string_view(in.operands).substr(open + 1, close - open - 1);
  if (addr.substr(0, 2) != "UR") return false;
  for (size_t i = 0; i < addr.size(); ++i)
    if (addr[i] == 'R' && (i == 0 || addr[i - 1] != 'U')) return false;
  return true;
}

// The compare-and-swap loop: every try is an LDS of the lanes still trying (served as a load) and
// an ATOMS.CAST.SPIN, 2 instructions; of the lanes on one word one succeeds per try, and in each
// bank one lane (the lowest) succeeds per try. A d-way conflict takes d tries: sum over r = d..1
// of (r + 2) wavefronts in 2d instructions (H100: 3, 7, 18, 52, 168, 592 for d = 1 .. 32, cycles
// equal). A 64-bit one (double, unsigned long long: LDS.64, ATOMS.CAST.SPIN.64) serves each
// half-warp apart, as 8-byte accesses are: a bank's lanes conflict only within a half-warp, and
// the ATOMS.CAST.SPIN.64 takes 2 wavefronts per half-warp with a lane still trying (H200, issue
// 30's s30-atomic-u64 and s30-atomic-double: q[threadIdx.x] 4 instructions / 12 wavefronts for 2
// warps, q[threadIdx.x * 2] under threadIdx.x < 40 6 / 17).
int cas_passes(const WarpAccess& acc) {
  if (acc.width < 8) return 1;
  return ((acc.mask & 0xffffu) != 0) + ((acc.mask >> 16) != 0);
}

void cas_loop(const Arch& arch, WarpAccess acc, Cost& c) {
  const bool wide = acc.width >= 8;
  while (acc.mask) {
    c.instructions += 2;
    c.wavefronts += serve(arch, Op::Load, acc).wavefronts + 2 * cas_passes(acc);
    uint32_t won = 0;
    uint64_t banks[2] = {0, 0};
    std::vector<uint32_t> words;
    for (uint32_t rest = acc.mask; rest; rest &= rest - 1) {
      const int lane = std::countr_zero(rest);
      const uint32_t at = acc.addr[static_cast<size_t>(lane)];
      const int half = wide ? lane / 16 : 0;
      const int bank = arch.bank_of(at);
      if ((banks[half] >> bank) & 1u) continue;
      if (std::find(words.begin(), words.end(), at) != words.end()) continue;
      banks[half] |= uint64_t{1} << bank;
      words.push_back(at);
      won |= 1u << lane;
    }
    acc.mask &= ~won;
  }
}

// The most tries a warp's compare-and-swap loop can take when other warps update its words in
// the same step. In a try, each bank of the warp's lanes still trying lets one lane store, unless
// its word changed since the warp's LDS: a store of another warp's lane in that window. Each such
// store lies in one window of the warp (its windows do not overlap), and every lane stores once.
// So the tries in which bank b still has lanes are at most its lanes there plus the other warps'
// lanes on the words it uses there, and the loop ends when every bank is done:
//   tries <= max over banks b of (n_w(b) + sum over other warps v, words x of w in b, of n_v(x)).
// Each try is 2 instructions and its LDS (at most the whole warp's access, served as a store:
// 4-byte words, no fewer than any subset of the lanes) plus 2 wavefronts (a 64-bit loop: its
// banks per half-warp, 2 wavefronts per half-warp: cas_loop()).
void cas_loop_bound(const Arch& arch, const std::vector<WarpStep>& warps, size_t w, Cost& c) {
  std::map<uint32_t, int> others;  // word address -> the other warps' lanes on it
  for (size_t v = 0; v < warps.size(); ++v)
    if (v != w)
      for (uint32_t rest = warps[v].access.mask; rest; rest &= rest - 1)
        ++others[warps[v].access.addr[static_cast<size_t>(std::countr_zero(rest))]];
  const WarpAccess& acc = warps[w].access;
  // (half-warp of a 64-bit loop,) bank -> lanes of w + others' lanes on w's words there; and
  // per word the lanes of w and of the others on it (one lane of a word succeeds per try).
  std::map<int, int> per_bank;
  std::map<uint32_t, int> per_word;
  std::map<std::pair<uint32_t, int>, bool> counted;  // (word, key) whose others are added
  const bool wide = acc.width >= 8;
  for (uint32_t rest = acc.mask; rest; rest &= rest - 1) {
    const int lane = std::countr_zero(rest);
    const uint32_t at = acc.addr[static_cast<size_t>(lane)];
    const int key = arch.bank_of(at) + (wide && lane >= 16 ? 64 : 0);
    int& n = per_bank[key];
    ++n;
    const auto o = others.find(at);
    if (int& words = per_word[at]; words++ == 0 && o != others.end()) words += o->second;
    if (!counted[{at, key}]) {
      counted[{at, key}] = true;
      if (o != others.end()) n += o->second;
    }
  }
  int64_t tries = 0;
  for (const auto& [bank, n] : per_bank) tries = std::max<int64_t>(tries, n);
  for (const auto& [word, n] : per_word) tries = std::max<int64_t>(tries, n);
  c.instructions += 2 * tries;
  c.wavefronts += tries * (serve(arch, Op::Store, acc).wavefronts + 2 * cas_passes(acc));
}

// One execution (or the first member of a wider instruction's group) served: every warp of the
// block issues it unless the compiler jumps over it (then those with an active lane, as written).
Cost serve_execution(const Analysis& src, int exec, const OpSpec& op, int width, bool all_warps,
                     Form form = Form::Plain) {
  Cost c;
  // An execution no lane of the block makes issues nothing as the hardware counts it: a
  // predicated instruction whose predicate no lane of any warp passes counted 0 on an H200
  // (s30-guard-none: four guards no thread passes, @P LDS/STS, 0 where every warp was counted
  // 2), while with one warp's lanes passing every warp counts it (s30-guard-some-warps: 4 of 4).
  const auto& ws_all = src.warps[static_cast<size_t>(exec)];
  if (std::none_of(ws_all.begin(), ws_all.end(),
                   [](const WarpStep& ws) { return ws.access.mask != 0; }))
    return c;
  for (const WarpStep& ws : src.warps[static_cast<size_t>(exec)]) {
    WarpAccess acc = ws.access;
    if (acc.mask == 0) {
      if (all_warps) ++c.instructions, ++c.idle_warps;
      continue;
    }
    if (form == Form::CasLoop) {
      cas_loop(*src.arch, acc, c);
      continue;
    }
    if (form == Form::UniformAddress) {
      ++c.instructions, ++c.wavefronts;
      continue;
    }
    if (form == Form::Elected) acc.mask &= ~acc.mask + 1;  // the warp's lowest active lane
    acc.width = width;
    if (!validate(op.op, acc).empty()) {
      c.invalid = true;
      acc.width = ws.access.width;
    }
    ++c.instructions;
    c.wavefronts += serve(*src.arch, op.op, acc).wavefronts;
  }
  return c;
}

// Every active lane of every execution on one address, warp by warp.
bool uniform(const Analysis& a, const std::vector<int>& execs) {
  for (int e : execs)
    for (const WarpStep& ws : a.warps[static_cast<size_t>(e)]) {
      if (ws.access.mask == 0) continue;
      const uint32_t first = ws.access.addr[static_cast<size_t>(std::countr_zero(ws.access.mask))];
      for (uint32_t rest = ws.access.mask; rest; rest &= rest - 1)
        if (ws.access.addr[static_cast<size_t>(std::countr_zero(rest))] != first) return false;
    }
  return true;
}

// The immediate offset of an instruction's address operand ("[R29+0x8]" -> 8, "[R4]" -> 0,
// "[R4+-0x10]" -> -16).
int64_t address_offset(const SassInstruction& in) {
  const size_t open = in.operands.find('[');
  const size_t close = in.operands.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return 0;
  const std::string_view addr = std::string_view(in.operands).substr(open + 1, close - open - 1);
  const size_t plus = addr.rfind('+');
  if (plus == std::string_view::npos) return 0;
  std::string_view v = addr.substr(plus + 1);
  bool negative = false;
  if (!v.empty() && v.front() == '-') negative = true, v.remove_prefix(1);
  if (v.substr(0, 2) != "0x") return 0;
  int64_t x = 0;
  for (char ch : v.substr(2)) {
    const int d = ch >= '0' && ch <= '9'   ? ch - '0'
                  : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                           : -1;
    if (d < 0 || x > (int64_t{1} << 40)) return 0;
    x = x * 16 + d;
  }
  return negative ? -x : x;
}

// A loop's executions covered by instructions of different widths (three ints per thread: one
// LDS.64 and one LDS): per instruction, in the order of their address offsets, how many
// consecutive executions it covers; empty where the widths do not add up to the executions.
std::vector<std::pair<const SassInstruction*, int>> mixed_widths(
    const std::vector<const SassInstruction*>& mine, int w, size_t executions) {
  std::vector<std::pair<const SassInstruction*, int>> out;
  if (w <= 0 || mine.empty() || executions < 2 || mine.size() >= executions) return out;
  size_t total = 0;
  bool wider = false;
  for (const SassInstruction* in : mine) {
    const int width = in->width();
    if (width < w || width % w != 0) return {};
    wider |= width > w;
    total += static_cast<size_t>(width / w);
    out.emplace_back(in, width / w);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return address_offset(*x.first) < address_offset(*y.first);
  });
  // The last may read past the loop's last element (three ints of a 16-byte row in one LDS.128:
  // s30-merged-loops step 4 on an H200, 1 instruction a warp and 4 wavefronts).
  if (!wider || total < executions || total - static_cast<size_t>(out.back().second) >= executions)
    return {};
  return out;
}

// Why a step as compiled differs from it as written, in words (empty where nothing is said).
std::string reason_of(Form form, int group, size_t executions,
                      const std::vector<const SassInstruction*>& mine, int i,
                      const std::vector<int>& members, const CompiledStep& c, bool invalid,
                      bool predicated, int idle, const std::vector<int>& serves, bool speculated) {
  std::string why;
  if (form == Form::CasLoop) {
    why = "a compare-and-swap loop (LDS, ATOMS.CAST.SPIN): one lane per bank succeeds per try";
  } else if (form == Form::Elected) {
    why =
        "one lane per warp: the address is the same for the whole warp, so the compiler "
        "adds the warp's values first and one lane does the atomic";
  } else if (form == Form::UniformAddress) {
    why = "addressed by a uniform register alone (" + mine[0]->operands +
          "): one wavefront per instruction";
  } else if (group > 1) {
    why = std::to_string(executions) + " executions in " + std::to_string(mine.size()) + " " +
          mine[0]->opcode + " (" + std::to_string(group) + " each)";
  } else if (!members.empty()) {
    why = "one " + mine[0]->opcode + " per thread for steps " + std::to_string(i) + "-" +
          std::to_string(members.back());
  }
  if (!why.empty() && c.instructions > 0) {
    char per[64];
    std::snprintf(per, sizeof per, ", %.3g wavefronts per instruction",
                  static_cast<double>(c.wavefronts) / static_cast<double>(c.instructions));
    why += per;
  }
  if (invalid) why += (why.empty() ? "" : "; ") + std::string("addresses not aligned to it");
  if (predicated && idle > 0)
    why += (why.empty() ? "" : "; ") + std::string("predicated (") + mine[0]->predicate +
           "), not branched over: every warp issues it, " + std::to_string(idle) +
           " warp instructions without an active lane (0 wavefronts)";
  if (!serves.empty())
    why += (why.empty() ? "" : "; ") + std::string("its line also holds the instruction of step") +
           (serves.size() > 1 ? "s " : " ") + std::to_string(serves.front()) +
           (serves.size() > 1 ? '-' + std::to_string(serves.back()) : std::string());
  if (speculated)
    why += (why.empty() ? "" : "; ") +
           std::string(
               "unpredicated: every lane of every warp accesses it (the guard acts on "
               "the value's use)");
  return why;
}

// The trace without the guards of the steps the compiler accesses unpredicated (and of the steps
// their line also serves); nullopt where no step is.
std::optional<Analysis> unguarded_trace(const Scenario& s, const Analysis& a,
                                        const std::vector<int>& memory,
                                        const std::vector<std::vector<const SassInstruction*>>& own,
                                        const std::vector<std::vector<int>>& serves,
                                        const TraceOptions& block) {
  Scenario unguarded = s;
  bool need_unguarded = false;
  for (int i : memory) {
    const auto& mine = own[static_cast<size_t>(i)];
    if (s.steps[static_cast<size_t>(i)].guard.empty() || mine.empty()) continue;
    if (mine[0]->predicate.empty() && !mine[0]->under_branch) {
      unguarded.steps[static_cast<size_t>(i)].guard.clear();
      for (int o : serves[static_cast<size_t>(i)])
        unguarded.steps[static_cast<size_t>(o)].guard.clear();
      need_unguarded = true;
    }
  }
  if (!need_unguarded) return std::nullopt;
  AnalysisResult r = analyze(unguarded, a.arch, block);
  if (r.analysis && r.analysis->steps.size() == a.steps.size()) return std::move(r.analysis);
  return std::nullopt;
}

std::string join_sass(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Instructions on one step's lines beyond its executions serve the next steps' executions
// (ptxas gives neighbouring accesses one line, or moves a loop's later loads up among the
// previous step's, and the hardware counts them on that line): they stay with the step whose
// line holds them, which also serves those executions, taken from the next steps in order (all
// of a step without instructions of its own; of one with fewer instructions than executions, as
// many as it lacks instructions, its first ones). lent[i]: the executions step i also serves;
// served_by[o]: the step serving o's executions; execs loses the executions lent.
void lend_surplus(const std::vector<int>& memory,
                  const std::vector<std::vector<const SassInstruction*>>& own,
                  std::vector<std::vector<int>>& execs, std::vector<std::vector<int>>& lent,
                  std::vector<std::vector<int>>& serves, std::vector<int>& served_by) {
  for (size_t m = 0; m < memory.size(); ++m) {
    const int i = memory[m];
    const size_t mine = own[static_cast<size_t>(i)].size();
    size_t have = std::max<size_t>(execs[static_cast<size_t>(i)].size(), 1);
    for (size_t j = m + 1; j < memory.size() && mine > have; ++j) {
      const int o = memory[j];
      auto& theirs = execs[static_cast<size_t>(o)];
      const size_t own_o = own[static_cast<size_t>(o)].size();
      if (theirs.size() <= own_o) break;
      const size_t take = own_o == 0 ? theirs.size() : std::min(mine - have, theirs.size() - own_o);
      auto& l = lent[static_cast<size_t>(i)];
      l.insert(l.end(), theirs.begin(), theirs.begin() + static_cast<std::ptrdiff_t>(take));
      theirs.erase(theirs.begin(), theirs.begin() + static_cast<std::ptrdiff_t>(take));
      serves[static_cast<size_t>(i)].push_back(o);
      served_by[static_cast<size_t>(o)] = i;
      have += take;
      if (own_o > 0) break;
    }
  }
}

// The executions of `ex` whose warps all access as an earlier one does (the same lanes, the same
// addresses: a loop-invariant load) left out.
std::vector<int> distinct_executions(const Analysis& a, const std::vector<int>& ex) {
  std::vector<int> out;
  for (int e : ex) {
    const auto& we = a.warps[static_cast<size_t>(e)];
    bool seen = false;
    for (int d : out) {
      const auto& wd = a.warps[static_cast<size_t>(d)];
      bool same = wd.size() == we.size();
      for (size_t w = 0; same && w < we.size(); ++w)
        same = wd[w].access.mask == we[w].access.mask && wd[w].access.addr == we[w].access.addr;
      seen |= same;
    }
    if (!seen) out.push_back(e);
  }
  return out;
}

// A compare-and-swap loop whose addresses other warps of the block also update in the same step:
// a warp's tries then depend on how the warps interleave (an H100 took 14 instructions where
// each warp alone takes 8: tests/data/scen19/s19-atomic-float.json step 2).
bool warps_share_addresses(const Analysis& a, const std::vector<int>& ex) {
  for (int e : ex) {
    std::map<uint32_t, size_t> first_warp;
    const auto& ws = a.warps[static_cast<size_t>(e)];
    for (size_t w = 0; w < ws.size(); ++w)
      for (uint32_t rest = ws[w].access.mask; rest; rest &= rest - 1) {
        const uint32_t at = ws[w].access.addr[static_cast<size_t>(std::countr_zero(rest))];
        const auto [it, fresh] = first_warp.emplace(at, w);
        if (!fresh && it->second != w) return true;
      }
  }
  return false;
}

// Each shared instruction of the listing on the kernel's file to the step whose lines hold it
// (the last step starting at or before its line): own[step] the executed ones, pads[step] the
// never-executed ones (ptxas's @!PT LDS RZ, [RZ]).
void attribute_instructions(const Scenario& s, const KernelSource& k,
                            const std::vector<SassInstruction>& sass,
                            std::vector<std::vector<const SassInstruction*>>& own,
                            std::vector<int64_t>& pads) {
  const size_t n = s.steps.size();
  std::vector<std::pair<int, int>> starts;
  for (size_t i = 0; i < k.step_line.size() && i < n; ++i)
    if (k.step_line[i] > 0) starts.emplace_back(k.step_line[i], static_cast<int>(i));
  std::sort(starts.begin(), starts.end());
  for (const SassInstruction& in : sass) {
    if (!in.shared() || in.line == 0 || !same_file(in.file, k.file_name)) continue;
    int found = -1;
    for (const auto& [line, step] : starts)
      if (static_cast<int64_t>(line) <= static_cast<int64_t>(in.line)) found = step;
    if (found < 0 || !s.steps[static_cast<size_t>(found)].is_memory()) continue;
    if (in.never_executes())
      ++pads[static_cast<size_t>(found)];
    else
      own[static_cast<size_t>(found)].push_back(&in);
  }
}

// A contended compare-and-swap loop (warps_share_addresses()): the most any interleaving can
// take into c.max_instructions and c.max_wavefronts (c's figures, each warp alone, the least),
// and the reason's sentence saying so.
std::string contended_range(const Analysis& a, const std::vector<int>& ex, CompiledStep& c) {
  Cost most;
  for (int e : ex) {
    const auto& ws = a.warps[static_cast<size_t>(e)];
    for (size_t w = 0; w < ws.size(); ++w)
      if (ws[w].access.mask) cas_loop_bound(*a.arch, ws, w, most);
  }
  c.max_instructions = most.instructions;
  c.max_wavefronts = most.wavefronts;
  char range[160];
  std::snprintf(range, sizeof range, "between %lld / %lld (each warp alone) and %lld / %lld",
                static_cast<long long>(c.instructions), static_cast<long long>(c.wavefronts),
                static_cast<long long>(most.instructions), static_cast<long long>(most.wavefronts));
  return std::string(
             "; other warps update the same addresses in this step: each warp's tries depend on "
             "how the warps interleave, so the hardware takes ") +
         range +
         " instructions / wavefronts (a failed try needs another warp's store to its word "
         "between its load and its compare-and-swap)";
}

// The reason's clauses beyond reason_of's: instructions of mixed widths, executions counted on
// another step's lines, loads the compiler issued once, a contended CAS loop, and ptxas's pads.
// Sets c.reason when the compiler's counts differ from the model as written (or pads sit beside).
void finish_reason(CompiledStep& c, std::string why, const Analysis& a, const std::vector<int>& ex,
                   const std::vector<std::pair<const SassInstruction*, int>>& mixed, size_t written,
                   size_t reused, int served_by, Form form, int64_t pads, size_t own_instructions) {
  if (!mixed.empty()) {
    std::string ops;
    for (const auto& [in, covers] : mixed)
      ops += (ops.empty() ? "" : ", ") + in->opcode + " (" + std::to_string(covers) + ")";
    why = std::to_string(ex.size()) + " executions in " + std::to_string(mixed.size()) +
          " instructions of different widths: " + ops + (why.empty() ? "" : "; " + why);
  }
  if (const size_t moved = written - ex.size() - reused; moved > 0)
    why += (why.empty() ? "" : "; ") + std::string("step ") + std::to_string(served_by) +
           "'s lines hold the instructions of " + std::to_string(moved) +
           " of its executions (counted there, as the hardware counts them)";
  if (reused > 0)
    why += (why.empty() ? "" : "; ") + std::to_string(reused) +
           " executions at the addresses of another: the compiler loaded the value once";
  if (form == Form::CasLoop && warps_share_addresses(a, ex)) why += contended_range(a, ex, c);
  if (c.instructions != c.written_instructions || c.wavefronts != c.written_wavefronts)
    c.reason = why.empty() ? "the compiler's instructions differ" : why;
  c.cas_loop = form == Form::CasLoop;
  // Every warp issuing the step's instructions issues its pads too (they sit beside them).
  if (pads > 0) {
    c.pad_instructions = c.instructions * pads / static_cast<int64_t>(own_instructions);
    c.reason += std::string(c.reason.empty() ? "" : "; ") + std::to_string(pads) +
                " @!PT LDS RZ, [RZ] beside it (ptxas's pads, never executed): " +
                std::to_string(c.pad_instructions) +
                " warp instructions the L1 unit counts as shared loads, 0 wavefronts";
  }
}

// A cp.async's sources in several global passes: the L1's counter counts them (the rule), CUPTI's
// per-instruction counter one pass (measured on an H200); where the two differ, the reason says
// so (copy_passes_caveat()) and later_passes holds the difference.
void add_copy_caveat(const Analysis& a, const std::vector<int>& ex, CompiledStep& c) {
  int passes = 0;
  int64_t rule = 0, one = 0;
  for (int e : ex)
    for (const WarpStep& ws : a.warps[static_cast<size_t>(e)])
      if (ws.access.mask) {
        passes = std::max(passes, copy_global_passes(ws.access));
        rule += ws.result.wavefronts;
        one += copy_wavefronts_one_pass(*a.arch, ws.access);
      }
  if (std::string two = copy_passes_caveat(passes, rule, one); !two.empty()) {
    c.reason += (c.reason.empty() ? "" : "; ") + two;
    c.later_passes = rule - one;
  }
}

}  // namespace

std::vector<CompiledStep> compiled_steps(const Scenario& s, const Analysis& a,
                                         const KernelSource& k,
                                         const std::vector<SassInstruction>& sass,
                                         const TraceOptions& block) {
  const size_t n = s.steps.size();
  std::vector<std::vector<const SassInstruction*>> own(n);
  std::vector<int64_t> pads(n, 0);  // never-executed pads on each step's lines
  attribute_instructions(s, k, sass, own, pads);
  std::vector<std::vector<int>> execs(n);
  for (size_t e = 0; e < a.steps.size(); ++e)
    if (a.steps[e].tile >= 0)
      execs[static_cast<size_t>(a.steps[e].step)].push_back(static_cast<int>(e));
  std::vector<int> memory;
  for (size_t i = 0; i < n; ++i)
    if (s.steps[i].is_memory()) memory.push_back(static_cast<int>(i));
  const std::vector<std::vector<int>> written = execs;  // the model as written counts these
  std::vector<std::vector<int>> lent(n), serves(n);
  std::vector<int> served_by(n, -1);
  lend_surplus(memory, own, execs, lent, serves, served_by);
  // Guarded steps the compiler loads unpredicated: the trace without their guards.
  const std::optional<Analysis> spec = unguarded_trace(s, a, memory, own, serves, block);

  std::vector<CompiledStep> out;
  std::vector<int> covered_by(n, -1);
  for (size_t m = 0; m < memory.size(); ++m) {
    const int i = memory[m];
    const auto& mine = own[static_cast<size_t>(i)];
    std::vector<int> ex = execs[static_cast<size_t>(i)];
    CompiledStep c;
    c.step = i;
    for (int e : written[static_cast<size_t>(i)])
      for (const WarpStep& ws : a.warps[static_cast<size_t>(e)])
        if (ws.access.mask) ++c.written_instructions, c.written_wavefronts += ws.result.wavefronts;
    for (const SassInstruction* in : mine)
      c.sass.push_back((in->predicate.empty() ? "" : in->predicate + " ") + in->opcode);
    if (written[static_cast<size_t>(i)].empty()) {
      out.push_back(std::move(c));
      continue;
    }
    if (mine.empty()) {
      if (served_by[static_cast<size_t>(i)] >= 0) {
        c.reason = "its instruction is on step " +
                   std::to_string(served_by[static_cast<size_t>(i)]) +
                   "'s line (counted there, as the hardware counts it)";
      } else if (covered_by[static_cast<size_t>(i)] >= 0) {
        c.reason = "covered by step " + std::to_string(covered_by[static_cast<size_t>(i)]) +
                   "'s wider instruction";
      } else {
        c.reason =
            "no shared instruction: the compiler kept the value in a register (or "
            "removed the access)";
      }
      out.push_back(std::move(c));
      continue;
    }
    const OpSpec op = a.step_op(ex[0]);
    const int w = op.width, width = mine[0]->width();
    int group = 1;
    std::vector<int> members;  // other steps a wider instruction covers
    const bool plain = op.op == Op::Load || op.op == Op::Store;
    if (plain && width > w && w > 0 && width % w == 0) {
      const int g = width / w;
      if (static_cast<int>(mine.size()) * g == static_cast<int>(ex.size())) {
        group = g;
      } else if (ex.size() == 1) {
        for (size_t j = m + 1; j < memory.size() && static_cast<int>(members.size()) + 1 < g; ++j) {
          const int o = memory[j];
          if (!own[static_cast<size_t>(o)].empty() || execs[static_cast<size_t>(o)].size() != 1 ||
              s.steps[static_cast<size_t>(o)].tile != s.steps[static_cast<size_t>(i)].tile ||
              a.step_op(execs[static_cast<size_t>(o)][0]).op != op.op)
            break;
          members.push_back(o);
        }
        for (int o : members) covered_by[static_cast<size_t>(o)] = i;
      }
    }
    const bool predicated = !mine[0]->predicate.empty() && mine[0]->predicate != "@PT";
    // Atomics: a CAS loop (a float's atomicAdd), or one elected lane on a warp-uniform address.
    Form form = Form::Plain;
    if (op.op == Op::Atomic || op.op == Op::AtomicInc) {
      for (const SassInstruction* in : mine)
        if (in->opcode.rfind("ATOMS.CAST", 0) == 0) form = Form::CasLoop;
      if (form == Form::Plain && predicated && s.steps[static_cast<size_t>(i)].guard.empty() &&
          mine.size() == 1 && mine[0]->opcode.rfind("ATOMS", 0) == 0 && uniform(a, ex))
        form = Form::Elected;
    }
    // A loop's neighbouring accesses merged into instructions of different widths.
    const std::vector<std::pair<const SassInstruction*, int>> mixed =
        plain && group == 1 && members.empty()
            ? mixed_widths(mine, w, ex.size())
            : std::vector<std::pair<const SassInstruction*, int>>{};
    size_t reused = 0;  // loop-invariant loads the compiler issued once
    if (op.op == Op::Load && group == 1 && members.empty() && mine.size() < ex.size()) {
      std::vector<int> d = distinct_executions(a, ex);
      if (d.size() == mine.size()) reused = ex.size() - d.size(), ex = std::move(d);
    }
    if (op.op == Op::Load && group == 1 && members.empty() && width == w &&
        std::all_of(mine.begin(), mine.end(),
                    [](const SassInstruction* in) { return uniform_address(*in); }))
      form = Form::UniformAddress;
    const bool all_warps = !mine[0]->under_branch;
    const bool speculated =
        !predicated && all_warps && !s.steps[static_cast<size_t>(i)].guard.empty() && spec;
    const Analysis& src = speculated ? *spec : a;
    int idle = 0;
    bool invalid = false;
    auto add = [&](const Cost& cost) {
      c.instructions += cost.instructions;
      c.wavefronts += cost.wavefronts;
      idle += cost.idle_warps;
      invalid |= cost.invalid;
    };
    if (!mixed.empty()) {
      size_t x = 0;
      for (const auto& [in, covers] : mixed) {
        add(serve_execution(src, ex[x], op, in->width(), all_warps, form));
        x += static_cast<size_t>(covers);
      }
    } else {
      for (size_t x = 0; x < ex.size(); x += static_cast<size_t>(group))
        add(serve_execution(src, ex[x], op, members.empty() && group == 1 ? w : width, all_warps,
                            form));
    }
    for (int e : lent[static_cast<size_t>(i)]) {
      const OpSpec oop = a.step_op(e);
      const bool ospec =
          !predicated && all_warps && spec &&
          !s.steps[static_cast<size_t>(a.steps[static_cast<size_t>(e)].step)].guard.empty();
      add(serve_execution(ospec ? *spec : a, e, oop, oop.width, all_warps));
    }
    std::string why = reason_of(form, group, ex.size(), mine, i, members, c, invalid, predicated,
                                idle, serves[static_cast<size_t>(i)], speculated);
    finish_reason(c, std::move(why), a, ex, mixed, written[static_cast<size_t>(i)].size(), reused,
                  served_by[static_cast<size_t>(i)], form, pads[static_cast<size_t>(i)],
                  mine.size());
    if (op.op == Op::CpAsync) add_copy_caveat(a, ex, c);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<CompiledStep> compiled_launch(const Scenario& s, const Arch* arch,
                                          const KernelSource& k,
                                          const std::vector<SassInstruction>& sass, int64_t grid,
                                          std::string* why) {
  grid = std::max<int64_t>(1, grid);
  auto fail = [&](std::string m) {
    if (why) *why = std::move(m);
    return std::vector<CompiledStep>();
  };
  const bool per_block = uses_block_index(s);
  if (per_block && grid > detail::kMaxLaunchModelThreads / std::max<int64_t>(1, s.threads()))
    return fail("the launch (" + std::to_string(grid) + " blocks of " +
                std::to_string(s.threads()) + " threads) is too large to model block by block");
  std::vector<CompiledStep> sum;
  for (int64_t b = 0; b < (per_block ? grid : 1); ++b) {
    const TraceOptions o{b, grid};
    const AnalysisResult a = per_block ? analyze(s, arch, o) : analyze(s, arch);
    if (!a.analysis)
      return fail("block " + std::to_string(b) + ": " +
                  (a.errors.empty() ? std::string("?") : a.errors[0].format()));
    std::vector<CompiledStep> one = compiled_steps(s, *a.analysis, k, sass, o);
    const int64_t times = per_block ? 1 : grid;
    if (sum.empty()) {
      sum = std::move(one);
      for (CompiledStep& c : sum) {
        c.instructions *= times, c.wavefronts *= times, c.pad_instructions *= times;
        c.max_instructions *= times, c.max_wavefronts *= times;
        c.written_instructions *= times, c.written_wavefronts *= times;
        c.later_passes *= times;
      }
      continue;
    }
    for (size_t i = 0; i < sum.size() && i < one.size(); ++i) {
      CompiledStep& c = sum[i];
      // A bound over the launch: the blocks' bounds, a block without one counting its figures.
      if (c.bounded() || one[i].bounded()) {
        const CompiledStep& o = one[i];
        c.max_instructions = (c.bounded() ? c.max_instructions : c.instructions) +
                             (o.bounded() ? o.max_instructions : o.instructions);
        c.max_wavefronts = (c.bounded() ? c.max_wavefronts : c.wavefronts) +
                           (o.bounded() ? o.max_wavefronts : o.wavefronts);
      }
      c.instructions += one[i].instructions, c.wavefronts += one[i].wavefronts;
      c.pad_instructions += one[i].pad_instructions;
      c.later_passes += one[i].later_passes;
      c.written_instructions += one[i].written_instructions;
      c.written_wavefronts += one[i].written_wavefronts;
      if (c.reason.empty()) c.reason = one[i].reason;  // the first block that says why
      c.cas_loop |= one[i].cas_loop;
    }
  }
  // A step as compiled as written says nothing, but what the per-instruction counter counts for
  // its cp.async sources (copy_passes_caveat()), which differs from the figures themselves.
  for (CompiledStep& c : sum)
    if (!c.differs()) {
      const size_t two = c.reason.find(kCopyCaveatStart);
      c.reason = two == std::string::npos ? std::string() : c.reason.substr(two);
    }
  return sum;
}

CompiledTotals compiled_totals(const Scenario& s, const std::vector<CompiledStep>& steps) {
  CompiledTotals t;
  for (const CompiledStep& c : steps) {
    if (c.step < 0 || static_cast<size_t>(c.step) >= s.steps.size()) continue;
    t.instructions += c.instructions + c.pad_instructions;
    t.pad_instructions += c.pad_instructions;
    if (!s.steps[static_cast<size_t>(c.step)].info().wavefront_counter.empty())
      t.wavefronts += c.wavefronts;
  }
  return t;
}

std::string format_compiled_steps(const std::vector<CompiledStep>& steps) {
  std::string out;
  char line[256];
  for (const CompiledStep& c : steps) {
    if (!c.differs()) continue;
    std::snprintf(line, sizeof line, "%4d  %8lld %9lld  %8lld %9lld  ", c.step,
                  static_cast<long long>(c.written_instructions),
                  static_cast<long long>(c.written_wavefronts),
                  static_cast<long long>(c.instructions), static_cast<long long>(c.wavefronts));
    out += line + c.reason + (c.sass.empty() ? "" : " [" + join_sass(c.sass) + "]") + "\n";
  }
  if (out.empty()) return out;
  return "step  as written: instr wavefronts  as compiled: instr wavefronts  (per block)  why\n" +
         out;
}

AsCompiled as_compiled(const Scenario& s, const Arch* arch) {
  AsCompiled r;
  const GenerateResult g = generate_kernel(s, RunMode::Written);
  if (!g.kernel) {
    r.error = "no kernel: " + (g.errors.empty() ? std::string("?") : g.errors[0].format());
    return r;
  }
  const AnalysisResult a = analyze(s, arch);
  if (!a.analysis) {
    r.error = "no model: " + (a.errors.empty() ? std::string("?") : a.errors[0].format());
    return r;
  }
  const std::vector<char> cubin = compiled_cubin(*g.kernel, "sm_90", &r.error);
  if (cubin.empty()) return r;
  const std::string text = disassemble(cubin, &r.error);
  if (text.empty()) return r;
  r.sass = parse_nvdisasm(text);
  r.steps = compiled_steps(s, *a.analysis, *g.kernel, r.sass);
  return r;
}

CasLoopCost cas_loop_cost(const Arch& arch, const std::vector<WarpAccess>& warps) {
  std::vector<WarpStep> steps(warps.size());
  for (size_t w = 0; w < warps.size(); ++w) steps[w].access = warps[w];
  Cost alone, most;
  std::map<uint32_t, size_t> first_warp;
  bool shared = false;
  for (size_t w = 0; w < warps.size(); ++w) {
    if (!warps[w].mask) continue;
    cas_loop(arch, warps[w], alone);
    for (uint32_t rest = warps[w].mask; rest; rest &= rest - 1) {
      const auto [it, fresh] =
          first_warp.emplace(warps[w].addr[static_cast<size_t>(std::countr_zero(rest))], w);
      shared = shared || (!fresh && it->second != w);
    }
  }
  CasLoopCost c{alone.instructions, alone.wavefronts, 0, 0};
  if (shared) {
    for (size_t w = 0; w < warps.size(); ++w)
      if (warps[w].mask) cas_loop_bound(arch, steps, w, most);
    c.max_instructions = most.instructions;
    c.max_wavefronts = most.wavefronts;
  }
  return c;
}

}  // namespace bankviz
