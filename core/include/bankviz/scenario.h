// scenario.h: everything one picture and one kernel are made from, as a plain value.
//
// A Scenario is what the user edits (GUI controls, CLI flags, a JSON file, a preset): tile
// declarations, the thread block, named constants and per-thread "let" variables, and the
// shared-memory steps in program order. docs/SCENARIO.md documents the JSON schema.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankviz/access.h"
#include "bankviz/expr.h"
#include "bankviz/kinds.h"  // StepKind and its table
#include "bankviz/tile.h"

namespace bankviz {

struct Step {
  StepKind kind = StepKind::Load;
  std::string tile;   // tile name; empty = the first tile
  std::string index;  // "tile[threadIdx.y][threadIdx.x]" (name optional: "[ty][tx]")
  std::string guard;  // empty = every thread; else a C condition: "threadIdx.x < 16"
  std::string value;  // store/atomic: the stored value's C expression (default: the thread's
                      // linear index); shown in the generated kernel, checked on the GPU
  std::string label;  // short text for the timeline; empty = derived from index
  // cp.async only: the global chunk the thread copies, a C expression of the thread (in units of
  // the copy size: the thread copies bytes [source * B, source * B + B) of the kernel's input,
  // within kSourceBytes). Empty = the coalesced default, the thread's linear index in the block.
  // The global side paces the shared write (docs/CPASYNC_SOURCE.md).
  std::string source;
  // Optional loop around the step: for (int var = from; var < to; var += step). The bounds and
  // every value var takes (the one that ends the loop included) must fit in an int.
  std::string loop_var;
  int64_t loop_from = 0, loop_to = 0, loop_step = 1;
  // ldmatrix/stmatrix: matrices (1, 2 or 4) and .trans; cp.async: bytes copied (4, 8 or 16).
  // The JSON "kind" names them together as PTX does: "ldmatrix.x4.trans", "cp.async.16".
  int matrices = 1;
  bool trans = false;
  int copy_bytes = 16;

  const StepKindInfo& info() const { return step_kind_info(kind); }  // the kind's row
  bool is_memory() const { return kind != StepKind::Sync; }
  bool reads() const { return info().access == StepAccess::Read; }
  // The bank model's instruction for this step, with its width (matrix rows: 16 bytes; cp.async:
  // the copy size; else the element's size, elem_bytes).
  OpSpec op(int elem_bytes) const;
  // "store", "ldmatrix.x4.trans", "cp.async.16": what the JSON "kind" holds.
  std::string kind_text() const;
  // How many times the step executes: 1 without a loop; else the C loop's trip count
  // (step > 0: var < to; step < 0: var > to); 0 for a loop that never runs or a zero step.
  int64_t iterations() const;
};

// The most executed steps (loop iterations included) one scenario may unroll into, and the most
// thread-steps (executed steps x threads of the block): what bounds the model's time and memory.
inline constexpr int64_t kMaxExecutedSteps = 4096;
// The kernel's input buffer that a cp.async step with a "source" copies from (1 MiB, what the
// source suite was measured in): every lane's chunk must lie inside it.
inline constexpr int64_t kSourceBytes = int64_t{1} << 20;
inline constexpr int64_t kMaxThreadSteps = int64_t{1} << 19;

// What one scenario may hold (check() and the JSON reader say so with the limit). Together with
// kMaxThreadSteps and kMaxEvaluations (trace.h) they bound the model's time and memory: the worst
// legal scenario analyzes in well under a second (BENCHMARKS.md).
inline constexpr size_t kMaxTiles = 256;        // __shared__ arrays
inline constexpr size_t kMaxConstants = 1024;   // #defines
inline constexpr size_t kMaxLets = 1024;        // per-thread variables
inline constexpr size_t kMaxSteps = 4096;       // scenario steps (each executes at least once)
inline constexpr size_t kMaxExprChars = 4096;   // one index, guard, value or let expression
inline constexpr size_t kMaxTextChars = 65536;  // name, title, label, description, source
inline constexpr size_t kMaxDiagnostics = 100;  // problems listed; then "N more problems"

// Parses a "kind" value: a plain kind or an instruction name ("ldmatrix.x2", "stmatrix.x4.trans",
// "cp.async.8") into the step's kind and variant fields. False for an unknown name.
bool parse_step_op(std::string_view text, Step& step);

struct Let {
  Let() = default;
  Let(std::string n, std::string e, std::string t = {})
      : name(std::move(n)), expr(std::move(e)), type(std::move(t)) {}
  std::string name;  // TYPE NAME = EXPR;  (evaluated per thread, in order)
  std::string expr;
  std::string type;  // "int", "unsigned int", "long long", ...; empty = the expression's type
};

struct Constant {
  std::string name;  // #define NAME VALUE
  int64_t value = 0;
  // The C type of VALUE as the kernel spells it: int within [-INT_MAX, INT_MAX], else long long
  // (the literal's type; a negative value is the negation of a positive literal).
  CType type() const;
};

struct Scenario {
  std::string name = "custom";  // identifier (preset file stem)
  std::string title;            // one line for menus
  std::string description;      // what to notice, for the lesson panel
  std::string source;           // which seed it reproduces, if any
  std::string arch = "hopper";  // arch id (see arch.h)
  std::vector<TileDecl> tiles = {TileDecl{}};
  int64_t block[3] = {32, 32, 1};  // blockDim.x, .y, .z
  int64_t grid = 1;                // blocks in the "as written" launch
  std::vector<Constant> constants;
  std::vector<Let> lets;
  std::vector<Step> steps;
  // The step the picture opens on (a preset's or a lesson scene's point): an index into `steps`,
  // shown at its first execution; -1 (absent in JSON) = the worst step.
  int open_step = -1;

  int64_t threads() const { return block[0] * block[1] * block[2]; }
  int64_t warps() const { return (threads() + 31) / 32; }
  const TileDecl* find_tile(std::string_view name) const;  // empty name = first tile
};

// A problem found in user input. path names the field as in the JSON ("steps[2].index",
// "tiles[0].dims"); column is 1-based within that field's text, 0 when not about a position.
struct Diagnostic {
  std::string path;
  int column = 0;
  std::string message;
  std::string format() const;  // "steps[2].index col 7: expected ']'"
};

// Checks ranges and every expression (parse only; evaluation errors come from analyze).
std::vector<Diagnostic> check(const Scenario& s);

// The problem with open_step, if any: it must name a load, store or atomic of `steps` that
// executes. Checked where a file is read (scenario_from_json, lessons); an edit that removes or
// changes that step leaves a stale value, which the app's opening (lesson.h opening_step) ignores
// and scenario_to_json leaves out, so that a saved scenario always reads back.
std::optional<Diagnostic> check_open_step(const Scenario& s);

// Keeps the first kMaxDiagnostics - 1 problems and says how many more there were.
void limit_diagnostics(std::vector<Diagnostic>& errors);

struct ScenarioLoad {
  std::optional<Scenario> scenario;
  std::vector<Diagnostic> errors;  // non-empty iff !scenario
};
ScenarioLoad scenario_from_json(std::string_view json_text);
std::string scenario_to_json(const Scenario& s);  // pretty, round-trips through from_json

// The seeds' examples, each a Scenario. Also loadable from assets/presets/*.json.
ScenarioLoad load_scenario_file(const std::string& path);

}  // namespace bankviz
