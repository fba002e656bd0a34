// common.h: what every bankviz-cli subcommand shares: building a Scenario from a file, a preset
// or flags, and finding the assets.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"
#include "data_dir.h"     // assets_dir()
#include "exit_status.h"  // kExitOk, kExitFailed, kExitUsage
#include "format.h"       // fixed()

namespace bankviz::cli {

// kExitOk, kExitFailed, kExitUsage: exit_status.h, shared with the app.

// Thrown by subcommand callbacks to end with a message and an exit status (main catches it).
struct Exit {
  int status;
  std::string message;  // printed to stderr when non-empty
};

// The scenario flags shared by analyze, run, source and export.
struct ScenarioOptions {
  std::string file;                  // --file PATH (or - for stdin): a JSON scenario
  std::string preset;                // --preset NAME: assets/presets/NAME.json
  std::string arch;                  // --arch ID
  std::string elem;                  // --elem int|float2|...
  std::string dims;                  // --dims 32x32 (1 to 3 extents)
  std::optional<long long> pad;      // --pad N (elements per row)
  std::optional<bool> dynamic;       // --dynamic
  std::string swizzle;               // --swizzle B,M,S
  std::string layout;                // --layout "Sw<3,3,3> o (8,64):(64,1)" (CuTe), or none
  std::string block;                 // --block 32x32[x1]
  std::vector<std::string> defines;  // --define NAME=VALUE
  std::vector<std::string> lets;     // --let NAME=EXPR
  std::vector<std::string> steps;    // --step "store tile[ty][tx]" | "load ... if COND" | "sync"
};

// A floating-point flag's value must be a finite number: CLI::Range lets NaN through (every
// comparison with NaN is false). Use before the range: ->check(finite_number())->check(Range).
const CLI::Validator& finite_number();

// An integer flag's value must be one, within 64 bits: CLI11 reads 12345678901234567890 as
// 9223372036854775807 without a word. Use before a range check: ->check(whole_number()).
const CLI::Validator& whole_number();

// A count or index flag (--show-step, --warp, --wavefront): a whole number, 0 or more (CLI11's
// NonNegativeNumber says "not in range 0.000000 to" a 309-digit number).
const CLI::Validator& non_negative();

// A path flag given as '' is a usage error, not "flag not given" (--svg '', --cubin '').
const CLI::Validator& non_empty_path();

// Registers the flags above on a subcommand.
void add_scenario_options(CLI::App& cmd, ScenarioOptions& o);

// File or preset first (default: the default lesson when neither and no --step is given), then
// the flags override fields. Throws Exit{kExitFailed} when the file or preset is bad (or cannot
// be read), Exit{kExitUsage} when a flag is bad or makes the scenario invalid.
Scenario build_scenario(const ScenarioOptions& o);
// compare's A and B, export --compare's: a preset name, or a scenario file when it names one (or
// has a path or .json in it; - is standard input), through build_scenario.
Scenario scenario_named(const std::string& what, const char* side);
// A and B through scenario_named(); standard input (-) can give one of them, not both (it is
// read once: the second read would find it empty).
std::pair<Scenario, Scenario> scenario_pair(const std::string& a, const std::string& b);

// analyze(s), or Exit{kExitFailed} listing the scenario's evaluation errors.
Analysis analyze_or_exit(const Scenario& s);
std::vector<std::string> preset_names();  // sorted stems of assets/presets/*.json
inline constexpr const char* kDefaultPreset = "row-write-column-read";

// "32x33" -> {32, 33}; throws Exit with a message naming the flag.
std::vector<long long> parse_extents(const std::string& text, const char* flag, size_t max_rank);

// fixed(v, digits): format.h, shared with the app.

}  // namespace bankviz::cli
