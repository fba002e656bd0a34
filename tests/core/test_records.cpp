// Recorded warp accesses (records.h): the line format `bankviz-cli wavefronts` reads.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "bankviz/records.h"

using namespace bankviz;

namespace {

std::string addresses(int stride, int count = 32) {
  std::string s;
  for (int l = 0; l < count; ++l) s += ' ' + std::to_string(l * stride);
  return s;
}

}  // namespace

TEST(Records, NumbersAreUnsignedDecimalOrHexAndNothingElse) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_u64("42", v));
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(parse_u64("0xffffffffffffffff", v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_TRUE(parse_u64("0X1F", v));
  EXPECT_EQ(v, 31u);
  for (const char* bad : {"", "0x", "-1", "+1", "1 ", "12a", "18446744073709551616", "0x-1"})
    EXPECT_FALSE(parse_u64(bad, v)) << bad;
}

TEST(Records, BlankAndCommentLinesAreNotRecords) {
  for (const char* skip : {"", "   ", "\t\r", "# x", "  \t# indented"})
    EXPECT_FALSE(is_record_line(skip)) << skip;
  EXPECT_TRUE(is_record_line("a 4 0x1 0"));
  EXPECT_TRUE(is_record_line(" a#b"));
}

TEST(Records, AGoodLineFillsTheAccess) {
  std::string name;
  WarpAccess a;
  ASSERT_EQ(parse_record("col 8 0x0000ffff" + addresses(8), name, a), "");
  EXPECT_EQ(name, "col");
  EXPECT_EQ(a.width, 8);
  EXPECT_EQ(a.mask, 0xffffu);
  EXPECT_EQ(a.addr[15], 120u);
  EXPECT_EQ(a.addr[16], 0u);  // inactive lanes' addresses are not stored
}

TEST(Records, FieldsAreSeparatedByAnyWhiteSpaceAsTheCLocaleHasIt) {
  // Tabs, \v, \f, \r and runs of them separate fields; other bytes (a non-breaking space, NUL)
  // belong to the field.
  std::string name;
  WarpAccess a;
  std::string line = "\t col\v8 \f 0x3";
  for (int l = 0; l < 32; ++l) line += (l % 2 ? "\t\t" : " \r") + std::to_string(l * 8);
  ASSERT_EQ(parse_record(line + " \r", name, a), "");
  EXPECT_EQ(name, "col");
  EXPECT_EQ(a.width, 8);
  EXPECT_EQ(a.addr[1], 8u);
  EXPECT_EQ(parse_record("a\xc2\xa0"
                         "4 0x1" +
                             addresses(4),
                         name, a),
            "expected 35 fields (NAME WIDTH MASK and 32 addresses), found 34");
  EXPECT_EQ(parse_record(std::string("a 4\0 0x1", 9) + addresses(4), name, a).find("width"), 0u);
}

TEST(Records, EachBadFieldHasItsMessage) {
  const auto error = [](const std::string& line) {
    std::string name;
    WarpAccess a;
    return parse_record(line, name, a);
  };
  EXPECT_EQ(error("a 4 0x1 0"), "expected 35 fields (NAME WIDTH MASK and 32 addresses), found 4");
  EXPECT_EQ(error("a 3 0x1" + addresses(4)), "width '3' is not 1, 2, 4, 8 or 16");
  EXPECT_EQ(error("a 4 0x100000000" + addresses(4)),
            "mask '0x100000000' is not a 32-bit number (decimal or 0x hex)");
  EXPECT_EQ(error("a 4 0x1 -4" + addresses(4, 31)), "lane 0: negative address -4");
  EXPECT_EQ(error("a 4 0x1 4294967296" + addresses(4, 31)),
            "lane 0: address 4294967296 is beyond 228 KB");
  EXPECT_EQ(error("a 4 0x1 zz" + addresses(4, 31)), "lane 0: 'zz' is not an address");
  // An inactive lane's address must still be a number, but may be negative or misaligned.
  EXPECT_EQ(error("a 4 0x1 0 zz" + addresses(4, 30)), "lane 1: 'zz' is not an address");
  EXPECT_EQ(error("a 4 0x1 0 -3" + addresses(4, 30)), "");
  EXPECT_NE(error("a 8 0x3 0 4" + addresses(8, 30)), "");  // misaligned active lane: validate()
}

TEST(Records, LinesAreReadWithABoundedBuffer) {
  std::istringstream in("a b\r\n\n" + std::string(kMaxRecordLineBytes + 1, 'x') + "\nlast");
  std::string line;
  EXPECT_EQ(read_record_line(in, line), LineRead::Line);
  EXPECT_EQ(line, "a b\r");  // as std::getline: only '\n' ends a line
  EXPECT_EQ(read_record_line(in, line), LineRead::Line);
  EXPECT_EQ(line, "");
  EXPECT_EQ(read_record_line(in, line), LineRead::TooLong);
  EXPECT_EQ(line.size(), kMaxRecordLineBytes);  // the rest was read and dropped
  EXPECT_EQ(read_record_line(in, line), LineRead::Line);
  EXPECT_EQ(line, "last");  // the last line needs no newline
  EXPECT_EQ(read_record_line(in, line), LineRead::End);

  // A stream without a newline (standard input from /dev/zero) keeps at most the cap in memory.
  std::istringstream endless(std::string(16 * kMaxRecordLineBytes, '\0'));
  EXPECT_EQ(read_record_line(endless, line), LineRead::TooLong);
  EXPECT_LT(line.capacity(), 2 * kMaxRecordLineBytes);
  EXPECT_EQ(read_record_line(endless, line), LineRead::End);
}
