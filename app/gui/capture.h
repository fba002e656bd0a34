// capture.h: writing PNG and SVG files without ever overwriting silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankviz::gui {

// Empty when `path` may be written: it does not exist (or force), and its directory exists.
// Else a message saying why not ("out.png exists; pass --force to overwrite").
std::string check_output(const std::string& path, bool force);

// Writes RGBA pixels (top row first) as PNG; false with a reason.
bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               bool force, std::string* error);
bool write_text(const std::string& path, const std::string& text, bool force, std::string* error);

// A fresh file name in `dir` ("bankviz-0001.png"), never an existing one.
std::string next_free_name(const std::string& dir, const std::string& stem, const std::string& ext);

}  // namespace bankviz::gui
