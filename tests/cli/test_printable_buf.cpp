// PrintableBuf (app/cli/printable.h): the filter between bankviz-cli's streams and the terminal.
#include "printable.h"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace bankviz::cli {
namespace {

std::string filtered(const std::vector<std::string>& writes) {
  std::ostringstream sink;
  {
    PrintableBuf buf(sink.rdbuf());
    std::ostream out(&buf);
    for (const std::string& w : writes) out << w << std::flush;
  }
  return sink.str();
}

TEST(PrintableBuf, ControlsBecomeQuestionMarksLinesAndTabsStay) {
  EXPECT_EQ(filtered({"a\x1b]0;t\a b\n\tc\x7f"}), "a?]0;t? b\n\tc?");
  EXPECT_EQ(filtered({"csi \xc2\x9b"
                      "2J osc \xc2\x9d"
                      "0;t"}),
            "csi ?2J osc ?0;t");
}

TEST(PrintableBuf, ACharacterSplitAcrossWritesIsHeldUntilItsEnd) {
  // U+00D7 and U+2026 cut between two writes (and two flushes) print whole.
  EXPECT_EQ(filtered({"x \xc3", "\x97 y \xe2\x80", "\xa6"}), "x \xc3\x97 y \xe2\x80\xa6");
  // So is a C1 control: filtered, though its two bytes came apart.
  EXPECT_EQ(filtered({"a\xc2",
                      "\x9b"
                      "b"}),
            "a?b");
  // A character that never ends is shown as one mark when the filter ends.
  EXPECT_EQ(filtered({"end \xf0\x9f\x99"}), "end ?");
}

TEST(PrintableBuf, LongTextPassesWholeAcrossTheFiltersChunks) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "\xe2\x80\xa6";  // 15000 bytes: 4096-byte chunks cut some
  EXPECT_EQ(filtered({text}), text);
}

}  // namespace
}  // namespace bankviz::cli
