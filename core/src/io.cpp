// io.cpp: bounded reads of user files (io.h).
#include "bankviz/io.h"

#include <filesystem>
#include <fstream>
#include <istream>

namespace bankviz {

namespace {

std::string size_text(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return std::to_string(bytes >> 20) + " MB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KB";
  return std::to_string(bytes) + " bytes";
}

std::string too_big(const std::string& what, int64_t max_bytes) {
  return what + " is larger than " + size_text(max_bytes) + ", the most bankviz reads";
}

}  // namespace

std::string regular_file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const std::string q = "'" + path + "'";
  if (ec || st.type() == fs::file_type::not_found) return q + ": no such file";
  switch (st.type()) {
    case fs::file_type::regular:
      return {};
    case fs::file_type::directory:
      return q + " is a directory, not a file";
    case fs::file_type::fifo:
      return q +
             " is a FIFO (named pipe), not a regular file: give a file, or - for standard input";
    case fs::file_type::character:
    case fs::file_type::block:
      return q + " is a device, not a regular file";
    case fs::file_type::socket:
      return q + " is a socket, not a regular file";
    default:
      return q + " is not a regular file";
  }
}

TextRead read_text_file(const std::string& path, int64_t max_bytes) {
  TextRead r;
  if (std::string p = regular_file_problem(path); !p.empty()) {
    r.error = std::move(p);
    return r;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && static_cast<int64_t>(size) > max_bytes) {
    r.error = too_big("'" + path + "' (" + size_text(static_cast<int64_t>(size)) + ")", max_bytes);
    return r;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.error = "'" + path + "': cannot open it (permissions?)";
    return r;
  }
  return read_text_stream(in, max_bytes, "'" + path + "'");
}

TextRead read_text_stream(std::istream& in, int64_t max_bytes, const std::string& what) {
  TextRead r;
  std::string text;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    const std::streamsize got = in.gcount();
    if (static_cast<int64_t>(text.size()) + got > max_bytes) {  // the file grew, or a stream
      r.error = too_big(what, max_bytes);
      return r;
    }
    text.append(buf, static_cast<size_t>(got));
  }
  if (in.bad()) {
    r.error = what + ": read error";
    return r;
  }
  r.text = std::move(text);
  return r;
}

}  // namespace bankviz
