// theme.h: fonts, ImGui colours and sizes for the dark, light and presenter looks.
#pragma once

#include "bankviz/svg.h"
#include "imgui.h"

namespace bankviz::gui {

struct Fonts {
  ImFont* ui = nullptr;    // DejaVu Sans (or ImGui's default)
  ImFont* bold = nullptr;  // headings, verdict
  ImFont* big = nullptr;   // the verdict line, 1.5x
  ImFont* mono = nullptr;  // JetBrains Mono: code, expressions
  float size = 17;         // ui font size in pixels
};
extern Fonts g_fonts;

// Base UI font size for a scale and presenter mode. Presenter mode's type grows with the window
// (window_px_h: its height in pixels) so that a 4K projector shows it as large as a 1080p one:
// at least 20 px x scale, else a 40th of the height (the cells, not the chrome, fill the rest).
float font_px(float scale, bool presenter, float window_px_h = 0);
// The type of slides the window exports (a GIF or a sequence from the Export menu): presenter
// mode's for the slide's height, in the window's atlas beside the window's own (g_fonts), so that
// an export's frames between the window's need no rebuild. The same set as g_fonts where the
// sizes agree.
extern Fonts g_slide_fonts;

// Rebuilds the font atlas (and its GL texture) at this size, and the slides' set at slide_px (0:
// none but the window's). Missing TTFs fall back silently to ImGui's built-in font.
void load_fonts(float px, float slide_px = 0);
// ImGui style from the palette, scaled.
void apply_style(const Palette& p, float scale, bool presenter);

inline ImU32 col(const Rgba& c, float alpha = 1.0f) {
  return IM_COL32(c.r, c.g, c.b, static_cast<int>(c.a * alpha));
}
inline ImVec4 colv(const Rgba& c) {
  return ImVec4(c.r / 255.f, c.g / 255.f, c.b / 255.f, c.a / 255.f);
}

}  // namespace bankviz::gui
