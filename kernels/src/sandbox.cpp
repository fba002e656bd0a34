// sandbox.cpp: the CPU recording's seccomp allow-list (sandbox.h).
#include "sandbox.h"

#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bankviz/io.h"

#if BANKVIZ_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace bankviz {

SandboxFilter recording_filter() {
  SandboxFilter f;
#if !BANKVIZ_HAVE_SECCOMP
  f.problem = "bankviz was built without libseccomp (libseccomp-dev)";
  return f;
#else
  // Every system call not named below fails with EPERM; a call of another ABI (int 0x80, x32)
  // raises SIGSYS (below).
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (!ctx) {
    f.problem = "libseccomp cannot make a filter";
    return f;
  }
  struct Release {
    scmp_filter_ctx c;
    ~Release() { seccomp_release(c); }
  } release{ctx};
  // A call of another ABI (int 0x80, x32) is trapped, not killed: the recording's SIGSYS handler
  // says which call it was (bankviz_record.h), then ends the process.
  if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP) != 0) {
    f.problem = "libseccomp cannot set the action for other ABIs";
    return f;
  }
  // What the static recording calls (strace of a recorded kernel: startup, malloc, stdio on the
  // pipes, the fibers' swapcontext, exit) and what libstdc++/glibc may call on their own paths
  // (threads' futexes, clocks, sleeping, signals the program sends itself are not among them).
  const int allowed[] = {
      // descriptors it already has (0 /dev/null, 1 and 2 the pipes): no call that names a path
      SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
      SCMP_SYS(pwrite64), SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(fstat),
      // memory
      SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap),
      SCMP_SYS(madvise),
      // signals (the fibers save and restore the mask), the thread's own bookkeeping
      SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigreturn),
      SCMP_SYS(sigaltstack), SCMP_SYS(futex), SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list),
      SCMP_SYS(rseq), SCMP_SYS(arch_prctl), SCMP_SYS(getpid), SCMP_SYS(gettid),
      SCMP_SYS(sched_yield),
      // time and randomness
      SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday), SCMP_SYS(time),
      SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(getrandom),
      // the end, and the one exec of the recording itself (what it execs keeps this filter)
      SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(execve)};
  for (int nr : allowed) {
    // A call this architecture does not have (arch_prctl on arm64) is left out; a rule that
    // cannot be added leaves that call refused, the safe side.
    if (nr < 0) continue;
    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  }
  // prlimit64 only to read its own limits (glibc's startup reads the stack's): raising one back
  // (as root, who may) or changing another process's is refused.
  const scmp_arg_cmp own_and_read_only[] = {{0, SCMP_CMP_EQ, 0, 0}, {2, SCMP_CMP_EQ, 0, 0}};
  seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, own_and_read_only);
  // The program, exported as BPF into memory (libseccomp 2.5 writes it to a descriptor).
  const int fd = ::memfd_create("bankviz-seccomp", MFD_CLOEXEC);
  if (fd < 0) {
    f.problem = std::string("memfd_create: ") + std::strerror(errno);
    return f;
  }
  const int rc = seccomp_export_bpf(ctx, fd);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (rc != 0 || size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0 ||
      size > off_t{1} << 20) {
    ::close(fd);
    f.problem = "libseccomp cannot export the filter";
    return f;
  }
  f.program.resize(static_cast<size_t>(size) / sizeof(sock_filter));
  const ssize_t got = ::pread(fd, f.program.data(), static_cast<size_t>(size), 0);
  ::close(fd);
  if (got != size) {
    f.program.clear();
    f.problem = "libseccomp cannot export the filter";
  }
  return f;
#endif
}

namespace {

// The source with each backslash-newline removed and each comment a space, newlines kept (the
// preprocessor's first phases, as far as an #include line needs them). Line numbers stay those of
// the file: a spliced line's newline is put back after the logical line.
std::vector<std::string> logical_lines(const std::string& s) {
  std::vector<std::string> lines(1);
  size_t owed = 0;  // newlines removed by splices inside the current logical line
  auto newline = [&] {
    for (; owed > 0; --owed) lines.emplace_back();
    lines.emplace_back();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      ++i;
      ++owed;
    } else if (c == '\n') {
      newline();
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      for (size_t j = i + 2; j < std::min(end, s.size()); ++j)
        if (s[j] == '\n') ++owed;  // a comment across lines: the include line is not one of them
      lines.back() += ' ';
      if (end == std::string::npos) break;
      i = end + 1;
    } else if (c == '"' && i > 0 && s[i - 1] == 'R') {
      // A raw string R"d( ... )d": it may span lines and hold anything, /* and # included.
      const size_t open = s.find('(', i + 1);
      const size_t end = open == std::string::npos || open - i > 17
                             ? std::string::npos
                             : s.find(')' + s.substr(i + 1, open - i - 1) + '"', open + 1);
      if (end == std::string::npos) break;  // not a valid raw string: the compiler refuses it
      const size_t after = end + (open - i - 1) + 2;
      owed += static_cast<size_t>(std::count(s.begin() + static_cast<std::ptrdiff_t>(i),
                                             s.begin() + static_cast<std::ptrdiff_t>(after), '\n'));
      lines.back() += "\"\"";
      i = after - 1;
    } else if (c == '"' || c == '\'') {
      // A string or character literal (or a digit separator: then to the line's end at most):
      // what looks like a comment in it is none. Kept, for the #include "x" form.
      lines.back() += c;
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] != '\n') lines.back() += s[i++];
        lines.back() += s[i];
      }
      if (i < s.size() && s[i] == '\n') {
        newline();
      } else if (i < s.size()) {
        lines.back() += c;
      }
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
    } else {
      lines.back() += c;
    }
  }
  return lines;
}

// The name of an #include line in its "x" or <x> form, or "" (not an include, or a macro's).
std::string included_name(const std::string& line) {
  size_t i = line.find_first_not_of(" \t\f\v\r");
  if (i == std::string::npos) return {};
  if (line[i] == '#')
    ++i;
  else if (line.compare(i, 2, "%:") == 0)  // the digraph of #
    i += 2;
  else if (line.compare(i, 3, "?\?=") == 0)  // its trigraph (with -trigraphs)
    i += 3;
  else
    return {};
  i = line.find_first_not_of(" \t\f\v\r", i);
  if (i == std::string::npos) return {};
  size_t word = i;
  while (word < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[word])) || line[word] == '_'))
    ++word;
  const std::string directive = line.substr(i, word - i);
  if (directive != "include" && directive != "include_next" && directive != "import") return {};
  i = line.find_first_not_of(" \t\f\v\r", word);
  if (i == std::string::npos) return {};
  const char close = line[i] == '"' ? '"' : line[i] == '<' ? '>' : 0;
  if (!close) return {};
  const size_t end = line.find(close, i + 1);
  if (end == std::string::npos) return {};
  return line.substr(i + 1, end - i - 1);
}

// Why `path` is no file to include, or "" (a regular file, or nothing there).
std::string not_includable(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || st.type() == std::filesystem::file_type::not_found) return {};
  if (std::string p = regular_file_problem(path); !p.empty()) return p;
  return kernel_view_problem(path);
}

}  // namespace

std::string include_problem(const std::string& source, const std::vector<std::string>& roots) {
  const std::vector<std::string> lines = logical_lines(source);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string name = included_name(lines[n]);
    if (name.empty()) continue;
    const std::filesystem::path p(name);
    std::vector<std::filesystem::path> candidates;
    if (p.is_absolute()) {
      candidates.push_back(p);
    } else {
      for (const std::string& r : roots)
        if (!r.empty()) candidates.push_back((std::filesystem::path(r) / p).lexically_normal());
      // A climb with .. from any folder deep enough reaches /: what it names from there.
      if (name.find("..") != std::string::npos)
        candidates.push_back((std::filesystem::path("/") / p).lexically_normal());
    }
    for (const std::filesystem::path& c : candidates) {
      const std::string why = not_includable(c.string());
      if (!why.empty())
        return "line " + std::to_string(n + 1) + ": #include \"" + name.substr(0, 200) +
               "\" is refused: " + why +
               " (an #include must name a regular file; the compiler would read it until its "
               "time or memory limit)";
    }
  }
  return {};
}

std::string line_directive_problem(const std::string& source) {
  const std::vector<std::string> lines = logical_lines(source);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& l = lines[n];
    size_t i = l.find_first_not_of(" \t\f\v\r");
    if (i == std::string::npos) continue;
    if (l[i] == '#')
      ++i;
    else if (l.compare(i, 2, "%:") == 0)
      i += 2;
    else
      continue;
    i = l.find_first_not_of(" \t\f\v\r", i);
    if (i == std::string::npos) continue;
    const bool directive =
        std::isdigit(static_cast<unsigned char>(l[i])) ||
        (l.compare(i, 4, "line") == 0 &&
         (i + 4 == l.size() ||
          !(std::isalnum(static_cast<unsigned char>(l[i + 4])) || l[i + 4] == '_')));
    if (directive)
      return "line " + std::to_string(n + 1) +
             ": a #line directive renumbers the file's lines, and the recording names each "
             "access by its line in the file as it is: remove it to record this kernel";
  }
  return {};
}

bool enter_sandbox(const SandboxFilter& filter) {
  return !filter.program.empty() && enter_seccomp(filter.program);
}

bool enter_seccomp(const std::vector<sock_filter>& filter) {
  if (filter.empty()) return true;
  if (filter.size() > 0xffff) return false;
  const sock_fprog program{static_cast<unsigned short>(filter.size()),
                           const_cast<sock_filter*>(filter.data())};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

void close_descriptors_from(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0u, 0u) == 0) return;
#endif
  // A kernel before 5.9: each descriptor up to the limit (in the child: nothing else to do).
  const long max = ::sysconf(_SC_OPEN_MAX);
  for (long fd = first; fd < (max > 0 && max < (1 << 20) ? max : 65536); ++fd)
    ::close(static_cast<int>(fd));
}

}  // namespace bankviz
