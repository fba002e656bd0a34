// cmd_wavefronts.cpp: `bankviz-cli wavefronts --arch hopper FILE`
//
// For people who captured real per-lane addresses from a kernel. Each line:
//   NAME WIDTH MASK A0 A1 ... A31      -> NAME LOAD STORE (a warp-wide load's and store's
//   wavefronts) NAME OP MASK A0 A1 ... A31         -> NAME WAVEFRONTS IDEAL (ldmatrix, stmatrix,
//   cp.async)
// (core/records.h parses them; '#' starts a comment line). A bad line is reported on stderr with
// its line number and skipped; exit status 1 if any was.
#include <fstream>
#include <iostream>
#include <string>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/io.h"
#include "bankviz/records.h"
#include "bankviz/scenario.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

int run_wavefronts(const std::string& arch_id, const std::string& path) {
  const Arch* arch = find_arch(arch_id);
  if (!arch)
    throw Exit{kExitUsage, "--arch '" + arch_id + "': unknown; expected one of " + arch_ids()};
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path == "-") {
    if (std::string why = standard_input_problem(); !why.empty()) throw Exit{kExitFailed, why};
  } else {
    // A directory reads as nothing and a FIFO blocks: only regular files (records stream line
    // by line, each line capped at kMaxRecordLineBytes, so their size needs no cap).
    if (std::string p = regular_file_problem(path); !p.empty()) throw Exit{kExitFailed, p};
    file.open(path);
    if (!file) throw Exit{kExitFailed, "cannot open '" + path + "'"};
    in = &file;
  }
  // Each bad line is named on stderr, the first kMaxDiagnostics of them; then only counted (a
  // 1,000,000-line file of bad lines wrote 80 MB of messages).
  size_t bad = 0;
  auto skipped = [&](long lineno, const std::string& why) {
    if (++bad <= kMaxDiagnostics) std::cerr << path << ":" << lineno << ": " << why << "\n";
  };
  std::string line;
  for (long lineno = 1;; ++lineno) {
    const LineRead read = read_record_line(*in, line);
    if (read == LineRead::End) break;
    if (read == LineRead::Endless)
      throw Exit{kExitFailed,
                 path + ":" + std::to_string(lineno) + ": no end of line within " +
                     std::to_string((kMaxRecordLineBytes + kMaxRecordSkipBytes) >> 10) +
                     " KB: stopped reading (records are lines of text)"};
    if (read == LineRead::TooLong) {
      skipped(lineno, "the line is longer than " + std::to_string(kMaxRecordLineBytes) +
                          " bytes (line skipped)");
      continue;
    }
    if (!is_record_line(line)) continue;
    Record r;
    std::string err = parse_any_record(line, r);
    // The matrix and async instructions' rules were measured on Hopper only.
    if (err.empty() && r.op && arch->id != std::string_view("hopper"))
      err = op_spec_name(*r.op) +
            " is modelled for --arch hopper only (measured, docs/MATRIX_RULE.md)";
    if (!err.empty()) {
      skipped(lineno, err + " (line skipped)");
      continue;
    }
    if (r.op) {  // NAME WAVEFRONTS IDEAL
      const AccessResult res = serve(*arch, r.op->op, r.access);
      std::cout << r.name << ' ' << res.wavefronts << ' ' << res.ideal << '\n';
    } else {  // NAME LOAD STORE
      std::cout << r.name << ' ' << count_wavefronts(*arch, Op::Load, r.access) << ' '
                << count_wavefronts(*arch, Op::Store, r.access) << '\n';
    }
  }
  if (bad > kMaxDiagnostics)
    std::cerr << path << ": " << bad - kMaxDiagnostics << " more bad lines skipped, not listed ("
              << bad << " in all)\n";
  return bad > 0 ? kExitFailed : kExitOk;
}

}  // namespace

void add_wavefronts_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "wavefronts",
      "wavefronts of recorded warp accesses: lines 'NAME WIDTH MASK A0..A31' -> 'NAME LOAD "
      "STORE'; 'NAME OP MASK A0..A31' (ldmatrix.x4, stmatrix.x2.trans, cp.async.16, ...) -> "
      "'NAME WAVEFRONTS IDEAL'");
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
