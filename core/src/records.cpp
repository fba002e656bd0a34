// records.cpp: one recorded warp access per line (records.h).
#include "bankviz/records.h"

#include <charconv>
#include <istream>
#include <sstream>
#include <vector>

namespace bankviz {

LineRead read_record_line(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  using traits = std::char_traits<char>;
  bool any = false, too_long = false;
  for (traits::int_type c = buf->sbumpc();; c = buf->sbumpc()) {
    if (traits::eq_int_type(c, traits::eof())) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineRead::End;
      break;
    }
    any = true;
    if (traits::to_char_type(c) == '\n') break;
    if (line.size() < kMaxRecordLineBytes)
      line += traits::to_char_type(c);
    else
      too_long = true;
  }
  return too_long ? LineRead::TooLong : LineRead::Line;
}

bool parse_u64(std::string_view t, uint64_t& v) {
  const char* b = t.data();
  const char* e = b + t.size();
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    b += 2;
    base = 16;
  }
  if (b == e) return false;
  auto [p, ec] = std::from_chars(b, e, v, base);
  return ec == std::errc() && p == e;
}

bool is_record_line(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first != std::string_view::npos && line[first] != '#';
}

std::string parse_record(const std::string& line, std::string& name, WarpAccess& a) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string tok; in >> tok;) f.push_back(tok);
  if (f.size() != 35)
    return "expected 35 fields (NAME WIDTH MASK and 32 addresses), found " +
           std::to_string(f.size());
  name = f[0];
  uint64_t width = 0, mask = 0;
  if (!parse_u64(f[1], width) ||
      (width != 1 && width != 2 && width != 4 && width != 8 && width != 16))
    return "width '" + f[1] + "' is not 1, 2, 4, 8 or 16";
  if (!parse_u64(f[2], mask) || mask > 0xFFFFFFFFull)
    return "mask '" + f[2] + "' is not a 32-bit number (decimal or 0x hex)";
  a.width = static_cast<int>(width);
  a.mask = static_cast<uint32_t>(mask);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::string& t = f[3 + static_cast<size_t>(lane)];
    const bool active = (a.mask >> lane) & 1u;
    const bool negative = !t.empty() && t[0] == '-';
    uint64_t v = 0;
    if (!parse_u64(negative ? std::string_view(t).substr(1) : std::string_view(t), v))
      return "lane " + std::to_string(lane) + ": '" + t + "' is not an address";
    if (!active) continue;  // inactive lanes' addresses are ignored
    if (negative) return "lane " + std::to_string(lane) + ": negative address " + t;
    if (v > 0xFFFFFFFFull)
      return "lane " + std::to_string(lane) + ": address " + t + " is beyond 228 KB";
    a.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(v);
  }
  return validate(a);
}

}  // namespace bankviz
