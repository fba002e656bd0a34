// capture.h: writing PNG and SVG files without ever overwriting silently. Every write goes through
// core's write_file_atomic (io.h): a temporary file renamed over the target, so a full disk or a
// failed write leaves no partial file, and output_problem() is the one check of a target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankviz::gui {

// RGBA pixels (top row first) encoded as PNG in memory; empty when the encoder fails.
std::string png_bytes(int width, int height, const std::vector<uint8_t>& rgba);

// Writes RGBA pixels (top row first) as PNG; false with a reason.
bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
               bool force, std::string* error);
bool write_text(const std::string& path, const std::string& text, bool force, std::string* error);

// A fresh file name in `dir` ("bankviz-0001.png"), never an existing one.
std::string next_free_name(const std::string& dir, const std::string& stem, const std::string& ext);

}  // namespace bankviz::gui
