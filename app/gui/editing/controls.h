// controls.h: what the scenario panel's files share (panel_controls.cpp: architecture, tiles,
// block, undo/redo, reset, save; panel_steps.cpp: steps, lets, constants).
#pragma once

#include <string>

#include "shell/panels.h"

namespace bankviz::gui {

// This frame's edits of the draft: which field changed (for undo's coalescing) and whether a
// field was left (its typing is then one finished entry).
struct FieldEdits {
  bool changed = false;
  bool ended = false;
  std::string field;  // the last changed field's path; empty for a discrete edit (a button)

  // After a field's widget: `c` is what the widget returned.
  void text(bool c, const std::string& path) {
    if (c) {
      changed = true;
      field = path;
    }
    if (ImGui::IsItemDeactivated()) ended = true;
  }
  // After a button, a combo choice, a checkbox: its own undo entry.
  void discrete(bool c) {
    if (!c) return;
    changed = true;
    field.clear();
    ended = true;
  }
};

// The error of the draft at `path` or under it, in the conflict colour under the field.
void show_error(const ScenarioEditor& s, const std::string& path);
// A bold section title over a separator.
void section(const std::string& title);

// panel_steps.cpp: the steps (add, remove, move, duplicate, kind, index, guard, value, loop), the
// lets and the constants of the draft.
void draw_steps(ScenarioEditor& s, FieldEdits& e, float w);
void draw_lets_and_constants(ScenarioEditor& s, FieldEdits& e, float w);

}  // namespace bankviz::gui
