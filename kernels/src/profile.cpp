// profile.cpp: the pure parts of profiling a user's kernel (profile.h): the launch's text, the
// request's checks, per-line sums and the table. The GPU part is profile_run.cpp.
#include "bankviz/profile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "bankviz/from_source.h"
#include "bankviz/printable.h"

namespace bankviz {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <class T>
bool parse_int(std::string_view s, T* out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+') ++b;  // from_chars takes no '+'
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e && b != e;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out += replace_controls(s.substr(0, 64), '?');
  if (s.size() > 64) out += "...";
  out += '"';
  return out;
}

}  // namespace

// The line table names the file as NVRTC was given it, joined to the directory it ran in:
// "/home/u/src/k.cu" for "src/k.cu".
namespace {

// A path without its "." parts and with "x/.." taken out, as written (no file system).
std::string lexically_normal(const std::string& path) {
  std::vector<std::string> parts;
  const bool absolute = !path.empty() && path.front() == '/';
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = std::min(path.find('/', at), path.size());
    const std::string part = path.substr(at, slash - at);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    at = slash + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

}  // namespace

namespace {

bool identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// "-D NAME=VALUE"'s NAME=VALUE: an identifier, then a value of letters, digits and _.+-()
bool macro_definition(std::string_view s) {
  const size_t eq = s.find('=');
  if (!identifier(s.substr(0, eq))) return false;
  if (eq == std::string_view::npos) return true;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(eq) + 1, s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.+-()", c) != nullptr;
  });
}

// "-ftz=true" and the others of that form: name=true|false.
bool boolean_flag(std::string_view f) {
  for (std::string_view n : {"-ftz=", "-prec-div=", "-prec-sqrt=", "-fmad=", "--ftz=",
                             "--prec-div=", "--prec-sqrt=", "--fmad="})
    if (f.substr(0, n.size()) == n) return one_of(f.substr(n.size()), {"true", "false"});
  return false;
}

// What -Xptxas may pass on: ptxas's optimisation level and its report.
bool ptxas_option(std::string_view o) {
  return one_of(o, {"-O0", "-O1", "-O2", "-O3", "-v", "--verbose", "-warn-spills",
                    "--warn-on-spills", "-dlcm=ca", "-dlcm=cg"});
}

bool arch_value(std::string_view v) {
  if (v.substr(0, 3) != "sm_" && v.substr(0, 8) != "compute_") return false;
  std::string_view n = v.substr(v[0] == 's' ? 3 : 8);
  if (!n.empty() && n.back() == 'a') n.remove_suffix(1);
  return !n.empty() && n.size() <= 3 && all_digits(n);
}

}  // namespace

std::optional<std::vector<std::string>> parse_nvcc_flags(std::string_view text, std::string* arch,
                                                         std::string* error) {
  std::vector<std::string_view> words;
  for (size_t b = 0; b < text.size();) {
    while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    size_t e = b;
    while (e < text.size() && !std::isspace(static_cast<unsigned char>(text[e]))) ++e;
    if (e > b) words.push_back(text.substr(b, e - b));
    b = e;
  }
  std::vector<std::string> out;
  auto refuse = [&](std::string_view w, const std::string& why) {
    *error = "--nvcc-flags: " + quoted(w) + " " + why;
    return std::nullopt;
  };
  if (words.size() > 64) {
    *error = "--nvcc-flags: at most 64 flags";
    return std::nullopt;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = words[i];
    const bool has_next = i + 1 < words.size();
    if (w.size() > 4096) return refuse(w.substr(0, 40), "is too long (at most 4096 characters)");
    if (std::any_of(w.begin(), w.end(), [](char c) { return static_cast<unsigned char>(c) < 32; }))
      return refuse(w, "holds a control character");
    if (one_of(w, {"-O0",
                   "-O1",
                   "-O2",
                   "-O3",
                   "-G",
                   "-lineinfo",
                   "--generate-line-info",
                   "-use_fast_math",
                   "--use_fast_math",
                   "-restrict",
                   "--restrict",
                   "-extra-device-vectorization",
                   "--extra-device-vectorization",
                   "--expt-relaxed-constexpr",
                   "-expt-relaxed-constexpr",
                   "--expt-extended-lambda",
                   "-expt-extended-lambda",
                   "--extended-lambda",
                   "-w",
                   "--disable-warnings",
                   "-Wno-deprecated-gpu-targets"}) ||
        boolean_flag(w)) {
      out.emplace_back(w);
    } else if (w.substr(0, 5) == "-std=" || w.substr(0, 6) == "--std=") {
      if (!one_of(w.substr(w.find('=') + 1), {"c++11", "c++14", "c++17", "c++20"}))
        return refuse(w, "names no C++ standard nvcc knows (c++11, c++14, c++17 or c++20)");
      out.emplace_back(w);
    } else if (w == "-D" || w == "-U" || w == "-I" || w == "-arch" || w == "-Xptxas" ||
               w == "--gpu-architecture" || w == "-maxrregcount" || w == "--maxrregcount") {
      if (!has_next) return refuse(w, "needs a value after it");
      const std::string joined =
          std::string(w) + (w.size() == 2 ? "" : "=") + std::string(words[++i]);
      auto again = parse_nvcc_flags(joined, arch, error);
      if (!again) return std::nullopt;
      out.insert(out.end(), again->begin(), again->end());
    } else if (w.substr(0, 2) == "-D" || w.substr(0, 2) == "-U") {
      if (!(w[1] == 'D' ? macro_definition(w.substr(2)) : identifier(w.substr(2))))
        return refuse(w,
                      "is not a macro definition bankviz passes on (NAME or NAME=VALUE, the "
                      "value of letters, digits and _.+-())");
      out.emplace_back(w);
    } else if (w.substr(0, 2) == "-I") {
      out.emplace_back(w);  // the folder is checked where it is read (the compile's rules)
    } else if (w.substr(0, 6) == "-arch=" || w.substr(0, 19) == "--gpu-architecture=") {
      const std::string_view v = w.substr(w.find('=') + 1);
      if (!arch_value(v)) return refuse(w, "names no GPU architecture (sm_90, sm_90a, ...)");
      *arch = std::string(v[0] == 'c' ? "sm_" + std::string(v.substr(8)) : std::string(v));
    } else if (w.substr(0, 14) == "-maxrregcount=" || w.substr(0, 15) == "--maxrregcount=") {
      const std::string_view v = w.substr(w.find('=') + 1);
      unsigned n = 0;
      if (!all_digits(v) || !parse_int(v, &n) || n < 16 || n > 255)
        return refuse(w, "needs a register count from 16 to 255");
      out.emplace_back(w);
    } else if (w.substr(0, 8) == "-Xptxas=" || w.substr(0, 16) == "--ptxas-options=") {
      std::string_view list = w.substr(w.find('=') + 1);
      for (size_t b = 0; b <= list.size();) {
        const size_t c = std::min(list.find(',', b), list.size());
        if (!ptxas_option(list.substr(b, c - b)))
          return refuse(w,
                        "passes ptxas an option bankviz does not (-O0..-O3, -v, -warn-spills, "
                        "-dlcm=ca|cg)");
        b = c + 1;
      }
      out.push_back("-Xptxas=" + std::string(list));
    } else {
      return refuse(w,
                    "is not a flag bankviz passes to nvcc: it compiles one kernel for the GPU it "
                    "runs on into a file of its own, so output, host-compiler, linker and "
                    "option-file flags are not taken (allowed: -O0..-O3, -G, -lineinfo, "
                    "-use_fast_math, -ftz/-prec-div/-prec-sqrt/-fmad=true|false, -std=c++NN, "
                    "-DNAME[=VALUE], -UNAME, -IFOLDER, -maxrregcount=N, -arch=sm_NN, "
                    "-Xptxas -O0..-O3/-v, -restrict, --extra-device-vectorization, "
                    "--expt-relaxed-constexpr, --expt-extended-lambda, -w)");
    }
  }
  return out;
}

bool same_file(const std::string& table_name, const std::string& given_name) {
  if (table_name == given_name) return true;
  // "./k.cu" and "dir/../k.cu" name k.cu: compared as written without the dots (lexically).
  const std::string table = lexically_normal(table_name), given = lexically_normal(given_name);
  if (table == given) return true;
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
           s[s.size() - tail.size() - 1] == '/';
  };
  return ends_with(table, given) || ends_with(given, table);
}

std::optional<Dim3> parse_dim3(std::string_view text, std::string* error) {
  Dim3 d;
  uint32_t* parts[3] = {&d.x, &d.y, &d.z};
  size_t n = 0;
  std::string_view rest = text;
  while (true) {
    const size_t cut = rest.find('x');
    const std::string_view part = rest.substr(0, cut);
    uint64_t v = 0;
    if (n == 3 || !all_digits(part) || !parse_int(part, &v) || v < 1 || v > 0x7fffffffu) {
      *error = quoted(text) +
               " is not a launch extent: write X, XxY or XxYxZ with each a whole number from 1 to "
               "2147483647 (e.g. 32x8)";
      return std::nullopt;
    }
    *parts[n++] = static_cast<uint32_t>(v);
    if (cut == std::string_view::npos) break;
    rest = rest.substr(cut + 1);
  }
  return d;
}

size_t KernelArg::size() const {
  switch (kind) {
    case Kind::Buffer:
    case Kind::Long:
    case Kind::Ulong:
    case Kind::Double:
      return 8;
    default:
      return 4;
  }
}

std::optional<KernelArg> parse_kernel_arg(std::string_view text, std::string* error) {
  const size_t colon = text.find(':');
  const std::string_view type = text.substr(0, colon);
  const std::string_view value =
      colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  KernelArg a;
  a.text = std::string(text.substr(0, 256));
  auto fail = [&](const std::string& why) {
    *error = "--arg " + quoted(text) + ": " + why;
    return std::nullopt;
  };
  if (colon == std::string_view::npos)
    return fail(
        "write TYPE:VALUE, one per kernel parameter in order: buffer:BYTES (device memory, "
        "zeroed; BYTES may end in K, M or G), int:V, uint:V, long:V, ulong:V, float:V, double:V");
  if (type == "buffer") {
    a.kind = KernelArg::Kind::Buffer;
    std::string_view digits = value;
    uint64_t unit = 1;
    if (!digits.empty()) {
      const char last = digits.back();
      if (last == 'K' || last == 'k') unit = uint64_t{1} << 10;
      if (last == 'M' || last == 'm') unit = uint64_t{1} << 20;
      if (last == 'G' || last == 'g') unit = uint64_t{1} << 30;
      if (unit != 1) digits.remove_suffix(1);
    }
    uint64_t n = 0;
    if (!all_digits(digits) || !parse_int(digits, &n) || n == 0)
      return fail("a buffer's size is a whole number of bytes, at least 1 (4096, 64K, 1M)");
    if (n > kMaxBufferBytes / unit)
      return fail("a buffer holds at most 1G bytes (" + std::to_string(kMaxBufferBytes) + ")");
    a.bytes = n * unit;
    return a;
  }
  auto int_value = [&](auto sample, KernelArg::Kind kind) -> std::optional<KernelArg> {
    using T = decltype(sample);
    T v{};
    if (!parse_int(value, &v))
      return fail(std::string("not a whole number that fits ") + std::string(type) + " (" +
                  std::to_string(std::numeric_limits<T>::min()) + " to " +
                  std::to_string(std::numeric_limits<T>::max()) + ")");
    a.kind = kind;
    std::memcpy(&a.bits, &v, sizeof v);
    return a;
  };
  if (type == "int") return int_value(int32_t{}, KernelArg::Kind::Int);
  if (type == "uint") return int_value(uint32_t{}, KernelArg::Kind::Uint);
  if (type == "long") return int_value(int64_t{}, KernelArg::Kind::Long);
  if (type == "ulong") return int_value(uint64_t{}, KernelArg::Kind::Ulong);
  if (type == "float" || type == "double") {
    // strtod, not from_chars: the browser build's libc++ has no floating-point from_chars. The
    // C locale is the program's (neither program calls setlocale), so '.' is the point.
    const std::string text(value);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    // What from_chars refuses too: a leading space or '+', hex, inf and nan.
    const bool spaced = !text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                                          text.front() == '+');
    const bool hex_or_word = text.find_first_of("xXnNiI") != std::string::npos;
    if (text.empty() || spaced || hex_or_word || errno == ERANGE ||
        end != text.c_str() + text.size() || !std::isfinite(v))
      return fail("not a finite number (1.5, -2, 3e-4)");
    if (type == "float") {
      if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
        return fail("outside float's range");
      const float f = static_cast<float>(v);
      a.kind = KernelArg::Kind::Float;
      std::memcpy(&a.bits, &f, sizeof f);
    } else {
      a.kind = KernelArg::Kind::Double;
      std::memcpy(&a.bits, &v, sizeof v);
    }
    return a;
  }
  return fail("unknown type " + quoted(type) + ": buffer, int, uint, long, ulong, float or double");
}

std::vector<std::string> check_request(const ProfileRequest& r) {
  std::vector<std::string> out;
  if (r.source.empty()) out.push_back("the kernel file is empty");
  if (r.source.size() > kMaxProfileSourceBytes)
    out.push_back("the kernel file is larger than 1 MB (" + std::to_string(r.source.size()) +
                  " bytes)");
  if (r.source.find('\0') != std::string::npos)
    out.push_back("the kernel file holds a NUL byte: is it a CUDA source file?");
  // A C++ name, optionally qualified, or a template's instance: NVRTC's name expression takes it
  // as code, so nothing else (from_source.h kernel_function_name()).
  if (kernel_function_name(r.kernel).empty())
    out.push_back("--kernel " + quoted(r.kernel) +
                  " is not a kernel's name: a C++ name (letters, digits, _), optionally qualified "
                  "with ::, or a template's instance with its arguments (name<256>, "
                  "ns::name<float, 4>)");
  if (r.args.size() > kMaxKernelArgs)
    out.push_back("at most " + std::to_string(kMaxKernelArgs) + " --arg (" +
                  std::to_string(r.args.size()) + " given)");
  uint64_t total = 0;
  for (const KernelArg& a : r.args)
    if (a.kind == KernelArg::Kind::Buffer) total += a.bytes;
  if (total > kMaxTotalBufferBytes)
    out.push_back("the buffers add up to " + std::to_string(total) + " bytes; at most 4G (" +
                  std::to_string(kMaxTotalBufferBytes) + ")");
  if (r.block.product() > 1024)
    out.push_back("a block has at most 1024 threads (--block gives " +
                  std::to_string(r.block.product()) + ")");
  if (!(r.timeout_ms > 0) || r.timeout_ms > 600000)
    out.push_back("the timeout must be above 0 and at most 600 s");
  return out;
}

std::vector<ProfileLine> lines_of(const std::vector<ProfileInstruction>& instructions,
                                  const std::string& source, const std::string& file_name) {
  // The source's lines, 1-based.
  std::vector<std::string_view> text;
  {
    std::string_view s = source;
    while (!s.empty()) {
      const size_t nl = s.find('\n');
      text.push_back(s.substr(0, nl));
      if (nl == std::string_view::npos) break;
      s = s.substr(nl + 1);
    }
  }
  std::map<std::pair<std::string, uint32_t>, ProfileLine> by_line;
  for (const ProfileInstruction& in : instructions) {
    ProfileLine& l = by_line[{in.file, in.line}];
    if (l.instructions == 0) {
      l.file = in.file;
      l.line = in.line;
      l.in_file = same_file(in.file, file_name);
      if (l.in_file && in.line >= 1 && in.line <= text.size()) {
        std::string_view t = text[in.line - 1];
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
          t.remove_suffix(1);
        l.text += replace_controls(t.substr(0, 200), '?');
      }
    }
    ++l.instructions;
    l.executed += in.executed;
    l.wavefronts += in.wavefronts;
    l.ideal += in.ideal;
    if (std::find(l.ops.begin(), l.ops.end(), in.op) == l.ops.end()) l.ops.push_back(in.op);
  }
  std::vector<ProfileLine> out;
  out.reserve(by_line.size());
  for (auto& [key, l] : by_line) out.push_back(std::move(l));
  std::stable_sort(out.begin(), out.end(), [](const ProfileLine& a, const ProfileLine& b) {
    return std::make_tuple(-a.excess(), -a.wavefronts, a.line) <
           std::make_tuple(-b.excess(), -b.wavefronts, b.line);
  });
  return out;
}

std::optional<Value> integer_value(const KernelArg& a) {
  switch (a.kind) {
    case KernelArg::Kind::Int:
      return Value::of(CType::Int, static_cast<int32_t>(static_cast<uint32_t>(a.bits)));
    case KernelArg::Kind::Uint:
      return Value::of_unsigned(CType::UInt, a.bits & 0xffffffffu);
    case KernelArg::Kind::Long:
      return Value::of(CType::LongLong, static_cast<int64_t>(a.bits));
    case KernelArg::Kind::Ulong:
      return Value::of_unsigned(CType::ULongLong, a.bits);
    default:
      return std::nullopt;
  }
}

std::string format_profile(const ProfileResult& r, size_t max_lines) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%6s  %-10s %5s %12s %12s %12s %12s %8s  %s\n", "line", "op",
                "instr", "executed", "wavefronts", "ideal", "excess", "per req", "source");
  out += buf;
  size_t shown = 0;
  for (const ProfileLine& l : r.lines) {
    if (max_lines && shown++ == max_lines) {
      out += "  ... " + std::to_string(r.lines.size() - max_lines) + " more lines\n";
      break;
    }
    std::string ops;
    for (const std::string& o : l.ops) {
      if (!ops.empty()) ops += ',';
      ops += o;
    }
    std::string where = l.line ? std::to_string(l.line) : "?";
    std::string text = l.text;
    if (text.empty()) text = l.file.empty() ? "(no line info)" : '(' + l.file + ')';
    std::snprintf(buf, sizeof buf, "%6s  %-10s %5d %12lld %12lld %12lld %12lld %8.2f  %s\n",
                  where.c_str(), ops.c_str(), l.instructions, static_cast<long long>(l.executed),
                  static_cast<long long>(l.wavefronts), static_cast<long long>(l.ideal),
                  static_cast<long long>(l.excess()), l.per_request(), text.c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%6s  %-10s %5s %12lld %12lld %12lld %12lld\n", "total", "", "",
                static_cast<long long>(r.executed), static_cast<long long>(r.wavefronts),
                static_cast<long long>(r.ideal), static_cast<long long>(r.excess()));
  out += buf;
  return out;
}

}  // namespace bankviz
