// printable.cpp: see printable.h. UTF-8 well-formedness follows the Unicode Standard's table 3-7
// (no overlong forms, no surrogates, nothing past U+10FFFF).
#include "bankviz/printable.h"

namespace bankviz {

namespace {

bool in(unsigned char c, unsigned char lo, unsigned char hi) {
  return c >= lo && c <= hi;
}

}  // namespace

CharAt char_at(std::string_view s, size_t i) {
  CharAt r;
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) {
    r.control = c < 0x20 || c == 0x7f;
    return r;
  }
  // The lead byte gives the length and the range of the second byte.
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;
  if (in(c, 0xc2, 0xdf)) {
    len = 2;
  } else if (in(c, 0xe0, 0xef)) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (in(c, 0xf0, 0xf4)) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {  // a continuation byte on its own, C0, C1, F5..FF: never a character's start
    r.control = true;
    return r;
  }
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= s.size()) {  // well formed so far, cut off by the end of the text
      r.length = k;
      r.control = true;
      r.incomplete = true;
      return r;
    }
    const unsigned char b = byte(k);
    if (k == 1 ? !in(b, lo, hi) : !in(b, 0x80, 0xbf)) {
      r.control = true;  // malformed: the lead byte alone; what follows is read on its own
      return r;
    }
  }
  r.length = len;
  if (len == 2) r.control = c == 0xc2 && byte(1) <= 0x9f;                     // C1: U+0080..U+009F
  if (len == 3) r.control = c == 0xef && byte(1) == 0xbf && byte(2) >= 0xbe;  // U+FFFE, U+FFFF
  return r;
}

bool has_control(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const CharAt c = char_at(s, i);
    if (c.control) return true;
    i += c.length;
  }
  return false;
}

std::string replace_controls(std::string_view s, char with, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const CharAt c = char_at(s, i);
    if (!c.control || (keep_lines && (s[i] == '\n' || s[i] == '\t')))
      out.append(s.substr(i, c.length));
    else
      out += with;
    i += c.length;
  }
  return out;
}

}  // namespace bankviz
