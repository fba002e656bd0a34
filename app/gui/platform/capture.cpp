// capture.cpp: PNG/SVG writing (see capture.h). libstb provides stbi_write_png_to_func; we must
// not define STB_IMAGE_WRITE_IMPLEMENTATION ourselves.
#include "platform/capture.h"

#include <cstdio>
#include <filesystem>

#include "bankviz/io.h"
#include "stb_image_write.h"

namespace bankviz::gui {

namespace fs = std::filesystem;

std::string png_bytes(int width, int height, const std::vector<uint8_t>& rgba) {
  if (width <= 0 || height <= 0 ||
      rgba.size() != static_cast<size_t>(width) * static_cast<size_t>(height) * 4)
    return {};
  // Every row unfiltered ("none"): the app's flat colours compress best so. stb's choice among
  // five filters for each row tried all five: a 1280x720 frame took 205 ms for 144 KB, and takes
  // 56 ms for 143 KB (BENCHMARKS.md); a whole animation's PNG sequence is 3.7 times as fast. Set
  // once (a thread-safe static), before the first encoding on any thread.
  static const bool unfiltered = [] {
    stbi_write_force_png_filter = 0;
    return true;
  }();
  (void)unfiltered;
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                               static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &out, width, height, 4, rgba.data(), width * 4)) return {};
  return out;
}

bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               bool force, std::string* error) {
  // Refuse before encoding: the encoder's time is wasted on a target that cannot be written.
  if (std::string why = output_problem(path, force); !why.empty()) {
    *error = why;
    return false;
  }
  const std::string png = png_bytes(width, height, rgba);
  if (png.empty()) {
    *error = "cannot write '" + path + "': the PNG encoder failed (" + std::to_string(width) + "x" +
             std::to_string(height) + ")";
    return false;
  }
  *error = write_file_atomic(path, png, force);
  return error->empty();
}

bool write_text(const std::string& path, const std::string& text, bool force, std::string* error) {
  *error = write_file_atomic(path, text, force);
  return error->empty();
}

std::string next_free_name(const std::string& dir, const std::string& stem,
                           const std::string& ext) {
  for (int i = 1; i < 100000; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s-%04d.%s", stem.c_str(), i, ext.c_str());
    fs::path p = fs::path(dir.empty() ? "." : dir) / buf;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return p.string();
  }
  return "";
}

}  // namespace bankviz::gui
