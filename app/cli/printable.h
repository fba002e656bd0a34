// printable.h: what bankviz-cli prints is text, never terminal control. A scenario's title, a
// step's label or an expression echoed in a message is user text; an ESC byte in it would start a
// terminal escape sequence (retitle the window, rewrite the screen). PrintableBuf sits between
// std::cout/std::cerr and the terminal and prints every control byte other than newline and tab
// as '?'. JSON output is unaffected: the JSON writer already escapes control characters.
#pragma once

#include <array>
#include <streambuf>

namespace bankviz::cli {

class PrintableBuf : public std::streambuf {
 public:
  explicit PrintableBuf(std::streambuf* out) : out_(out) {}

  static char printable(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n' && c != '\t') || u == 0x7f ? '?' : c;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    return out_->sputc(printable(traits_type::to_char_type(ch)));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::array<char, 4096> chunk;
    std::streamsize done = 0;
    while (done < n) {
      const std::streamsize len = std::min<std::streamsize>(n - done, chunk.size());
      for (std::streamsize i = 0; i < len; ++i)
        chunk[static_cast<size_t>(i)] = printable(s[done + i]);
      const std::streamsize wrote = out_->sputn(chunk.data(), len);
      done += wrote;
      if (wrote < len) break;  // the stream failed: report what was written
    }
    return done;
  }
  int sync() override { return out_->pubsync(); }

 private:
  std::streambuf* out_;
};

}  // namespace bankviz::cli
