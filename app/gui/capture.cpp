// capture.cpp: PNG/SVG writing (see capture.h). libstb provides stbi_write_png; we must not
// define STB_IMAGE_WRITE_IMPLEMENTATION ourselves.
#include "capture.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "stb_image_write.h"

namespace bankviz::gui {

namespace fs = std::filesystem;

std::string check_output(const std::string& path, bool force) {
  if (path.empty()) return "no output file given";
  std::error_code ec;
  fs::path p(path);
  if (fs::exists(p, ec)) {
    if (fs::is_directory(p, ec)) return path + " is a directory";
    if (!force) return path + " exists; pass --force to overwrite it";
  }
  fs::path dir = p.parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    return "cannot write " + path + ": directory " + dir.string() + " does not exist";
  return "";
}

bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               bool force, std::string* error) {
  if (std::string why = check_output(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  errno = 0;
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4)) {
    *error = "cannot write " + path + (errno ? std::string(": ") + std::strerror(errno) : "");
    return false;
  }
  return true;
}

bool write_text(const std::string& path, const std::string& text, bool force, std::string* error) {
  if (std::string why = check_output(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::string next_free_name(const std::string& dir, const std::string& stem,
                           const std::string& ext) {
  for (int i = 1; i < 100000; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s-%04d.%s", stem.c_str(), i, ext.c_str());
    fs::path p = fs::path(dir.empty() ? "." : dir) / buf;
    std::error_code ec;
    if (!fs::exists(p, ec)) return p.string();
  }
  return "";
}

}  // namespace bankviz::gui
