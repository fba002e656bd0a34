// cmd_wavefronts.cpp: `bankviz-cli wavefronts --arch hopper FILE`
//
// For people who captured real per-lane addresses from a kernel. Each line:
//   NAME WIDTH MASK A0 A1 ... A31
// NAME without spaces, WIDTH in bytes (1, 2, 4, 8, 16), MASK the active lanes (decimal or 0x
// hex), then 32 byte addresses into shared memory (inactive lanes' are ignored). '#' starts a
// comment line. Prints "NAME LOAD STORE" per case: the wavefronts of a warp-wide load and store.
// A bad line is reported on stderr with its line number and skipped; exit status 1 if any was.
#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/io.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

// Unsigned integer in decimal or 0x hex; false on anything else (signs, junk, overflow).
bool parse_u64(const std::string& t, uint64_t& v) {
  const char* b = t.data();
  const char* e = b + t.size();
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    b += 2;
    base = 16;
  }
  if (b == e) return false;
  auto [p, ec] = std::from_chars(b, e, v, base);
  return ec == std::errc() && p == e;
}

// Parses one record; returns an error message, or empty on success.
std::string parse_record(const std::string& line, std::string& name, WarpAccess& a) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string tok; in >> tok;) f.push_back(tok);
  if (f.size() != 35)
    return "expected 35 fields (NAME WIDTH MASK and 32 addresses), found " +
           std::to_string(f.size());
  name = f[0];
  uint64_t width = 0, mask = 0;
  if (!parse_u64(f[1], width) ||
      (width != 1 && width != 2 && width != 4 && width != 8 && width != 16))
    return "width '" + f[1] + "' is not 1, 2, 4, 8 or 16";
  if (!parse_u64(f[2], mask) || mask > 0xFFFFFFFFull)
    return "mask '" + f[2] + "' is not a 32-bit number (decimal or 0x hex)";
  a.width = static_cast<int>(width);
  a.mask = static_cast<uint32_t>(mask);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::string& t = f[3 + static_cast<size_t>(lane)];
    const bool active = (a.mask >> lane) & 1u;
    const bool negative = !t.empty() && t[0] == '-';
    uint64_t v = 0;
    if (!parse_u64(negative ? t.substr(1) : t, v))
      return "lane " + std::to_string(lane) + ": '" + t + "' is not an address";
    if (!active) continue;  // inactive lanes' addresses are ignored
    if (negative) return "lane " + std::to_string(lane) + ": negative address " + t;
    if (v > 0xFFFFFFFFull)
      return "lane " + std::to_string(lane) + ": address " + t + " is beyond 228 KB";
    a.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(v);
  }
  return validate(a);
}

int run_wavefronts(const std::string& arch_id, const std::string& path) {
  const Arch* arch = find_arch(arch_id);
  if (!arch)
    throw Exit{kExitUsage, "--arch '" + arch_id + "': unknown; expected one of " + arch_ids()};
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    // A directory reads as nothing and a FIFO blocks: only regular files (records stream line
    // by line, so their size needs no cap).
    if (std::string p = regular_file_problem(path); !p.empty()) throw Exit{kExitFailed, p};
    file.open(path);
    if (!file) throw Exit{kExitFailed, "cannot open '" + path + "'"};
    in = &file;
  }
  bool bad = false;
  std::string line;
  for (long lineno = 1; std::getline(*in, line); ++lineno) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::string name;
    WarpAccess a;
    if (std::string err = parse_record(line, name, a); !err.empty()) {
      std::cerr << path << ":" << lineno << ": " << err << " (line skipped)\n";
      bad = true;
      continue;
    }
    std::cout << name << ' ' << count_wavefronts(*arch, Op::Load, a) << ' '
              << count_wavefronts(*arch, Op::Store, a) << '\n';
  }
  return bad ? kExitFailed : kExitOk;
}

}  // namespace

void add_wavefronts_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "wavefronts",
      "wavefronts of recorded warp accesses: lines 'NAME WIDTH MASK A0..A31' -> 'NAME LOAD STORE'");
  auto arch = std::make_shared<std::string>("hopper");
  auto file = std::make_shared<std::string>();
  cmd->add_option("--arch", *arch, "architecture: " + arch_ids())->capture_default_str();
  cmd->add_option("FILE", *file, "address records, or - for standard input")->required();
  cmd->callback([arch, file] {
    const int rc = run_wavefronts(*arch, *file);
    if (rc != kExitOk) throw Exit{rc, ""};
  });
}

}  // namespace bankviz::cli
