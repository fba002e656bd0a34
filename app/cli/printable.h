// printable.h: what bankviz-cli prints is text, never terminal control. PrintableBuf sits between
// std::cout/std::cerr and the terminal, its text through app/shared/printable_output.h's
// ControlFilter (every control character but newline and tab as '?'). JSON output is unaffected:
// the JSON writer already escapes C0 controls.
#pragma once

#include <algorithm>
#include <streambuf>
#include <string>
#include <string_view>

#include "printable_output.h"

namespace bankviz::cli {

class PrintableBuf : public std::streambuf {
 public:
  explicit PrintableBuf(std::streambuf* out) : out_(out) {}
  ~PrintableBuf() override { flush_pending(); }
  PrintableBuf(const PrintableBuf&) = delete;
  PrintableBuf& operator=(const PrintableBuf&) = delete;

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // Filtered a chunk at a time (printable_output.h: a character cut off is held).
    std::streamsize done = 0;
    while (done < n) {
      const size_t take = std::min<size_t>(static_cast<size_t>(n - done), 4096);
      const std::string clean = filter_.pass({s + done, take});
      const std::streamsize len = static_cast<std::streamsize>(clean.size());
      if (out_->sputn(clean.data(), len) < len) return done;  // the stream failed
      done += static_cast<std::streamsize>(take);
    }
    return done;
  }
  // A flush leaves a cut-off character held: its end may be the next write.
  int sync() override { return out_->pubsync(); }

 private:
  // A character still cut off when the filter ends never ends: it is shown as '?'.
  void flush_pending() {
    const std::string rest = filter_.finish();
    if (!rest.empty()) out_->sputn(rest.data(), static_cast<std::streamsize>(rest.size()));
  }

  std::streambuf* out_;
  ControlFilter filter_;
};

}  // namespace bankviz::cli
