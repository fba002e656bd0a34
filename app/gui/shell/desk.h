// desk.h: the desk layout (presenter mode off) in a short window, "dense": 1280x720, 1024x768 and
// 1280x800 at the desk's type. There the views and the timeline drop their title bars (each one's
// first line says what it is), the tile's header puts the step's label beside the warp counter
// where it fits, and the status line shows only while it has news, so that a lesson's 32-row tile
// gets cells a desk reads (it had 6 px ones at 1280x720). ui.cpp lays the window out with it.
#pragma once

namespace bankviz::gui {

struct Settings;

// Whether a window `height` tall is short at the current type (fewer than 48 lines of it).
bool short_window(float height);
// Whether the desk is dense: neither presenter mode nor an export's slide, in a short window.
bool dense_desk(const Settings& settings, bool slide, float height);

}  // namespace bankviz::gui
