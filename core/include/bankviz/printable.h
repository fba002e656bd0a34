// printable.h: the one home of "which characters are terminal control". User text (a title, a
// label, a lesson caption, a record's name, an expression echoed in a message) reaches terminals,
// SVG files and comments in generated kernels; a control character in it could start a terminal
// escape sequence (retitle the window, rewrite the screen), make an SVG invalid XML, or end a
// comment. Everything that shows user text asks here.
//
// A control character is: C0 (U+0000-U+001F), DEL (U+007F), C1 (U+0080-U+009F, which terminals
// read as CSI, OSC, ... like ESC [ and ESC ]), a Unicode noncharacter U+FFFE/U+FFFF (not XML), or
// a byte that does not begin a well-formed UTF-8 sequence (a raw 0x9B is CSI to an 8-bit
// terminal). Any other well-formed UTF-8 is printable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bankviz {

struct CharAt {
  size_t length = 1;        // bytes of the character at the position (at least 1)
  bool control = false;     // a control character, as above
  bool incomplete = false;  // the text ends inside a well-formed sequence (a stream may continue)
};

// The character that starts at s[i] (i < s.size()).
CharAt char_at(std::string_view s, size_t i);

// Whether s holds a control character (newline and tab included).
bool has_control(std::string_view s);

// s with each control character replaced by `with` (one per character, or per byte of a
// malformed sequence); newline and tab are kept when keep_lines. A sequence cut off at the end
// counts as control.
std::string replace_controls(std::string_view s, char with, bool keep_lines = false);

}  // namespace bankviz
