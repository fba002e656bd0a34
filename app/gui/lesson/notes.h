// notes.h: a lesson scene's instructor's notes at the desk (lesson.h Scene::notes: what to do
// live once the answer is out: an edit, a Compare, a Sweep, what to ask the room). A panel of the
// desk's sidebar while a scene with notes is on screen (ui.cpp), under the scenario's controls:
// the notes once the answer is out, never before it (they talk about the answer); as tall before
// it as after, so that nothing moves when it comes. Presenter mode and views only show them only
// when key N asks (AppState::show_notes), over the views' lower right corner, after the answer.
#pragma once

#include <string>

#include "shell/panels.h"  // Rect

namespace bankviz::gui {

// The panel's height for `notes` in a sidebar `width` wide, at most `most` (it scrolls past that);
// 0 without notes.
float notes_height(const std::string& notes, float width, float most);
// The panel in `r`: the notes, or while `conceal` (a question is open) that they follow the answer.
void draw_scene_notes(const std::string& notes, bool conceal, Rect r);

}  // namespace bankviz::gui
