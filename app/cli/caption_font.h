// caption_font.h: the presenter's caption type for `lessons --check` (caption_font.cpp).
#pragma once

#include <functional>
#include <string>

#include "caption_fit.h"

namespace bankviz::cli {

// Widths in the presenter's caption type (DejaVu Sans Bold) at a size in pixels, as the app
// measures them; empty with *why set when the font cannot be read (or this build has no
// stb_truetype.h).
std::function<TextWidth(float px)> caption_font_widths(std::string* why);

}  // namespace bankviz::cli
