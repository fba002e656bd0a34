// gif_decode.h: a small GIF89a decoder for the tests, written from the spec independently of
// app/gui/export/gif.cpp (screen descriptor, colour table, extensions, image descriptors, LZW
// codes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/svg.h"

namespace bankviz::test {

// LZW-decodes GIF image data: min code size byte, sub-blocks, terminator. Sets *used to the bytes
// consumed. Empty with ok=false on a malformed stream.
inline std::vector<uint8_t> lzw_decode(const uint8_t* p, size_t n, size_t* used, bool* ok) {
  *ok = false;
  std::vector<uint8_t> out;
  if (n < 2) return out;
  int mcs = p[0];
  size_t i = 1;
  std::vector<uint8_t> data;
  while (i < n && p[i] != 0) {
    size_t len = p[i];
    if (i + 1 + len > n) return out;
    data.insert(data.end(), p + i + 1, p + i + 1 + len);
    i += 1 + len;
  }
  if (i >= n) return out;
  *used = i + 1;
  const int clear = 1 << mcs, eoi = clear + 1;
  std::vector<std::vector<uint8_t>> table;
  auto reset = [&] {
    table.clear();
    for (int c = 0; c < clear; ++c) table.push_back({static_cast<uint8_t>(c)});
    table.push_back({});  // clear
    table.push_back({});  // end of information
  };
  reset();
  int size = mcs + 1;
  size_t bit = 0;
  int prev = -1;
  for (;;) {
    if (bit + size > data.size() * 8) return out;  // ran out before the end code
    int code = 0;
    for (int b = 0; b < size; ++b, ++bit) code |= ((data[bit / 8] >> (bit % 8)) & 1) << b;
    if (code == clear) {
      reset();
      size = mcs + 1;
      prev = -1;
      continue;
    }
    if (code == eoi) break;
    std::vector<uint8_t> entry;
    if (code < static_cast<int>(table.size())) {
      entry = table[code];
    } else if (code == static_cast<int>(table.size()) && prev >= 0) {
      entry = table[prev];
      entry.push_back(table[prev][0]);
    } else {
      return out;  // a code the decoder cannot know yet
    }
    out.insert(out.end(), entry.begin(), entry.end());
    if (prev >= 0 && table.size() < 4096) {
      std::vector<uint8_t> add = table[prev];
      add.push_back(entry[0]);
      table.push_back(add);
      if (static_cast<int>(table.size()) == (1 << size) && size < 12) ++size;
    }
    prev = code;
  }
  *ok = true;
  return out;
}

struct Decoded {
  bool ok = false;
  std::string error;
  int width = 0, height = 0;
  std::vector<Rgba> palette;
  bool loops = false;
  int transparent_frames = 0;  // frames that use a transparent index
  std::vector<int> delays;
  std::vector<std::vector<Rgba>> frames;  // composited full frames
};

inline Decoded decode_gif(const std::vector<uint8_t>& f) {
  Decoded d;
  auto u16 = [&](size_t i) { return f[i] | f[i + 1] << 8; };
  if (f.size() < 13 || std::string(f.begin(), f.begin() + 6) != "GIF89a") {
    d.error = "no GIF89a header";
    return d;
  }
  d.width = u16(6);
  d.height = u16(8);
  size_t i = 13;
  if (f[10] & 0x80) {
    int entries = 2 << (f[10] & 7);
    for (int k = 0; k < entries; ++k, i += 3) d.palette.push_back({f[i], f[i + 1], f[i + 2], 255});
  }
  std::vector<Rgba> canvas(static_cast<size_t>(d.width) * d.height);
  int delay = 0, transparent = -1;  // from the last graphic control extension
  while (i < f.size()) {
    uint8_t b = f[i];
    if (b == 0x3b) {
      d.ok = true;
      return d;
    }
    if (b == 0x21) {
      uint8_t label = f[i + 1];
      if (label == 0xf9) {
        delay = u16(i + 4);
        transparent = (f[i + 3] & 1) ? f[i + 6] : -1;
      }
      if (label == 0xff && std::string(f.begin() + i + 3, f.begin() + i + 14) == "NETSCAPE2.0")
        d.loops = true;
      i += 2;
      while (f[i] != 0) i += 1 + f[i];
      ++i;
      continue;
    }
    if (b != 0x2c) {
      d.error = "unexpected block " + std::to_string(b);
      return d;
    }
    int x = u16(i + 1), y = u16(i + 3), w = u16(i + 5), h = u16(i + 7);
    i += 10;
    size_t used = 0;
    bool ok = false;
    std::vector<uint8_t> idx = lzw_decode(f.data() + i, f.size() - i, &used, &ok);
    if (!ok || idx.size() != static_cast<size_t>(w) * h) {
      d.error = "bad image data in frame " + std::to_string(d.frames.size());
      return d;
    }
    i += used;
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c)
        if (idx[r * w + c] != transparent)  // transparent: the previous frame shows through
          canvas[static_cast<size_t>(y + r) * d.width + x + c] = d.palette.at(idx[r * w + c]);
    if (transparent >= 0) ++d.transparent_frames;
    d.frames.push_back(canvas);
    d.delays.push_back(delay);
  }
  d.error = "no trailer";
  return d;
}

}  // namespace bankviz::test
