// records.h: recorded warp accesses, one per line, as `bankviz-cli wavefronts` reads them.
//
//   NAME WIDTH MASK A0 A1 ... A31
//   NAME OP MASK A0 A1 ... A31       (OP: ldmatrix.x4, stmatrix.x2.trans, cp.async.16, ...)
//   NAME cp.async.S MASK A0 .. A31 S0 .. S31   (each lane's global source, a byte offset)
// NAME without spaces, WIDTH in bytes (1, 2, 4, 8, 16), MASK the active lanes (decimal or 0x
// hex), then 32 byte addresses into shared memory (inactive lanes' are ignored, but must still be
// numbers). A blank line or one whose first non-blank character is '#' is not a record.
// The CLI and the record fuzzer (fuzz/) call these same functions.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "bankviz/access.h"

namespace bankviz {

// The longest line read as a record (its 34 numbers take under 1 KB): a longer line is not kept
// in memory; the CLI skips it with an error.
inline constexpr size_t kMaxRecordLineBytes = 64 * 1024;

// The most of one too-long line read past kMaxRecordLineBytes looking for its end.
inline constexpr size_t kMaxRecordSkipBytes = size_t{1} << 20;

enum class LineRead { Line, TooLong, Endless, End };
// Reads the next line ('\n' ends it and is dropped) into `line`: Line, or TooLong (the line was
// longer than kMaxRecordLineBytes: it is read to its end but `line` keeps only its start), or
// Endless (no end within kMaxRecordSkipBytes more: the input is not records, stop reading it), or
// End (nothing left). Memory and time stay bounded on any input, /dev/zero included.
LineRead read_record_line(std::istream& in, std::string& line);

// Unsigned integer in decimal or 0x hex; false on anything else (signs, junk, overflow, empty).
bool parse_u64(std::string_view text, uint64_t& value);

// False for a blank line (spaces, tabs, '\r') and a comment line ('#' first): not a record.
bool is_record_line(std::string_view line);

// Parses one record line into `name` and `access` (checked with validate()); returns an error
// message ("width '3' is not 1, 2, 4, 8 or 16", "lane 5: negative address -4"), or empty on
// success.
std::string parse_record(const std::string& line, std::string& name, WarpAccess& access);

// Either form: `NAME WIDTH MASK A0..A31` (op empty) or `NAME OP MASK A0..A31` with OP one of
// ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans], cp.async.4|8|16 (docs/MATRIX_RULE.md).
// For the matrix instructions MASK must be full (they are .sync.aligned) and the access's lanes
// are the row-address lanes 0..8N-1; rows must be 16-byte aligned, cp.async destinations aligned
// to the copy size. A cp.async line may go on with 32 global sources (byte offsets, aligned to
// the copy size, below 4 GiB): without them the source is coalesced (docs/CPASYNC_SOURCE.md).
struct Record {
  std::string name;
  std::optional<OpSpec> op;
  WarpAccess access;
};
std::string parse_any_record(const std::string& line, Record& record);

}  // namespace bankviz
