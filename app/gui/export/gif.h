// gif.h: a small GIF89a writer for animation export (our own code, from the GIF89a spec).
//
// Every frame shares one global palette of at most 255 colours. It starts with the theme's own
// colours (bank hues lit and unlit, background, panels, text, conflict red), so the colours that
// carry the lesson come out exact; the rest go to the most frequent other colours (anti-aliased
// text edges), and anything left over maps to its nearest entry. The last index means
// "unchanged" (the transparent index).
//
//   frames (RGBA, top row first) -> palette -> indices -> changed rectangle -> unchanged pixels
//   made transparent -> LZW -> sub-blocks
//
// Frames after the first store only the rectangle that changed since the previous frame, and in
// it every pixel that did not change is the transparent index, left in place from the frame
// before (disposal "do not dispose"). A beat lights a few cells and moves a few labels, so those
// long transparent runs compress to almost nothing: the 1056-beat default lesson at 1600x1000
// went from 68 MB (rectangles only) to 2.8 MB.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/svg.h"

namespace bankviz::gui {

struct GifPalette {
  std::vector<Rgba> colors;  // at most kGifColors
};
constexpr size_t kGifColors = 255;  // one index stays free for "unchanged" (transparent)

// The palette for these frames: `seed` first (deduplicated, at most 256), then the most frequent
// remaining colours of the frames. Alpha is ignored.
GifPalette gif_palette(const std::vector<const std::vector<uint8_t>*>& frames,
                       const std::vector<Rgba>& seed);

// The theme's colours for gif_palette's seed.
std::vector<Rgba> palette_seed(const Palette& p);

class GifWriter {
 public:
  // width x height pixels; delay_cs: each frame's delay in hundredths of a second; loop: repeat.
  GifWriter(int width, int height, GifPalette palette, int delay_cs, bool loop);
  // Adds one RGBA frame (width * height * 4 bytes, top row first). The writer keeps it: the next
  // frame's pixels that did not change are not looked up in the palette again.
  void add_frame(std::vector<uint8_t> rgba);
  int frames() const { return frames_; }
  // The whole file: header, palette, frames, trailer.
  std::vector<uint8_t> finish();

 private:
  uint8_t index_of(uint32_t rgb);
  int width_, height_, delay_cs_;
  uint8_t transparent_ = 0;  // the index meaning "as in the previous frame"
  int frames_ = 0;
  GifPalette palette_;
  std::vector<uint8_t> out_;
  std::vector<uint8_t> previous_;       // indices of the previous frame
  std::vector<uint8_t> previous_rgba_;  // and its pixels
  std::vector<uint32_t> cache_key_;     // rgb -> index cache (open addressing)
  std::vector<uint8_t> cache_value_;
  size_t cache_filled_ = 0;
};

// LZW-compresses palette indices as GIF image data (minimum code size, then sub-blocks, then the
// zero-length terminator). Exposed for tests.
std::vector<uint8_t> gif_lzw(const std::vector<uint8_t>& indices, int min_code_size);

// Writes `bytes` to `path` through write_file_atomic (io.h): never an existing file unless force,
// never a partial file; false with the reason.
bool write_binary(const std::string& path, const std::vector<uint8_t>& bytes, bool force,
                  std::string* error);

}  // namespace bankviz::gui
