// capture.cpp: PNG/SVG writing (see capture.h). PNG: Debian's libpng (zlib) on the desktop; in the
// browser, where Emscripten offers libpng only as its own download, stb_image_write (compiled by
// app/web/stb_image_write.cpp).
#include "platform/capture.h"

#include <cstdio>
#include <filesystem>

#include "bankviz/io.h"

#ifdef __EMSCRIPTEN__
#include "stb_image_write.h"
#else
#include <png.h>
#endif

namespace bankviz::gui {

namespace fs = std::filesystem;

namespace {

#ifdef __EMSCRIPTEN__
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgba, bool) {
  // Rows unfiltered, as below. Set once (a thread-safe static), before the first encoding.
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
#else
// zlib's level for every PNG: 3 is 2x as fast as 6 for 1.4x the bytes (BENCHMARKS.md, "PNG
// through libpng").
constexpr int kPngLevel = 3;

void append_png(png_structp png, png_bytep data, png_size_t size) {
  static_cast<std::string*>(png_get_io_ptr(png))
      ->append(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
}

// libpng's errors come here instead of its default longjmp-and-print: the encoding stops, the
// caller sees an empty result. Nothing is thrown through libpng's C frames.
[[noreturn]] void png_failed(png_structp png, png_const_charp) {
  png_longjmp(png, 1);
}
void png_warned(png_structp, png_const_charp) {}

// The encoding itself, apart so that nothing with a destructor lives across libpng's longjmp.
bool encode_rows(png_structp png, png_infop info, int width, int height, const uint8_t* rgba,
                 bool opaque) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_compression_level(png, kPngLevel);
  png_write_info(png, info);
  if (opaque) png_set_filler(png, 0, PNG_FILLER_AFTER);  // the alpha bytes are left out
  const size_t stride = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(rgba + static_cast<size_t>(y) * stride));
  png_write_end(png, nullptr);
  return true;
}

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgba, bool opaque) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, png_failed, png_warned);
  if (!png) return {};
  png_infop info = png_create_info_struct(png);
  std::string out;
  png_set_write_fn(png, &out, append_png, nullptr);
  const bool ok = info && encode_rows(png, info, width, height, rgba.data(), opaque);
  png_destroy_write_struct(&png, &info);
  return ok ? out : std::string();
}
#endif

}  // namespace

std::string png_bytes(int width, int height, const std::vector<uint8_t>& rgba) {
  if (width <= 0 || height <= 0 ||
      rgba.size() != static_cast<size_t>(width) * static_cast<size_t>(height) * 4)
    return {};
  // Every row unfiltered ("none"): the app's flat colours compress best so, and choosing a filter
  // for each row costs most of an encoding. An opaque picture (every export the app draws) is
  // written without its alpha channel, a quarter less to compress. BENCHMARKS.md, "PNG through
  // libpng".
  bool opaque = true;
  for (size_t i = 3; i < rgba.size() && opaque; i += 4) opaque = rgba[i] == 255;
  return encode_png(width, height, rgba, opaque);
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
