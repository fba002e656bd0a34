// common.cpp: scenario flags, presets and assets for bankviz-cli.
#include "common.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>

#include "bankviz/arch.h"
#include "bankviz/expr.h"
#include "bankviz/io.h"
#include "bankviz/pasted.h"
#include "catalog.h"
#include "data_dir.h"

namespace fs = std::filesystem;

namespace bankviz::cli {
namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

long long parse_int(const std::string& text, const std::string& what) {
  // [-][0x]DIGITS: the sign comes first ("0x-5" is not a number), and the magnitude is read
  // unsigned so that -9223372036854775808 fits and 20 digits say "out of range".
  const char* b = text.data();
  const char* e = b + text.size();
  const bool neg = b < e && *b == '-';
  if (neg) ++b;
  int base = 10;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    b += 2;
    base = 16;
  }
  unsigned long long mag = 0;
  const auto [p, ec] = b < e && std::isalnum(static_cast<unsigned char>(*b))
                           ? std::from_chars(b, e, mag, base)
                           : std::from_chars_result{b, std::errc::invalid_argument};
  const unsigned long long limit =
      neg ? 9223372036854775808ull : static_cast<unsigned long long>(INT64_MAX);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && p == e && mag > limit))
    throw Exit{kExitUsage, what + ": '" + text + "' is out of range (a 64-bit integer: " +
                               "-9223372036854775808 to 9223372036854775807)"};
  if (ec != std::errc() || p != e) {
    const std::string pasted = non_ascii_hint(text);
    throw Exit{kExitUsage, what + ": '" + text + "' is not an integer" +
                               (pasted.empty() ? "" : ": it holds " + pasted)};
  }
  if (!neg) return static_cast<long long>(mag);
  return mag == 9223372036854775808ull ? INT64_MIN : -static_cast<long long>(mag);
}

// Finds " if " / " for " at bracket depth 0, so "tile[x if y]" is not split.
size_t find_keyword(const std::string& s, const std::string& kw) {
  int depth = 0;
  for (size_t i = 0; i + kw.size() <= s.size(); ++i) {
    const char c = s[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (depth == 0 && s.compare(i, kw.size(), kw) == 0) return i;
  }
  return std::string::npos;
}

// "load tile[tx][ty] if threadIdx.x < 16 for i in 0..21" -> Step; a cp.async may name its
// global source: "cp.async.16 tile[tx * 4] from tx * 2 if ... for ...".
Step parse_step(const std::string& spec) {
  std::string s = trim(spec);
  const auto sp = s.find_first_of(" \t:");
  std::string kind = s.substr(0, sp);
  Step st;
  if (!parse_step_op(kind, st))
    throw Exit{kExitUsage, "--step '" + spec + "': unknown kind '" + kind + "' (expected " +
                               step_kind_forms() + ")"};
  std::string rest = sp == std::string::npos ? "" : trim(s.substr(sp + 1));
  if (!rest.empty() && rest[0] == ':') rest = trim(rest.substr(1));
  if (st.kind == StepKind::Sync) {
    if (!rest.empty()) throw Exit{kExitUsage, "--step '" + spec + "': sync takes nothing after it"};
    return st;
  }
  if (auto f = find_keyword(rest, " for "); f != std::string::npos) {
    // for VAR in FROM..TO
    std::istringstream in(rest.substr(f + 5));
    std::string var, in_kw, range;
    in >> var >> in_kw >> range;
    const auto dots = range.find("..");
    if (!is_valid_name(var) || in_kw != "in" || dots == std::string::npos)
      throw Exit{kExitUsage, "--step '" + spec + "': expected 'for VAR in FROM..TO'"};
    st.loop_var = var;
    st.loop_from = parse_int(range.substr(0, dots), "--step loop start");
    st.loop_to = parse_int(range.substr(dots + 2), "--step loop end");
    rest = trim(rest.substr(0, f));
  }
  if (auto f = find_keyword(rest, " if "); f != std::string::npos) {
    st.guard = trim(rest.substr(f + 4));
    rest = trim(rest.substr(0, f));
  }
  // cp.async's global source (Step::source); check() refuses it on any other kind. A trailing
  // "from" with nothing after it (trimmed away) is found too.
  if (auto f = find_keyword(rest + ' ', " from "); f != std::string::npos) {
    st.source = f + 6 < rest.size() ? trim(rest.substr(f + 6)) : std::string();
    rest = trim(rest.substr(0, f));
    if (st.source.empty())
      throw Exit{kExitUsage, "--step '" + spec + "': 'from' needs the source chunk's expression"};
  }
  if (rest.empty()) throw Exit{kExitUsage, "--step '" + spec + "': missing the index expression"};
  st.index = rest;
  return st;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* flag) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw Exit{kExitUsage, std::string(flag) + " '" + text + "': expected NAME=VALUE"};
  return {trim(text.substr(0, eq)), trim(text.substr(eq + 1))};
}

}  // namespace

std::vector<long long> parse_extents(const std::string& text, const char* flag, size_t max_rank) {
  // Split at every 'x', keeping empty parts, so "32x" and "x32" are errors, not 32.
  std::vector<long long> out;
  for (size_t from = 0;;) {
    const size_t x = text.find('x', from);
    const std::string part = trim(text.substr(from, x == std::string::npos ? x : x - from));
    if (part.empty())
      throw Exit{kExitUsage, std::string(flag) + " '" + text + "': expected extents like 32x33"};
    const long long v = parse_int(part, flag);
    if (v < 1) throw Exit{kExitUsage, std::string(flag) + " '" + text + "': extents must be >= 1"};
    out.push_back(v);
    if (x == std::string::npos) break;
    from = x + 1;
  }
  if (out.size() > max_rank)
    throw Exit{kExitUsage, std::string(flag) + " '" + text + "': expected 1 to " +
                               std::to_string(max_rank) + " extents like 32x33"};
  return out;
}

const CLI::Validator& whole_number() {
  static const CLI::Validator v(
      [](std::string& text) {
        try {
          parse_int(text, "");
        } catch (const Exit& e) {
          return e.message.substr(2);  // "': '...' is not an integer" without the flag's name
        }
        return std::string();
      },
      "", "integer");
  return v;
}

const CLI::Validator& non_negative() {
  static const CLI::Validator v(
      [](std::string& text) {
        const std::string whole = whole_number()(text);
        if (!whole.empty()) return whole;
        long long n = 0;
        CLI::detail::lexical_cast(text, n);
        return n < 0 ? "'" + text + "' is negative: give 0 or more" : std::string();
      },
      "", "0 or more");
  return v;
}

const CLI::Validator& non_empty_path() {
  static const CLI::Validator v(
      [](std::string& text) {
        return text.empty() ? std::string("give a file's path, not ''") : std::string();
      },
      "", "path");
  return v;
}

const CLI::Validator& finite_number() {
  static const CLI::Validator v(
      [](std::string& text) {
        double d = 0;
        if (!CLI::detail::lexical_cast(text, d)) return "'" + text + "' is not a number";
        return std::isfinite(d) ? std::string() : "'" + text + "' is not a finite number";
      },
      "", "finite");
  return v;
}

void add_scenario_options(CLI::App& cmd, ScenarioOptions& o) {
  // An empty value ("--elem ''") is a usage error, not "flag not given".
  const CLI::Validator non_empty(
      [](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
      "", "non-empty");
  cmd.add_option("--file,-f", o.file, "JSON scenario file (- for standard input)")
      ->check(non_empty);
  cmd.add_option("--preset,-p", o.preset, "a preset name (see `bankviz-cli presets`)")
      ->check(non_empty);
  cmd.add_option("--arch", o.arch, "architecture: " + arch_ids())->check(non_empty);
  cmd.add_option("--elem", o.elem, "element type of the (first) tile: int, float2, double, ...")
      ->check(non_empty);
  cmd.add_option("--dims", o.dims, "tile extents, outermost first: 32x32")->check(non_empty);
  cmd.add_option("--pad", o.pad, "padding elements per innermost row")->check(whole_number());
  // A flag function, not add_flag(o.dynamic): CLI11 (2.1) runs a flag's callback for its default
  // value, which would set o.dynamic = false when --dynamic is absent and turn every dynamic
  // preset static. --dynamic=false gives -1 here.
  cmd.add_flag_function(
      "--dynamic", [&o](std::int64_t n) { o.dynamic = n > 0; },
      "declare the tile extern __shared__ (1-D); --dynamic=false declares it static");
  cmd.add_option("--swizzle", o.swizzle, "XOR swizzle B,M,S (CuTe Swizzle<B,M,S>)")
      ->check(non_empty);
  cmd.add_option("--layout", o.layout,
                 "CuTe layout of the (first) tile, [SWIZZLE o] (shape):(stride): "
                 "\"((8,4),64):((64,512),1)\", \"Sw<3,3,3> o (8,64):(64,1)\" (elements), "
                 "\"Sw<3,4,3,bytes> o ...\", \"SW128 o ...\"; sets dims (none: drop it)")
      ->check(non_empty);
  cmd.add_option("--block", o.block, "thread block: 32x32 or 256 or 8x8x4")->check(non_empty);
  cmd.add_option("--define", o.defines, "named constant NAME=VALUE (repeatable)");
  cmd.add_option("--let", o.lets,
                 "per-thread variable [TYPE] NAME=EXPR, in order (repeatable); TYPE defaults to "
                 "EXPR's C type");
  cmd.add_option("--step", o.steps,
                 "a step in program order (repeatable): \"store tile[threadIdx.y][threadIdx.x]\","
                 " \"sync\", \"load tile[threadIdx.x][threadIdx.y] if threadIdx.x < 16\", "
                 "\"ldmatrix.x4 tile[threadIdx.x % 16][threadIdx.x / 16 * 8]\", \"cp.async.16 "
                 "tile[threadIdx.x][0]\", \"cp.async.16 tile[threadIdx.x][0] from threadIdx.x * 2\""
                 " (the global chunk it copies; default threadIdx's linear index)");
}

namespace {

// The flag that sets the field at a diagnostic's path ("tiles[0].pad" -> "--pad"); empty if none.
std::string flag_of(const std::string& path) {
  static const std::pair<const char*, const char*> kFlags[] = {{"tiles[0].elem", "--elem"},
                                                               {"tiles[0].dims", "--dims"},
                                                               {"tiles[0].pad", "--pad"},
                                                               {"tiles[0].swizzle", "--swizzle"},
                                                               {"tiles[0].layout", "--layout"},
                                                               {"tiles[0].dynamic", "--dynamic"},
                                                               {"block", "--block"},
                                                               {"constants", "--define"},
                                                               {"lets", "--let"},
                                                               {"steps", "--step"},
                                                               {"arch", "--arch"}};
  for (const auto& [prefix, flag] : kFlags)
    if (path.rfind(prefix, 0) == 0) return flag;
  return {};
}

}  // namespace

Scenario build_scenario(const ScenarioOptions& o) {
  Scenario s;
  if (!o.file.empty() && !o.preset.empty())
    throw Exit{kExitUsage, "give --file or --preset, not both"};
  auto from_load = [](ScenarioLoad&& r, const std::string& what) {
    // "cannot read the scenario file: 'x': ...", which names the file; any other message is
    // under the file's name.
    if (!r.scenario && r.errors.size() == 1 && r.errors[0].path.empty() &&
        r.errors[0].message.find(what) != std::string::npos)
      throw Exit{kExitFailed, r.errors[0].message};
    if (!r.scenario) {
      std::string msg = what + ":";
      for (const Diagnostic& d : r.errors) msg += "\n  " + d.format();
      throw Exit{kExitFailed, msg};
    }
    return std::move(*r.scenario);
  };
  if (!o.file.empty()) check_served_input(o.file, "--file");
  if (o.file == "-") {
    if (std::string why = standard_input_problem(); !why.empty()) throw Exit{kExitFailed, why};
    TextRead in = read_text_stream(std::cin, kMaxScenarioBytes, "standard input");
    if (!in.text) throw Exit{kExitFailed, in.error};
    s = from_load(scenario_from_json(*in.text), "standard input");
  } else if (!o.file.empty()) {
    s = from_load(load_scenario_file(o.file), o.file);
  } else if (!o.preset.empty() || o.steps.empty()) {
    const std::string name = o.preset.empty() ? kDefaultPreset : o.preset;
    std::string why;
    const std::string path = catalog_path("presets", name, &why);
    if (path.empty()) throw Exit{kExitUsage, why};
    s = from_load(load_scenario_file(path), path);
  } else {
    s.steps.clear();
    s.name = "custom";
  }
  if (!o.arch.empty()) {
    if (!find_arch(o.arch))
      throw Exit{kExitUsage, "--arch '" + o.arch + "': unknown; expected one of " + arch_ids()};
    s.arch = o.arch;
  }
  if (s.tiles.empty()) s.tiles.push_back(TileDecl{});
  TileDecl& t = s.tiles.front();
  if (!o.elem.empty()) t.elem = o.elem;
  if (!o.layout.empty()) {
    if (!o.dims.empty() || o.pad || !o.swizzle.empty())
      throw Exit{kExitUsage,
                 "--layout gives the tile's extents and swizzle: use it without --dims, --pad "
                 "and --swizzle"};
    if (o.layout == "none") {
      t.cute.reset();
    } else if (std::string err = t.set_layout(o.layout); !err.empty()) {
      throw Exit{kExitUsage, "--layout '" + o.layout + "': " + err};
    }
  }
  if (!o.dims.empty()) {
    auto d = parse_extents(o.dims, "--dims", 3);
    t.dims.assign(d.begin(), d.end());
  }
  if (o.pad) t.pad = *o.pad;
  if (o.dynamic) t.dynamic = *o.dynamic;
  if (!o.swizzle.empty()) {
    int b = 0, m = 0, sh = 0;
    char c1 = 0, c2 = 0;
    std::istringstream in(o.swizzle);
    if (!(in >> b >> c1 >> m >> c2 >> sh) || c1 != ',' || c2 != ',' || !in.eof())
      throw Exit{kExitUsage, "--swizzle '" + o.swizzle + "': expected B,M,S like 3,0,3"};
    t.swizzle = Swizzle{b, m, sh};
  }
  if (!o.block.empty()) {
    auto b = parse_extents(o.block, "--block", 3);
    for (int i = 0; i < 3; ++i) s.block[i] = i < static_cast<int>(b.size()) ? b[i] : 1;
  }
  // One name given twice on the command line is a mistake, as -DN=5 -DN=6 is to a compiler (a
  // flag still overrides the file's or preset's own constant or let).
  auto once = [](std::vector<std::string>& seen, const std::string& name, const char* flag) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      throw Exit{kExitUsage, std::string(flag) + " " + name + ": given twice; give each name once"};
    seen.push_back(name);
  };
  std::vector<std::string> defined, let;
  for (const auto& d : o.defines) {
    auto [name, value] = split_assignment(d, "--define");
    once(defined, name, "--define");
    auto it = std::find_if(s.constants.begin(), s.constants.end(),
                           [&n = name](const Constant& c) { return c.name == n; });
    const long long v = parse_int(value, "--define " + name);
    if (it != s.constants.end())
      it->value = v;
    else
      s.constants.push_back({name, v});
  }
  for (const auto& l : o.lets) {
    auto [decl, expr] = split_assignment(l, "--let");
    // "[TYPE] NAME": an optional C type before the name, as in "int row=threadIdx.x - 1".
    std::string type, name = decl;
    if (const auto sp = decl.find_last_of(" \t"); sp != std::string::npos) {
      type = trim(decl.substr(0, sp));
      name = trim(decl.substr(sp + 1));
    }
    once(let, name, "--let");
    auto it =
        std::find_if(s.lets.begin(), s.lets.end(), [&](const Let& x) { return x.name == name; });
    if (it != s.lets.end())
      it->expr = expr, it->type = type;
    else
      s.lets.push_back({name, expr, type});
  }
  if (!o.steps.empty()) {
    s.steps.clear();
    for (const auto& spec : o.steps) s.steps.push_back(parse_step(spec));
  }
  // The file or preset was valid (from_load), so what is wrong now came from the flags: a usage
  // error, named by the flag that sets the field.
  if (auto errors = check(s); !errors.empty()) {
    std::string msg = "the flags give an invalid scenario:";
    for (const Diagnostic& d : errors) {
      const std::string flag = flag_of(d.path);
      msg += "\n  " + (flag.empty() ? "" : flag + ": ") + d.format();
    }
    throw Exit{kExitUsage, msg};
  }
  return s;
}

Analysis analyze_or_exit(const Scenario& s) {
  AnalysisResult r = analyze(s);
  if (!r.analysis) {
    std::string msg = "cannot analyze '" + s.name + "':";
    for (const Diagnostic& d : r.errors) msg += "\n  " + d.format();
    throw Exit{kExitFailed, msg};
  }
  return std::move(*r.analysis);
}

bool names_a_file(const std::string& what) {
  std::error_code ec;
  return what == "-" || fs::exists(what, ec) || what.find('/') != std::string::npos ||
         (what.size() > 5 && what.ends_with(".json"));
}

Scenario scenario_named(const std::string& what, const char* side) {
  // An empty name is not "the default preset".
  if (what.empty())
    throw Exit{kExitUsage, std::string(side) + " is empty: give a preset name or a scenario file"};
  ScenarioOptions o;
  (names_a_file(what) ? o.file : o.preset) = what;
  return build_scenario(o);
}

std::pair<Scenario, Scenario> scenario_pair(const std::string& a, const std::string& b) {
  if (a == "-" && b == "-")
    throw Exit{kExitUsage,
               "A and B are both standard input (-): it can be read once; give one of "
               "them as a file or preset"};
  Scenario sa = scenario_named(a, "A");
  return {std::move(sa), scenario_named(b, "B")};
}

std::vector<std::string> preset_names() {
  return catalog_names("presets");
}

}  // namespace bankviz::cli
