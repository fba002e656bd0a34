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

// compare's rule: a scenario file rather than a preset name (-, an existing path, a '/' or .json).
bool names_a_file(const std::string& what);

// [SECTION] A remote GPU (remote.cpp): --gpu HOST, --gpu-command CMD on every measuring command.
struct GpuFlags {
  std::string host;        // --gpu
  std::string command;     // --gpu-command
  double timeout_s = 600;  // --gpu-timeout: one request's limit
};
void add_gpu_options(CLI::App& cmd, GpuFlags& g);
// When --gpu or --gpu-command was given: the subcommand as the user typed it (cli_main's
// arguments, without the GPU flags) is sent to that GPU's `bankviz-cli serve`, with the files
// `file_values` name (those of its arguments that are files: their text travels, - is standard
// input), its output printed here and its exit status this command's (Exit thrown when not 0);
// returns true. False (nothing done) when neither flag was given.
bool run_on_remote_gpu(const GpuFlags& g, const char* subcommand,
                       const std::vector<std::string>& file_values);
// The arguments cli_main was called with (argv[1..]), for run_on_remote_gpu.
std::vector<std::string>& invocation_args();

// [SECTION] Serving (cmd_serve.cpp): while `bankviz-cli serve` runs a request, the names of the
// files sent with it (the request's directory is the working directory). A command reads no
// other file of the server's and writes none.
void set_served_files(const std::vector<std::string>* names);  // nullptr: not serving
bool serving();
// Exit{kExitUsage} when serving and `path` is not one of the files sent (`flag` names the
// argument in the message).
void check_served_input(const std::string& path, const char* flag);
// Exit{kExitUsage} when serving: `flag` writes or reads a file of the server's.
void refuse_when_served(const char* flag);
// Called by a command that must end its process after a kernel fault (the Runner is wedged):
// serve sends its reply first. Then std::_Exit(status).
[[noreturn]] void end_process_after_fault(int status);
// serve's hook for end_process_after_fault (nullptr: none).
void set_before_fault_exit(void (*hook)());

// analyze(s), or Exit{kExitFailed} listing the scenario's evaluation errors.
Analysis analyze_or_exit(const Scenario& s);
std::vector<std::string> preset_names();  // sorted stems of assets/presets/*.json
inline constexpr const char* kDefaultPreset = "row-write-column-read";

// "32x33" -> {32, 33}; throws Exit with a message naming the flag.
std::vector<long long> parse_extents(const std::string& text, const char* flag, size_t max_rank);

// fixed(v, digits): format.h, shared with the app.

}  // namespace bankviz::cli
