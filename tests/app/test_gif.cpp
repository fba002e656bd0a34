// GIF export: our LZW and file layout, checked by a small independent decoder (gif_decode.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "export/gif.h"
#include "gif_decode.h"
#include "scratch_dir.h"

using namespace bankviz;
using namespace bankviz::gui;
using namespace bankviz::test;

namespace {

bool same(const Rgba& a, const Rgba& b) {
  return a.r == b.r && a.g == b.g && a.b == b.b;
}

}  // namespace

TEST(Gif, LzwRoundTripsThroughAnIndependentDecoder) {
  std::mt19937 rng(7);
  for (int mcs : {2, 4, 8}) {
    // Long runs, repeats and noise: enough distinct strings to fill the 4096-code table several
    // times (forcing clear codes) and to walk every code width from mcs+1 to 12.
    std::vector<uint8_t> in;
    for (int k = 0; k < 60000; ++k) {
      int mode = k / 5000 % 3;
      uint8_t v = mode == 0   ? static_cast<uint8_t>(rng() % (1u << mcs))
                  : mode == 1 ? static_cast<uint8_t>(k / 97 % (1 << mcs))
                              : static_cast<uint8_t>((k * 7 + k / 13) % (1 << mcs));
      in.push_back(v);
    }
    std::vector<uint8_t> enc = gif_lzw(in, mcs);
    size_t used = 0;
    bool ok = false;
    std::vector<uint8_t> out = lzw_decode(enc.data(), enc.size(), &used, &ok);
    ASSERT_TRUE(ok) << "min code size " << mcs;
    EXPECT_EQ(used, enc.size());
    EXPECT_EQ(out, in) << "min code size " << mcs;
  }
  // One pixel and none at all are still valid image data.
  for (size_t n : {0u, 1u}) {
    std::vector<uint8_t> in(n, 3);
    size_t used = 0;
    bool ok = false;
    std::vector<uint8_t> enc = gif_lzw(in, 2);
    EXPECT_EQ(lzw_decode(enc.data(), enc.size(), &used, &ok), in);
    EXPECT_TRUE(ok);
  }
}

TEST(Gif, FramesDecodeToTheRenderedPixelsWithDelayAndLoop) {
  const Palette pal = dark_palette();
  const int w = 37, h = 23;
  auto frame = [&](int lit) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        int bank = x % 32;
        Rgba c = pal.bank(bank, 32, x == lit && y < 5);
        if (y == h - 1) c = pal.conflict;
        uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 4];
        p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
      }
    return px;
  };
  std::vector<std::vector<uint8_t>> frames = {frame(0), frame(1), frame(1), frame(30)};
  GifWriter gif(w, h, gif_palette({&frames[0]}, palette_seed(pal)), 50, true);
  for (const auto& f : frames) gif.add_frame(f);
  Decoded d = decode_gif(gif.finish());
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.width, w);
  EXPECT_EQ(d.height, h);
  EXPECT_TRUE(d.loops);
  ASSERT_EQ(d.frames.size(), frames.size());
  for (int delay : d.delays) EXPECT_EQ(delay, 50);
  // Frames after the first leave unchanged pixels transparent (frame 2 repeats frame 1 exactly).
  EXPECT_EQ(d.transparent_frames, static_cast<int>(frames.size()) - 1);
  // The theme's colours are in the palette, so every pixel comes back exactly.
  for (size_t k = 0; k < frames.size(); ++k)
    for (int i = 0; i < w * h; ++i) {
      const uint8_t* p = &frames[k][static_cast<size_t>(i) * 4];
      ASSERT_TRUE(same(d.frames[k][i], {p[0], p[1], p[2], 255})) << "frame " << k << " pixel " << i;
    }
}

TEST(Gif, PaletteStartsWithTheThemeAndKeepsTheMostFrequentOthers) {
  std::vector<Rgba> seed = palette_seed(light_palette());
  // 600 distinct greys, grey 0..99 ten times as frequent as the rest.
  std::vector<uint8_t> px;
  for (int g = 0; g < 600; ++g)
    for (int rep = 0; rep < (g < 100 ? 10 : 1); ++rep) {
      px.push_back(static_cast<uint8_t>(g % 256));
      px.push_back(static_cast<uint8_t>(g / 256 + 1));
      px.push_back(7);
      px.push_back(255);
    }
  GifPalette p = gif_palette({&px}, seed);
  ASSERT_EQ(p.colors.size(), kGifColors);   // the last index is kept for "unchanged"
  EXPECT_TRUE(same(p.colors[0], seed[0]));  // the theme's colours come first
  auto has = [&](Rgba c) {
    for (const Rgba& x : p.colors)
      if (same(x, c)) return true;
    return false;
  };
  for (const Rgba& c : seed) EXPECT_TRUE(has(c)) << c.hex();
  EXPECT_TRUE(has({50, 1, 7, 255}));   // frequent
  EXPECT_FALSE(has({90, 2, 7, 255}));  // rare (g = 346) and no room left
}

TEST(Gif, WriteBinaryNeverOverwritesSilently) {
  std::string path = bankviz::test::scratch_dir() + "keep.gif";
  std::ofstream(path) << "keep";
  std::string err;
  EXPECT_FALSE(write_binary(path, {1, 2, 3}, false, &err));
  EXPECT_NE(err.find("exists"), std::string::npos) << err;
  std::ifstream in(path);
  std::string got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, "keep");
  EXPECT_TRUE(write_binary(path, {1, 2, 3}, true, &err)) << err;
  EXPECT_EQ(std::filesystem::file_size(path), 3u);
  EXPECT_FALSE(write_binary(bankviz::test::scratch_dir() + "no/such/dir/x.gif", {1}, false, &err));
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
}
