// printable.h: what bankviz-cli prints is text, never terminal control. A scenario's title, a
// step's label or an expression echoed in a message is user text; an ESC byte in it would start a
// terminal escape sequence (retitle the window, rewrite the screen), and so would a C1 character
// (U+009B is CSI). PrintableBuf sits between std::cout/std::cerr and the terminal and prints every
// control character other than newline and tab as '?', as core's printable.h defines them (the one
// home of that rule). A UTF-8 character split across two writes is held until its end arrives.
// JSON output is unaffected: the JSON writer already escapes C0 controls.
#pragma once

#include <algorithm>
#include <streambuf>
#include <string>
#include <string_view>

#include "bankviz/printable.h"

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
    // The bytes held from the last write, then these: filtered a chunk at a time.
    std::streamsize done = 0;
    while (done < n) {
      const size_t take = std::min<size_t>(static_cast<size_t>(n - done), 4096);
      std::string text = pending_;
      text.append(s + done, take);
      pending_.clear();
      std::string clean;
      clean.reserve(text.size());
      for (size_t i = 0; i < text.size();) {
        const CharAt c = char_at(text, i);
        if (c.incomplete) {  // the rest of this character may come with the next write
          pending_ = text.substr(i);
          break;
        }
        if (c.control && text[i] != '\n' && text[i] != '\t')
          clean += '?';
        else
          clean.append(text, i, c.length);
        i += c.length;
      }
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
    if (pending_.empty()) return;
    pending_.clear();
    out_->sputc('?');
  }

  std::streambuf* out_;
  std::string pending_;
};

}  // namespace bankviz::cli
