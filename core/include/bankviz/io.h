// io.h: reading what a user names (scenario, preset, record and settings files, standard input)
// with limits, so no input can hang a program or fill its memory.
//
// Only regular files are read: a FIFO would block forever, /dev/zero never ends, a directory
// reads as nothing. Every reader has a byte cap and says so when it is exceeded.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace bankviz {

inline constexpr int64_t kMaxScenarioBytes = int64_t{16} << 20;  // scenario and preset files

struct TextRead {
  std::optional<std::string> text;
  std::string error;  // set when !text: "'x' is a FIFO, not a regular file", "... is 2 GB; ..."
};

// Empty when `path` names a regular file (after symlinks), else why it cannot be read.
std::string regular_file_problem(const std::string& path);

// The whole file, if it is a regular file of at most max_bytes.
TextRead read_text_file(const std::string& path, int64_t max_bytes);

// At most max_bytes of a stream (standard input); `what` names it in the error.
TextRead read_text_stream(std::istream& in, int64_t max_bytes, const std::string& what);

// ---- Writing ----------------------------------------------------------------------------------
// Every file bankviz writes (exports, screenshots, settings, scenarios) goes through here: the
// bytes go to a temporary file beside the target, are flushed, synced and closed with every error
// checked, and only then renamed over the target. A full disk or a failed write leaves the old file
// as it was and no partial file behind.

// Empty when `path` may be written, else why not: no name, a directory, an existing file without
// `force`, an existing special file (a device or FIFO is never replaced, even with `force`), or a
// missing directory.
std::string output_problem(const std::string& path, bool force);

// Writes `bytes` to `path` as above. Empty on success, else the reason ("cannot write 'x': No space
// left on device").
std::string write_file_atomic(const std::string& path, std::string_view bytes, bool force);

}  // namespace bankviz
