// nvcc.cpp: a user's kernel compiled by nvcc with the user's flags (nvcc.h).
//
// [SECTION] Which compiler
// [SECTION] nvcc, contained
// [SECTION] The kernel among the cubin's functions
#include "bankviz/nvcc.h"

#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "bankviz/compiled.h"
#include "bankviz/recording.h"
#include "bankviz/sass.h"
#include "contained_run.h"
#include "sandbox.h"

namespace bankviz {

// [SECTION] Which compiler =======================================================================

namespace {

bool uncontained_asked() {
  const char* anyway = std::getenv("BANKVIZ_RECORD_UNCONTAINED");
  return anyway && std::string(anyway) == "1";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::string profile_nvcc(const ProfileRequest& q, std::string* why) {
  if (q.compiler == ProfileCompiler::Nvrtc) {
    *why = "--compiler nvrtc";
    return {};
  }
  const std::string nvcc = find_cuda_tool("nvcc");
  if (nvcc.empty()) {
    *why = "nvcc not found in $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin or PATH";
    return {};
  }
  std::string no_landlock;
  if (landlock_abi(&no_landlock) == 0 && !uncontained_asked()) {
    *why = "nvcc found (" + nvcc + ") but it cannot be contained here: " + no_landlock +
           " (BANKVIZ_RECORD_UNCONTAINED=1 runs it uncontained)";
    return {};
  }
  return nvcc;
}

bool nvrtc_may_stand_in(const ProfileRequest& q) {
  return q.compiler != ProfileCompiler::Nvcc && !q.nvcc_flags_given;
}

std::string nvcc_failed(const std::string& error) {
  std::string first = error.substr(0, error.find('\n'));
  const size_t more = error.find('\n');
  if (more != std::string::npos && more + 1 < error.size())
    first += " " + error.substr(more + 1, error.find('\n', more + 1) - more - 1);
  return "nvcc failed: " + first.substr(0, 300);
}

UserBuild user_build(const ProfileRequest& q, const std::string& sm) {
  std::string why;
  UserBuild by_nvcc;
  if (const std::string nvcc = profile_nvcc(q, &why); !nvcc.empty()) {
    by_nvcc = nvcc_build(q, nvcc, sm);
    if (by_nvcc.error.empty() || !nvrtc_may_stand_in(q)) return by_nvcc;
    why = nvcc_failed(by_nvcc.error);
  }
  UserBuild b;
  if (!nvrtc_may_stand_in(q)) {
    b.error = "nvcc cannot compile the kernel (" + why +
              "); without --compiler nvcc and --nvcc-flags NVRTC compiles it";
    return b;
  }
  KernelSource k;
  k.text = q.source;
  k.kernel_name = q.kernel;
  k.file_name = q.file_name;
  const auto t0 = std::chrono::steady_clock::now();
  b.cubin = compiled_cubin(k, sm, &b.error, &b.lowered);
  b.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  b.compiled_by = "NVRTC (-lineinfo; " + why + ")";
  if (b.cubin.empty() && !by_nvcc.error.empty()) b.error = by_nvcc.error;  // nvcc's words first
  return b;
}

// [SECTION] nvcc, contained ======================================================================

namespace {

// The nvcc command's arguments after the program: a cubin for `arch` from `source` into `cubin`.
std::vector<std::string> nvcc_arguments(const ProfileRequest& q, const std::string& arch,
                                        const std::string& folder, const std::string& source,
                                        const std::string& cubin) {
  std::vector<std::string> flags = q.nvcc_flags;
  if (flags.empty()) {
    std::string unused, error;
    flags = *parse_nvcc_flags(kDefaultNvccFlags, &unused, &error);
  }
  const bool lines = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
    return f == "-lineinfo" || f == "--generate-line-info" || f == "-G";
  });
  if (!lines) flags.push_back("-lineinfo");
  std::vector<std::string> args = {"-cubin", "-arch=" + arch};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back("-I" + folder);  // `#include "x.h"` beside the kernel (it is compiled elsewhere)
  args.insert(args.end(), {"-o", cubin, source});
  return args;
}

// The folders the compile may read: the kernel's and every -I folder.
std::vector<std::string> source_folders(const ProfileRequest& q, const std::string& folder) {
  std::vector<std::string> out = {folder};
  for (const std::string& f : q.nvcc_flags)
    if (f.rfind("-I", 0) == 0 && f.size() > 2) out.push_back(f.substr(2));
  return out;
}

std::string without(std::string s, const std::string& what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at))
    s.erase(at, what.size());
  return s;
}

}  // namespace

UserBuild nvcc_build(const ProfileRequest& q, const std::string& nvcc, const std::string& sm) {
  UserBuild b;
  b.by_nvcc = true;
  const std::string arch = q.nvcc_arch.empty() ? sm : q.nvcc_arch;
  if (arch != sm && arch != sm + "a") {
    b.error = "--nvcc-flags asks for -arch=" + q.nvcc_arch + "; this GPU is " + sm +
              " (bankviz compiles for the GPU it runs on: leave -arch out, or give " + sm + ")";
    return b;
  }
  if (q.file_name.find_first_of("\n\r") != std::string::npos) {
    b.error = "the file's name holds a line break";
    return b;
  }
  std::error_code ec;
  std::string folder = std::filesystem::path(q.file_name).parent_path().string();
  folder = std::filesystem::absolute(folder.empty() ? "." : folder, ec).lexically_normal().string();
  for (const std::string& f : source_folders(q, folder))
    if (!std::filesystem::is_directory(f, ec)) {
      b.error = "--nvcc-flags: -I" + f + " is not a folder";
      return b;
    }
  detail::TempDir dir;
  if (!dir.problem.empty()) {
    b.error = dir.problem;
    return b;
  }
  // The source as read, named as given: its line table and messages then name the user's file.
  std::string name;
  for (char c : q.file_name)
    name += (c == '"' || c == '\\') ? std::string{'\\', c} : std::string{c};
  const std::string source = dir.path + "/kernel.cu", cubin = dir.path + "/kernel.cubin";
  {
    std::ofstream f(source, std::ios::binary);
    f << "#line 1 \"" << name << "\"\n" << q.source;
    if (!f) {
      b.error = "cannot write the kernel to " + source;
      return b;
    }
  }
  Confinement contained = compile_confinement(nvcc, source_folders(q, folder), dir.path);
  if (!contained.problem.empty() && !uncontained_asked()) {
    b.error = "cannot contain nvcc (" + contained.problem + "): not compiled";
    return b;
  }
  std::vector<std::string> argv = {nvcc};
  const std::vector<std::string> args = nvcc_arguments(q, arch, folder, source, cubin);
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> shown(args.begin(), args.end() - 4);  // without -I, -o, the files
  b.compiled_by = "nvcc (" + nvcc + " " + joined(shown) + ")";
  const auto t0 = std::chrono::steady_clock::now();
  const detail::Ran r =
      detail::run(argv, 120, size_t{1} << 20,
                  detail::Limits{RLIM_INFINITY, rlim_t{8} << 30, rlim_t{256} << 20, true}, dir.path,
                  contained.problem.empty() ? &contained : nullptr);
  b.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  b.log = without(r.out + r.err, dir.path + "/");
  if (!r.started)
    b.error = "cannot run " + nvcc + ": " + r.error;
  else if (r.timed_out)
    b.error = "nvcc did not finish in 120 s";
  else if (r.exit_code == detail::kUnconfined)
    b.error = "cannot contain nvcc: not compiled";
  else if (r.exit_code != 0)
    b.error =
        "nvcc: the kernel does not compile (" + joined(shown) + "):\n" +
        (b.log.empty() ? "exit status " + std::to_string(r.exit_code) : detail::tail(b.log, 16));
  if (!b.error.empty()) return b;
  std::ifstream in(cubin, std::ios::binary);
  b.cubin.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (b.cubin.empty()) {
    b.error = "nvcc wrote no cubin";
    return b;
  }
  std::string why;
  b.lowered = kernel_symbol(b.cubin, q.kernel, &why);
  if (b.lowered.empty()) {
    // A template named without an instance the file makes: the GPU recording's words (one home).
    const std::string t = template_without_instance(q.source, q.kernel);
    b.error = t.empty() ? why + " (compiled by " + b.compiled_by + ")" : t;
    b.cubin.clear();
  }
  return b;
}

// [SECTION] The kernel among the cubin's functions ================================================

namespace {

template <class T>
bool read_at(const std::vector<char>& f, uint64_t at, T* out) {
  if (at > f.size() || f.size() - at < sizeof(T)) return false;
  std::memcpy(out, f.data() + at, sizeof(T));
  return true;
}

std::string c_string_at(const std::vector<char>& f, uint64_t at, uint64_t end) {
  std::string s;
  for (; at < end && at < f.size() && f[at] != '\0' && s.size() < 4096; ++at) s += f[at];
  return s;
}

// The names of the cubin's functions (ELF64 symbols of type FUNC); empty when it is not ELF64.
std::vector<std::string> function_symbols(const std::vector<char>& f) {
  std::vector<std::string> out;
  if (f.size() < 64 ||
      std::memcmp(f.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      f[4] != 2)
    return out;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0;
  if (!read_at(f, 0x28, &shoff) || !read_at(f, 0x3A, &shentsize) || !read_at(f, 0x3C, &shnum) ||
      shentsize < 64)
    return out;
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t sh = shoff + uint64_t{i} * shentsize;
    uint32_t type = 0, link = 0;
    uint64_t offset = 0, size = 0;
    if (!read_at(f, sh + 4, &type) || type != 2 /* SHT_SYMTAB */ || !read_at(f, sh + 24, &offset) ||
        !read_at(f, sh + 32, &size) || !read_at(f, sh + 40, &link) || link >= shnum)
      continue;
    const uint64_t strsh = shoff + uint64_t{link} * shentsize;
    uint64_t stroff = 0, strsize = 0;
    if (!read_at(f, strsh + 24, &stroff) || !read_at(f, strsh + 32, &strsize)) continue;
    for (uint64_t s = 0; s + 24 <= size && out.size() < 100000; s += 24) {
      uint32_t name = 0;
      uint8_t info = 0;
      if (!read_at(f, offset + s, &name) || !read_at(f, offset + s + 4, &info)) break;
      if ((info & 0xf) != 2 /* STT_FUNC */ || name >= strsize) continue;
      out.push_back(c_string_at(f, stroff + name, stroff + strsize));
    }
  }
  return out;
}

std::string no_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// "void k<float, 4>(float*)" -> "k<float,4>"; "ns::k(int)" -> "ns::k"; an extern "C" name as it is.
std::string callable_name(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  std::string s = status == 0 && d ? d.get() : symbol;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0) {
      s.resize(i);
      break;
    }
  }
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  return no_spaces(s);
}

}  // namespace

std::string kernel_symbol(const std::vector<char>& cubin, const std::string& kernel,
                          std::string* why) {
  const std::vector<std::string> functions = function_symbols(cubin);
  const std::string want = no_spaces(kernel);
  std::vector<std::string> exact, instances;
  for (const std::string& f : functions) {
    const std::string n = callable_name(f);
    if (n == want)
      exact.push_back(f);
    else if (n.rfind(want + "<", 0) == 0)
      instances.push_back(f);
  }
  if (exact.size() == 1) return exact.front();
  if (exact.empty() && instances.size() == 1) return instances.front();
  std::string names;
  for (const std::string& f : exact.empty() ? instances : exact)
    names += (names.empty() ? "" : ", ") + callable_name(f);
  if (!exact.empty() || instances.size() > 1) {
    *why = "\"" + kernel + "\" names " + std::to_string(exact.size() + instances.size()) +
           " functions of the compiled kernel (" + names + "): name one";
    return {};
  }
  std::string all;
  for (const std::string& f : functions) all += (all.empty() ? "" : ", ") + callable_name(f);
  *why = "no __global__ function named \"" + kernel + "\" in the compiled file" +
         (functions.empty() ? std::string(" (it holds no function)") : " (it holds " + all + ")");
  return {};
}

}  // namespace bankviz
