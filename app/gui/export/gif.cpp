// gif.cpp: GIF89a writing (see gif.h). Layout of the file, as the GIF89a spec lays it out:
//
//   "GIF89a" | logical screen (w, h, flags: global table of 2^(k+1) entries) | colour table
//   | NETSCAPE2.0 loop extension | per frame: graphic control (delay, disposal) + image
//   descriptor (x, y, w, h) + LZW data | ';'
//
// [SECTION] Bits and blocks
// [SECTION] Palette
// [SECTION] LZW
// [SECTION] Writer
// [SECTION] Files
#include "export/gif.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "bankviz/io.h"

namespace bankviz::gui {

// [SECTION] Bits and blocks

namespace {

uint32_t rgb_of(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2];
}
uint32_t rgb_of(const Rgba& c) {
  return static_cast<uint32_t>(c.r) << 16 | static_cast<uint32_t>(c.g) << 8 | c.b;
}

void put16(std::vector<uint8_t>& out, int v) {
  out.push_back(static_cast<uint8_t>(v & 0xff));
  out.push_back(static_cast<uint8_t>(v >> 8 & 0xff));
}

// Bits of the colour table: the table holds 2^bits entries, bits in 1..8.
int table_bits(size_t colors) {
  int bits = 1;
  while ((size_t{1} << bits) < colors && bits < 8) ++bits;
  return bits;
}

// Variable-width codes packed least significant bit first, cut into sub-blocks of <= 255 bytes.
class BitSink {
 public:
  explicit BitSink(std::vector<uint8_t>& out) : out_(out) {}
  void put(uint32_t code, int bits) {
    acc_ |= code << nbits_;
    nbits_ += bits;
    while (nbits_ >= 8) {
      byte(static_cast<uint8_t>(acc_ & 0xff));
      acc_ >>= 8;
      nbits_ -= 8;
    }
  }
  void finish() {
    if (nbits_ > 0) byte(static_cast<uint8_t>(acc_ & 0xff));
    acc_ = 0;
    nbits_ = 0;
    flush();
    out_.push_back(0);  // block terminator
  }

 private:
  void byte(uint8_t b) {
    block_[len_++] = b;
    if (len_ == 255) flush();
  }
  void flush() {
    if (len_ == 0) return;
    out_.push_back(static_cast<uint8_t>(len_));
    out_.insert(out_.end(), block_, block_ + len_);
    len_ = 0;
  }
  std::vector<uint8_t>& out_;
  uint32_t acc_ = 0;
  int nbits_ = 0;
  uint8_t block_[255] = {};
  int len_ = 0;
};

}  // namespace

// [SECTION] Palette

std::vector<Rgba> palette_seed(const Palette& p) {
  std::vector<Rgba> out = {p.background, p.panel,         p.text,           p.text_dim,
                           p.grid,       p.padding,       p.padding_stripe, p.lit_border,
                           p.conflict,   p.touched_border};
  for (int b = 0; b < 32; ++b) {
    out.push_back(p.bank(b, 32, false));
    out.push_back(p.bank(b, 32, true));
  }
  out.push_back({0, 0, 0, 255});
  out.push_back({255, 255, 255, 255});
  return out;
}

GifPalette gif_palette(const std::vector<const std::vector<uint8_t>*>& frames,
                       const std::vector<Rgba>& seed) {
  GifPalette pal;
  std::unordered_map<uint32_t, bool> taken;
  for (const Rgba& c : seed) {
    if (pal.colors.size() >= kGifColors) break;
    if (taken.emplace(rgb_of(c), true).second) pal.colors.push_back({c.r, c.g, c.b, 255});
  }
  std::unordered_map<uint32_t, uint64_t> count;
  for (const std::vector<uint8_t>* f : frames)
    for (size_t i = 0; i + 3 < f->size(); i += 4) ++count[rgb_of(f->data() + i)];
  std::vector<std::pair<uint64_t, uint32_t>> byfreq;
  for (auto& [rgb, n] : count)
    if (!taken.count(rgb)) byfreq.push_back({n, rgb});
  std::sort(byfreq.begin(), byfreq.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (auto& [n, rgb] : byfreq) {
    if (pal.colors.size() >= kGifColors) break;
    pal.colors.push_back({static_cast<uint8_t>(rgb >> 16), static_cast<uint8_t>(rgb >> 8 & 0xff),
                          static_cast<uint8_t>(rgb & 0xff), 255});
  }
  if (pal.colors.empty()) pal.colors.push_back({0, 0, 0, 255});
  return pal;
}

// [SECTION] LZW

std::vector<uint8_t> gif_lzw(const std::vector<uint8_t>& indices, int min_code_size) {
  std::vector<uint8_t> out;
  out.push_back(static_cast<uint8_t>(min_code_size));
  BitSink sink(out);
  const uint32_t clear = 1u << min_code_size, eoi = clear + 1;
  // The string table as a trie: child[code * 256 + byte] = code of (string(code) + byte), 0 =
  // none (no string ever gets code 0: codes below clear are the single indices). One table per
  // thread, all zero between calls: a fresh 2 MB table per frame cost an export more than the
  // pixels' own coding (BENCHMARKS.md); the slots a call used are zeroed again on the way out,
  // also when it throws.
  thread_local std::vector<uint16_t> child(4096 * 256, 0);
  thread_local std::vector<uint32_t> used;  // slots to reset on a clear, cheaper than wiping 2 MB
  struct Clean {
    ~Clean() {
      for (uint32_t slot : used) child[slot] = 0;
      used.clear();
    }
  } clean;
  int size = min_code_size + 1;
  uint32_t next = clear + 2;
  auto reset = [&] {
    for (uint32_t slot : used) child[slot] = 0;
    used.clear();
    size = min_code_size + 1;
    next = clear + 2;
  };
  sink.put(clear, size);
  if (indices.empty()) {
    sink.put(eoi, size);
    sink.finish();
    return out;
  }
  uint32_t prefix = indices[0];
  for (size_t i = 1; i < indices.size(); ++i) {
    uint32_t k = indices[i];
    uint32_t slot = prefix * 256 + k;
    if (child[slot]) {
      prefix = child[slot];
      continue;
    }
    sink.put(prefix, size);
    // The decoder adds its entry one code later than we do, so it widens its codes when the
    // entry before this one fills the current width: widen on the same condition.
    if (next == (1u << size) && size < 12) ++size;
    child[slot] = static_cast<uint16_t>(next++);
    used.push_back(slot);
    if (next == 4096) {  // table full: start over, as the decoder will on the clear code
      sink.put(clear, size);
      reset();
    }
    prefix = k;
  }
  sink.put(prefix, size);
  if (next == (1u << size) && size < 12) ++size;
  sink.put(eoi, size);
  sink.finish();
  return out;
}

// [SECTION] Writer

GifWriter::GifWriter(int width, int height, GifPalette palette, int delay_cs, bool loop)
    : width_(width), height_(height), delay_cs_(delay_cs), palette_(std::move(palette)) {
  if (palette_.colors.empty()) palette_.colors.push_back({0, 0, 0, 255});
  if (palette_.colors.size() > kGifColors) palette_.colors.resize(kGifColors);
  transparent_ = static_cast<uint8_t>(palette_.colors.size());
  const int bits = table_bits(palette_.colors.size() + 1);
  const char* magic = "GIF89a";
  out_.insert(out_.end(), magic, magic + 6);
  put16(out_, width_);
  put16(out_, height_);
  // Global colour table present, 8 bits of colour resolution, table of 2^bits entries.
  out_.push_back(static_cast<uint8_t>(0x80 | 0x70 | (bits - 1)));
  out_.push_back(0);  // background colour index
  out_.push_back(0);  // pixel aspect ratio: unspecified
  for (int i = 0; i < (1 << bits); ++i) {
    Rgba c = i < static_cast<int>(palette_.colors.size()) ? palette_.colors[i] : Rgba{0, 0, 0, 255};
    out_.push_back(c.r);
    out_.push_back(c.g);
    out_.push_back(c.b);
  }
  if (loop) {
    // NETSCAPE2.0 application extension: loop count 0 = forever.
    const uint8_t app[] = {0x21, 0xff, 11,  'N', 'E', 'T', 'S', 'C', 'A', 'P',
                           'E',  '2',  '.', '0', 3,   1,   0,   0,   0};
    out_.insert(out_.end(), app, app + sizeof app);
  }
  cache_key_.assign(1 << 16, UINT32_MAX);
  cache_value_.assign(1 << 16, 0);
}

uint8_t GifWriter::index_of(uint32_t rgb) {
  // Open-addressed cache: a frame has a few thousand distinct colours at most.
  uint32_t h = (rgb * 2654435761u) >> 16;
  for (;;) {
    if (cache_key_[h] == rgb) return cache_value_[h];
    if (cache_key_[h] == UINT32_MAX) break;
    h = (h + 1) & 0xffff;
  }
  int best = 0;
  int64_t best_d = INT64_MAX;
  for (size_t i = 0; i < palette_.colors.size(); ++i) {
    const Rgba& c = palette_.colors[i];
    int dr = static_cast<int>(rgb >> 16) - c.r, dg = static_cast<int>(rgb >> 8 & 0xff) - c.g,
        db = static_cast<int>(rgb & 0xff) - c.b;
    // Weighted like the eye: green counts most, blue least.
    int64_t d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
    if (d < best_d) {
      best_d = d;
      best = static_cast<int>(i);
    }
  }
  if (++cache_filled_ > 40000) {  // keep the table sparse enough to stay fast
    std::fill(cache_key_.begin(), cache_key_.end(), UINT32_MAX);
    cache_filled_ = 0;
    h = (rgb * 2654435761u) >> 16;
  }
  cache_key_[h] = rgb;
  cache_value_[h] = static_cast<uint8_t>(best);
  return static_cast<uint8_t>(best);
}

void GifWriter::add_frame(std::vector<uint8_t> rgba) {
  const size_t n = static_cast<size_t>(width_) * height_;
  std::vector<uint8_t> idx;
  if (previous_.empty()) {
    idx.resize(n);
    for (size_t i = 0; i < n; ++i) idx[i] = index_of(rgb_of(rgba.data() + i * 4));
  } else {
    // Only the pixels that changed since the previous frame are looked up again: a beat changes
    // a few cells and labels, and the lookup of every pixel was most of the encoder's time.
    idx = previous_;
    const size_t row = static_cast<size_t>(width_) * 4;
    for (int y = 0; y < height_; ++y) {
      const uint8_t* a = rgba.data() + static_cast<size_t>(y) * row;
      const uint8_t* b = previous_rgba_.data() + static_cast<size_t>(y) * row;
      if (std::memcmp(a, b, row) == 0) continue;
      int l = 0, r = width_ - 1;
      while (std::memcmp(a + static_cast<size_t>(l) * 4, b + static_cast<size_t>(l) * 4, 4) == 0)
        ++l;
      while (std::memcmp(a + static_cast<size_t>(r) * 4, b + static_cast<size_t>(r) * 4, 4) == 0)
        --r;
      uint8_t* out = &idx[static_cast<size_t>(y) * width_];
      for (int x = l; x <= r; ++x) out[x] = index_of(rgb_of(a + static_cast<size_t>(x) * 4));
    }
  }
  // The rectangle that changed since the previous frame (the whole frame the first time).
  int x0 = 0, y0 = 0, x1 = width_ - 1, y1 = height_ - 1;
  if (!previous_.empty()) {
    x0 = width_;
    y0 = height_;
    x1 = y1 = -1;
    for (int y = 0; y < height_; ++y) {
      const uint8_t* a = &idx[static_cast<size_t>(y) * width_];
      const uint8_t* b = &previous_[static_cast<size_t>(y) * width_];
      if (std::memcmp(a, b, width_) == 0) continue;
      y0 = std::min(y0, y);
      y1 = y;
      int l = 0, r = width_ - 1;
      while (a[l] == b[l]) ++l;
      while (a[r] == b[r]) --r;
      x0 = std::min(x0, l);
      x1 = std::max(x1, r);
    }
    if (x1 < 0) x0 = y0 = x1 = y1 = 0;  // nothing changed: one unchanged pixel
  }
  const int w = x1 - x0 + 1, h = y1 - y0 + 1;
  const bool first = previous_.empty();
  // Graphic control extension: disposal 1 (leave in place), the delay, and after the first frame
  // the transparent index for pixels that did not change.
  const uint8_t gce[] = {0x21,
                         0xf9,
                         4,
                         static_cast<uint8_t>(1 << 2 | (first ? 0 : 1)),
                         static_cast<uint8_t>(delay_cs_ & 0xff),
                         static_cast<uint8_t>(delay_cs_ >> 8 & 0xff),
                         transparent_,
                         0};
  out_.insert(out_.end(), gce, gce + sizeof gce);
  out_.push_back(0x2c);  // image descriptor
  put16(out_, x0);
  put16(out_, y0);
  put16(out_, w);
  put16(out_, h);
  out_.push_back(0);  // no local colour table, not interlaced
  std::vector<uint8_t> sub(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      size_t i = static_cast<size_t>(y0 + y) * width_ + x0 + x;
      sub[static_cast<size_t>(y) * w + x] =
          !first && idx[i] == previous_[i] ? transparent_ : idx[i];
    }
  std::vector<uint8_t> data = gif_lzw(sub, std::max(2, table_bits(palette_.colors.size() + 1)));
  out_.insert(out_.end(), data.begin(), data.end());
  previous_ = std::move(idx);
  previous_rgba_ = std::move(rgba);
  ++frames_;
}

std::vector<uint8_t> GifWriter::finish() {
  std::vector<uint8_t> out = out_;
  out.push_back(0x3b);  // trailer
  return out;
}

// [SECTION] Files

bool write_binary(const std::string& path, const std::vector<uint8_t>& bytes, bool force,
                  std::string* error) {
  *error = write_file_atomic(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), force);
  return error->empty();
}

}  // namespace bankviz::gui
