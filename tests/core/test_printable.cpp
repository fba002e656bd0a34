// printable.h: which characters count as control, for every output that shows user text.
#include "bankviz/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace bankviz {
namespace {

TEST(Printable, C0DelAndC1AreControlUtf8TextIsNot) {
  EXPECT_TRUE(has_control("a\x1b]0;x"));
  EXPECT_TRUE(has_control("bell\a"));
  EXPECT_TRUE(has_control("del\x7f"));
  EXPECT_TRUE(has_control("line\n"));
  EXPECT_TRUE(
      has_control("csi \xc2\x9b"
                  "2J"));  // U+009B
  EXPECT_TRUE(
      has_control("osc \xc2\x9d"
                  "0;x"));                // U+009D
  EXPECT_TRUE(has_control("\xc2\x80"));   // U+0080, the first C1
  EXPECT_FALSE(has_control("\xc2\xa0"));  // U+00A0, the first after C1
  EXPECT_FALSE(has_control("tile \xc3\x97 2, \xe2\x80\xa6, \xf0\x9f\x99\x82"));  // x, ..., emoji
  EXPECT_FALSE(has_control(""));
}

TEST(Printable, MalformedUtf8IsControl) {
  EXPECT_TRUE(
      has_control("\x9b"
                  "2J"));                        // a raw C1 byte: CSI to an 8-bit terminal
  EXPECT_TRUE(has_control("\xc0\x9b"));          // an overlong form of ESC-like bytes
  EXPECT_TRUE(has_control("\xe0\x80\x9b"));      // overlong three-byte form
  EXPECT_TRUE(has_control("\xed\xa0\x80"));      // a surrogate
  EXPECT_TRUE(has_control("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_TRUE(has_control("\xef\xbf\xbe"));      // U+FFFE: not XML
  EXPECT_TRUE(has_control("cut \xe2\x80"));      // cut off
}

TEST(Printable, ReplaceKeepsLinesOnlyWhenAsked) {
  EXPECT_EQ(replace_controls("a\x1b[2Jb\n\tc\xc2\x9b"
                             "d",
                             '?'),
            "a?[2Jb??c?d");
  EXPECT_EQ(replace_controls("a\x1b[2Jb\n\tc\xc2\x9b"
                             "d",
                             '?', true),
            "a?[2Jb\n\tc?d");
  EXPECT_EQ(replace_controls("\xc3\x97 \xe2\x80\xa6", '?'), "\xc3\x97 \xe2\x80\xa6");
  // A malformed sequence: one mark per byte that starts no character.
  EXPECT_EQ(replace_controls("\xe2\x28\xa1", '?'), "?(?");
  // A sequence cut off at the end: one mark.
  EXPECT_EQ(replace_controls("ok\xf0\x9f\x99", '?'), "ok?");
}

TEST(Printable, CharAtTellsACutOffSequenceFromAMalformedOne) {
  const CharAt cut = char_at("\xe2\x80", 0);
  EXPECT_TRUE(cut.incomplete);
  EXPECT_EQ(cut.length, 2u);
  const CharAt bad = char_at("\xe2\x41", 0);
  EXPECT_FALSE(bad.incomplete);
  EXPECT_TRUE(bad.control);
  EXPECT_EQ(bad.length, 1u);
  const CharAt ok = char_at("\xe2\x80\xa6", 0);
  EXPECT_FALSE(ok.control);
  EXPECT_EQ(ok.length, 3u);
}

}  // namespace
}  // namespace bankviz
