// printable_output.h: what both programs print is text, never terminal control. A scenario's
// title, a preset's name or a path echoed in a message is user text; an ESC byte in it would start
// a terminal escape sequence (retitle the window, rewrite the screen), and so would a C1 character
// (U+009B is CSI). Every control character other than newline and tab is printed as '?', as
// core's printable.h defines them (the one home of that rule); this is the one home of applying
// it to a stream. bankviz-cli's std::cout/std::cerr go through PrintableBuf (app/cli/printable.h),
// the app's stdout/stderr through filter_standard_streams(); both use ControlFilter.
#pragma once

#include <string>
#include <string_view>

namespace bankviz {

// A stream of text in chunks, filtered: a UTF-8 character split across two chunks is held until
// its end arrives.
class ControlFilter {
 public:
  // The chunk (after what was held), every control character but newline and tab as '?'.
  std::string pass(std::string_view chunk);
  // At the stream's end: a character still cut off never ends, and is shown as '?'.
  std::string finish();

 private:
  std::string pending_;
};

// Replaces the C streams stdout and stderr with ones that write to file descriptors 1 and 2
// through a ControlFilter (glibc's fopencookie): every fprintf of the app, and of the libraries it
// runs, prints user text without control. stderr stays unbuffered, stdout as it was (line-buffered
// on a terminal); a failed write is the stream's error, as before. False (nothing replaced) if a
// stream cannot be made.
bool filter_standard_streams();

}  // namespace bankviz
