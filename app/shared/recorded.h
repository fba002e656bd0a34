// recorded.h: measurements recorded on a GPU (`bankviz-cli measure --out FILE`) and shipped in
// assets/recorded/, so that a machine without a GPU (a lecture-hall laptop, the browser) shows a
// measured figure wherever the scenario is exactly one that was measured: `run --recorded`, the
// app's stage and measurement panel, labelled "measured on H200, recorded 2026-11-29".
//
// A scenario's identity is its canonical JSON (scenario_to_json) without the words that do not
// change the kernel (name, title, description, source, the step it opens on), hashed: an edit
// that changes any tile, constant, let, step, block or architecture is another scenario.
//
// Pure C++ (no process): the browser build reads the sets with it too.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bankviz/codegen.h"
#include "bankviz/run_types.h"
#include "bankviz/scenario.h"
#include "bankviz/svg.h"

namespace bankviz {

inline constexpr const char* kRecordedFormat = "bankviz-recorded";
inline constexpr int kRecordedFormatVersion = 1;
inline constexpr int64_t kMaxRecordedBytes = 64LL << 20;

// 16 hex digits: FNV-1a (64 bits) of the scenario's canonical text.
std::string scenario_identity(const Scenario& s);

struct RecordedSet {
  std::string path;  // where it was read from (messages)
  std::string bankviz;
  int rules_version = 0;  // arch.h kModelRulesVersion when it was measured
  std::string date;       // "2026-11-29" (UTC)
  std::string device;     // "NVIDIA H200"
  std::string sm;
  int sm_count = 0;
  double clock_mhz = 0;
  int driver_cuda = 0;
  bool complete = true;                        // false: the budget ended before everything ran
  std::map<std::string, nlohmann::json> runs;  // identity + ' ' + mode -> run_json.h's result
  std::map<std::string, std::string> names;    // identity -> the name it was measured under
  // A set read by its index (index_recorded_set; the shipped sets): its text and where each run
  // lies in it (identity + ' ' + mode -> [begin, end) of the run's object); `runs` and `names`
  // stay empty and a run is read when it is looked up.
  std::shared_ptr<const std::string> text;
  std::map<std::string, std::pair<size_t, size_t>> lines;
  nlohmann::json experiments = nlohmann::json::array();  // `experiments --run --json`'s entries
};

// The text of a set (measure writes it); nullopt with the reason when it is not one (a wrong
// format or version, a missing field, an entry whose result does not read back).
std::optional<RecordedSet> parse_recorded_set(std::string_view text, std::string* error);
std::string recorded_set_text(const RecordedSet& set);
// A set laid out as recorded_set_text writes it (its header on the first line, one run a line)
// indexed without reading its runs: the header checked as parse_recorded_set checks it, each
// run's identity and mode read from the start of its line, its result read when it is looked up
// (find_recorded_run; one that does not read back is then passed over). nullopt with the reason
// when the text is not laid out so (a set written by hand): read it whole.
std::optional<RecordedSet> index_recorded_set(std::string text, std::string* error);

// "measured on H200, recorded 2026-11-29"
std::string recorded_label(const RecordedSet& set);
// Empty when the set was measured with this bankviz's rules; else that it is older, in words.
std::string rules_note(const RecordedSet& set);

struct RecordedRun {
  RunResult result;  // as the run returned it on the GPU that recorded it
  const RecordedSet* set = nullptr;
  std::string label;  // recorded_label()
  std::string note;   // rules_note()
};
// The recorded run of exactly this scenario in this mode, in the first set that has it.
std::optional<RecordedRun> find_recorded_run(const std::vector<RecordedSet>& sets,
                                             const Scenario& s, RunMode mode);

// Every *.json of `dir` read as a set, in name order; what could not be read in *problems.
// `indexed`: each set read by index_recorded_set where it can be (a lookup then reads one run;
// the whole read of 6.5 MB of JSON took 0.3 s and 40 MB per process: BENCHMARKS.md).
std::vector<RecordedSet> load_recorded_sets(const std::string& dir,
                                            std::vector<std::string>* problems,
                                            bool indexed = false);
// assets/recorded (data_dir.h's assets_dir()), indexed, once.
const std::vector<RecordedSet>& shipped_recorded_sets();

// A measured figure as the stage says it: "WHERE: 32.02 cycles per instruction, model 32", WHERE
// "measured on H200" (a live GPU) or recorded_label() ("measured on H200, recorded 2026-11-29").
std::string figure_words(const std::string& where, double cycles, double model);
// One side of a comparison's figure: "32.02 cycles/instr on NVIDIA H200 (sm_90, 132 SMs)", or
// with a recorded label "32.02 cycles/instr, measured on H200, recorded 2026-11-29".
std::string side_figure_words(double cycles, const std::string& device,
                              const std::string& recorded);
// A run's exposed figure: the sum over its steps of cycles per instruction (the app's
// Measurement::cycles_per_instruction), 0 when it has none.
double exposed_cycles(const RunResult& r);
// The recorded exposed figure of exactly `s` at scenario step `step` (an index into
// Scenario::steps) as figure_words() says it, labelled; empty when none was recorded. What the
// headless pictures of a machine without a GPU show (bankviz-cli export --slide).
std::string recorded_step_words(const std::vector<RecordedSet>& sets, const Scenario& s, int step);
// Both sides' recorded exposed figures and their ratio on a comparison slide (svg.h), as the
// app's comparison shows measured ones, where exactly both were recorded; else `co` unchanged
// (bankviz-cli export --compare).
void recorded_compare_figures(const std::vector<RecordedSet>& sets, const Scenario& a,
                              const Scenario& b, CompareSlideOptions& co);

// What a figure says where nothing was measured and none recorded matches.
#ifdef __EMSCRIPTEN__
inline constexpr const char* kNotMeasured =
    "not measured: nobody recorded exactly this scenario on a GPU, and a browser runs no kernel";
#else
inline constexpr const char* kNotMeasured = "not measured: connect a GPU (--gpu HOST)";
#endif

}  // namespace bankviz
