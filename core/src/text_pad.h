// text_pad.h: padding a column of the CLI's plain-text tables (text.cpp's analysis table,
// advise.cpp's ranking), one home for both.
#pragma once

#include <cstddef>
#include <string>

namespace bankviz {

// `s` right-aligned in `width` characters (never cut).
inline std::string pad_left(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// `s` left-aligned in `width` characters (never cut).
inline std::string pad_right(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace bankviz
