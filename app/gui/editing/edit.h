// edit.h: the edits the scenario controls make, as pure functions on a Scenario (no ImGui), and
// saving a scenario file.
//
// They change the structure only; whether the result is valid is check()'s and analyze()'s to
// say (the app shows their errors under the field). A step's kind is what the JSON "kind" holds
// (parse_step_op / Step::kind_text: "store", "ldmatrix.x4.trans", "cp.async.16"). open_step
// follows the step it names through inserts, removals and moves; removing that step drops it
// (-1: the worst step).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz::gui {

// Every kind a step can take, in menu order: store, load, atomic, sync, ldmatrix.x1 ..
// ldmatrix.x4.trans, stmatrix.x1 .. stmatrix.x4.trans, cp.async.4/8/16.
const std::vector<std::string>& step_kind_choices();

// Sets the step's kind and variant from a kind text; false (the step unchanged) for an unknown
// one. A step that becomes a memory access keeps its index; one with no index gets the tile's
// natural one, tile[threadIdx.y][threadIdx.x] (as many subscripts as the tile has dims).
bool set_step_kind(Scenario& s, size_t i, std::string_view kind);

// Inserts a new step of `kind` after step `after` (at the end when after >= steps.size()) and
// returns its index. It copies the tile, index and guard of the step it follows (or of the last
// memory step), so that it starts as an access the scenario already makes.
size_t add_step(Scenario& s, size_t after, std::string_view kind);
// Inserts a copy of step i after it; returns the copy's index.
size_t duplicate_step(Scenario& s, size_t i);
void remove_step(Scenario& s, size_t i);
// Swaps step i with its neighbour (dir < 0: the one before, else the one after); false at an end.
bool move_step(Scenario& s, size_t i, int dir);

// Lets and constants: a new one gets a name no constant or let has ("v1", "N1").
size_t add_let(Scenario& s);
void remove_let(Scenario& s, size_t i);
size_t add_constant(Scenario& s);
void remove_constant(Scenario& s, size_t i);

// Whether a and b make the same accesses (everything but name, title, description, source and
// open_step agrees): the model's figures, and so a description's, are the same for both.
bool same_model(const Scenario& a, const Scenario& b);

// The description true to `draft`: `loaded`'s own while the draft makes the same accesses, else
// written from the draft's Analysis `a` (text.h describe_analysis), saying what it was edited
// from ("Edited from row-write-column-read. The model on ..."); `a` null when the draft does not
// analyze. The app shows it after each analysis and a save writes it.
std::string draft_description(const Scenario& loaded, const Scenario& draft, const Analysis* a);

// The path "Save as..." proposes: <current directory>/<name>.json, absolute.
std::string default_save_path(const Scenario& s);

// Saving the scenario (scenario_to_json) through write_file_atomic. Without force an existing
// file is not replaced: the result says Exists, and the app asks "Replace?" before saving again
// with force.
struct SaveResult {
  enum Status { Saved, Exists, Failed } status = Failed;
  std::string path;   // the full (absolute) path written or refused
  std::string error;  // why, when Failed or Exists
};
SaveResult save_scenario(const Scenario& s, const std::string& path, bool force);

}  // namespace bankviz::gui
