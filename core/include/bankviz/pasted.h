// pasted.h: characters pasted from documents into what bankviz reads as ASCII (expressions,
// integers, layouts, ranges), named so that the user can see and replace them.
#pragma once

#include <string>
#include <string_view>

namespace bankviz {

// The first character of `text` outside ASCII, as text pasted from a document or a slide brings
// it (a minus sign, an en dash, a multiplication sign, an ellipsis, a no-break space, full-width
// digits): its code point, what it is and, for the look-alikes of ASCII's, what to write
// ("U+00D7 (a multiplication sign): write 'x' between extents, '*' to multiply"); a byte that
// is not UTF-8 as "byte 0xE2"; "" when the text is ASCII. The character itself is never printed.
// Defined in expr.cpp, whose lexer says it of an expression.
std::string non_ascii_hint(std::string_view text);

}  // namespace bankviz
