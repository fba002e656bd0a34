// records.cpp: one recorded warp access per line (records.h).
#include "bankviz/records.h"

#include <cctype>
#include <charconv>
#include <istream>
#include <vector>

namespace bankviz {

LineRead read_record_line(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  using traits = std::char_traits<char>;
  bool any = false, too_long = false;
  size_t skipped = 0;
  for (traits::int_type c = buf->sbumpc();; c = buf->sbumpc()) {
    if (traits::eq_int_type(c, traits::eof())) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineRead::End;
      break;
    }
    any = true;
    if (traits::to_char_type(c) == '\n') break;
    if (line.size() < kMaxRecordLineBytes) {
      line += traits::to_char_type(c);
    } else if (!too_long) {
      too_long = true;
      skipped = 0;
    } else if (++skipped > kMaxRecordSkipBytes) {
      return LineRead::Endless;  // /dev/zero has no newline: give up instead of reading forever
    }
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

namespace {

// The words of a line, split at white space as `>>` splits them in the C locale (space, \t, \n,
// \v, \f, \r), without a stream: a stream's locale lookups were half of the time a 1,000,000-line
// file took.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> f;
  f.reserve(67);  // NAME OP MASK, 32 addresses, 32 sources
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  for (size_t i = 0; i < line.size();) {
    if (space(line[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && !space(line[end])) ++end;
    f.emplace_back(line, i, end - i);
    i = end;
  }
  return f;
}

// The 32 addresses (fields 3..34): every one must be a number; those of `lanes` non-negative and
// within 32 bits.
std::string read_addresses(const std::vector<std::string>& f, uint32_t lanes, WarpAccess& a,
                           size_t from = 3) {
  const bool source = from != 3;  // the cp.async sources S0..S31 (fields 35..66)
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::string& t = f[from + static_cast<size_t>(lane)];
    const bool active = (lanes >> lane) & 1u;
    const bool negative = !t.empty() && t[0] == '-';
    uint64_t v = 0;
    const std::string what = source ? "global source" : "address";
    if (!parse_u64(negative ? std::string_view(t).substr(1) : std::string_view(t), v))
      return "lane " + std::to_string(lane) + ": '" + t + "' is not " +
             (source ? "a global source" : "an address");
    if (!active) continue;  // inactive lanes' addresses are ignored
    if (negative) return "lane " + std::to_string(lane) + ": negative " + what + " " + t;
    if (v > 0xFFFFFFFFull)
      return "lane " + std::to_string(lane) + ": " + what + " " + t +
             (source ? " is beyond 4 GiB" : " is beyond 228 KB");
    (source ? a.source : a.addr)[static_cast<size_t>(lane)] = static_cast<uint32_t>(v);
  }
  return {};
}

}  // namespace

std::string parse_record(const std::string& line, std::string& name, WarpAccess& a) {
  const std::vector<std::string> f = fields(line);
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
  if (std::string err = read_addresses(f, a.mask, a); !err.empty()) return err;
  return validate(a);
}

std::string parse_any_record(const std::string& line, Record& r) {
  const std::vector<std::string> f = fields(line);
  const bool op_named =
      f.size() > 1 && !f[1].empty() && std::isalpha(static_cast<unsigned char>(f[1][0]));
  if (!op_named) {
    r.op.reset();
    return parse_record(line, r.name, r.access);
  }
  const bool copy = f[1].starts_with("cp.async.");
  if (f.size() != 35 && !(copy && f.size() == 67))
    return std::string("expected 35 fields (NAME OP MASK and 32 addresses") +
           (copy ? "; cp.async may add 32 global sources: 67" : "") + "), found " +
           std::to_string(f.size());
  r.name = f[0];
  r.op = parse_op(f[1]);
  if (!r.op)
    return "'" + f[1] +
           "' is neither a width nor an instruction (ldmatrix.x1|x2|x4[.trans], "
           "stmatrix.x1|x2|x4[.trans], cp.async.4|8|16, atom.4|8, atom.cas.4|8)";
  uint64_t mask = 0;
  if (!parse_u64(f[2], mask) || mask > 0xFFFFFFFFull)
    return "mask '" + f[2] + "' is not a 32-bit number (decimal or 0x hex)";
  if (is_matrix_op(r.op->op) && mask != 0xFFFFFFFFull)
    return f[1] + " is .sync.aligned: every lane executes it, so MASK must be 0xffffffff (the " +
           "row addresses come from lanes 0.." + std::to_string(8 * r.op->matrices - 1) + ")";
  r.access = WarpAccess{};
  r.access.width = r.op->width;
  r.access.mask = r.op->lanes(static_cast<uint32_t>(mask));
  if (std::string err = read_addresses(f, r.access.mask, r.access); !err.empty()) return err;
  if (f.size() == 67) {
    r.access.has_source = true;
    if (std::string err = read_addresses(f, r.access.mask, r.access, 35); !err.empty()) return err;
  }
  return validate(r.op->op, r.access);
}

}  // namespace bankviz
