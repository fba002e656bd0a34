// The presenter's caption strip in lines (app/shared/caption_fit.h): what `lessons --check` and
// the app's caption strip share.
#include "caption_fit.h"

#include <gtest/gtest.h>

#include <string>

namespace bankviz {
namespace {

// Every byte 10 px wide: widths are easy to reason about.
float tens(std::string_view t) {
  return static_cast<float>(t.size()) * 10.0f;
}

TEST(CaptionFit, TheStripAtA1024x768ProjectorHasItsButtonsBesideTheFirstLine) {
  float px = 0;
  const CaptionRoom room = presenter_caption_room_at({1024, 768}, &px);
  EXPECT_EQ(px, 20);                       // a 40th of 768 is less than the 20 px floor
  EXPECT_EQ(room.rest, 1024 - 20);         // half an em of padding each side
  EXPECT_EQ(room.first, 1024 - 20 - 200);  // two 4.5-em buttons and an em
  presenter_caption_room_at({3840, 2160}, &px);
  EXPECT_EQ(px, 54);
}

TEST(CaptionFit, WrapsAtSpacesTheFirstLineNarrower) {
  // "aaaa bbbb cccc dddd": the first line holds 9 bytes, the next 14.
  const WrappedText w = wrap_caption("aaaa bbbb cccc dddd", {90, 140}, 2, tens);
  ASSERT_EQ(w.lines.size(), 2u);
  EXPECT_FALSE(w.cut);
  EXPECT_EQ(w.lines[0], "aaaa bbbb");
  EXPECT_EQ(w.lines[1], "cccc dddd");
}

TEST(CaptionFit, ALongerTextIsCutWithTheHintInsideItsLastLine) {
  const WrappedText w = wrap_caption("aaaa bbbb cccc dddd eeee ffff", {90, 140}, 2, tens);
  ASSERT_EQ(w.lines.size(), 2u);
  EXPECT_TRUE(w.cut);
  EXPECT_EQ(w.lines[0], "aaaa bbbb");
  EXPECT_EQ(w.lines[1], "cccc ... (C)");  // 14 bytes: the line's room, no trailing space
  EXPECT_LE(tens(w.lines[1]), 140);
  // One line: the question's.
  const WrappedText q = wrap_caption("Q: how many wavefronts", {100, 100}, 1, tens);
  EXPECT_TRUE(q.cut);
  ASSERT_EQ(q.lines.size(), 1u);
  EXPECT_LE(tens(q.lines[0]), 100);
}

TEST(CaptionFit, AWordWiderThanALineIsBrokenBetweenWholeCharacters) {
  const WrappedText w = wrap_caption("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", {40, 40}, 3, tens);
  EXPECT_FALSE(w.cut);
  ASSERT_EQ(w.lines.size(), 3u);
  EXPECT_EQ(w.lines[0], "\xc3\xa9\xc3\xa9");  // 4 bytes: two whole characters
  EXPECT_EQ(w.lines[2], "\xc3\xa9");
  // Spaces alone, or nothing: no line at all, nothing cut.
  EXPECT_TRUE(wrap_caption("   ", {40, 40}, 2, tens).lines.empty());
}

}  // namespace
}  // namespace bankviz
