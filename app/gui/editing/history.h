// history.h: undo and redo of the draft Scenario, as whole snapshots.
//
// Every edit records the draft as it was before the edit; undo hands that snapshot back and keeps
// the current draft for redo. Typing into one field is one entry, not one per keystroke: an edit
// that names the same field as the entry before it (and no end_field() in between) is folded into
// that entry. A new edit after an undo starts a new branch and drops the redo entries.
//
// Bound: at most kMaxEntries snapshots on each side (the oldest undo entry is dropped first). A
// scenario is limited by check() (4096 steps, 4096-character expressions), so 256 snapshots of
// even the largest legal one stay within a few hundred MB, and a typical preset (a few KB) within
// a MB. Pure: no ImGui, no analysis; the app (app_state.h) re-analyzes what undo returns.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "bankviz/scenario.h"

namespace bankviz::gui {

class History {
 public:
  static constexpr size_t kMaxEntries = 256;

  // The draft is about to change (or has changed) from `before`. `field` names the control being
  // edited ("steps[2].index"); consecutive records with the same non-empty field coalesce into
  // one entry. An empty field never coalesces (a button: add step, reset, ...).
  void record(const Scenario& before, std::string_view field = {});
  // The field lost focus or its edit was committed: the next record starts a new entry even for
  // the same field.
  void end_field() { field_.clear(); }

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  size_t undo_size() const { return undo_.size(); }
  size_t redo_size() const { return redo_.size(); }

  // The snapshot to show instead of `current` (which becomes the redo entry), or none.
  std::optional<Scenario> undo(const Scenario& current);
  // The snapshot undone last (`current` goes back on the undo side), or none.
  std::optional<Scenario> redo(const Scenario& current);
  // A new scenario was loaded (preset, file, lesson scene): nothing to go back to.
  void clear();

 private:
  std::deque<Scenario> undo_, redo_;  // back() is the most recent
  std::string field_;                 // the field the last record was for, while it is edited
};

}  // namespace bankviz::gui
