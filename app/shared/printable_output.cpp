// printable_output.cpp: control characters out of what is printed (printable_output.h).
#include "printable_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "bankviz/printable.h"

namespace bankviz {

std::string ControlFilter::pass(std::string_view chunk) {
  std::string text = std::move(pending_);
  pending_.clear();
  text.append(chunk);
  std::string clean;
  clean.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const CharAt c = char_at(text, i);
    if (c.incomplete) {  // the rest of this character may come with the next chunk
      pending_ = text.substr(i);
      break;
    }
    if (c.control && text[i] != '\n' && text[i] != '\t')
      clean += '?';
    else
      clean.append(text, i, c.length);
    i += c.length;
  }
  return clean;
}

std::string ControlFilter::finish() {
  const bool held = !pending_.empty();
  pending_.clear();
  return held ? "?" : "";
}

namespace {

struct FilteredFd {
  int fd;
  ControlFilter filter;
};

bool write_all(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

ssize_t write_filtered(void* cookie, const char* buf, size_t size) {
  auto* f = static_cast<FilteredFd*>(cookie);
  if (!write_all(f->fd, f->filter.pass({buf, size}))) return -1;
  return static_cast<ssize_t>(size);
}

int close_filtered(void* cookie) {
  auto* f = static_cast<FilteredFd*>(cookie);
  const bool ok = write_all(f->fd, f->filter.finish());
  delete f;  // the descriptor stays open: it was the process's, not ours
  return ok ? 0 : -1;
}

FILE* filtered(int fd) {
  auto* cookie = new FilteredFd{fd, {}};
  cookie_io_functions_t io{};
  io.write = write_filtered;
  io.close = close_filtered;
  FILE* f = ::fopencookie(cookie, "w", io);
  if (f == nullptr) delete cookie;
  return f;
}

}  // namespace

bool filter_standard_streams() {
#ifdef __EMSCRIPTEN__
  // The browser's standard streams are its console, not a terminal: nothing to filter.
  return true;
#else
  std::fflush(stdout);
  std::fflush(stderr);
  FILE* out = filtered(STDOUT_FILENO);
  FILE* err = filtered(STDERR_FILENO);
  if (out == nullptr || err == nullptr) {
    if (out) std::fclose(out);
    if (err) std::fclose(err);
    return false;
  }
  if (::isatty(STDOUT_FILENO)) std::setvbuf(out, nullptr, _IOLBF, BUFSIZ);
  std::setvbuf(err, nullptr, _IONBF, 0);
  stdout = out;
  stderr = err;
  return true;
#endif
}

}  // namespace bankviz
