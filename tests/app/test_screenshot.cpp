// Screenshot tests: run the real app under xvfb-run, read its PNG back, check the pixels that
// carry the lesson: the lit, red-outlined bank-0 words of a 32-way conflict, and the hatched
// padding column. The app reports where it drew its grids (--dump-layout), so the checks do not
// depend on the window layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bankviz/svg.h"
#include "gif_decode.h"
#include "stb_image.h"

using namespace bankviz;

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> px;
  Rgba at(double x, double y) const {
    int ix = static_cast<int>(x), iy = static_cast<int>(y);
    const uint8_t* p = &px[(static_cast<size_t>(iy) * w + ix) * 4];
    return {p[0], p[1], p[2], p[3]};
  }
};

bool near(Rgba a, Rgba b, int tol = 4) {
  return std::abs(a.r - b.r) <= tol && std::abs(a.g - b.g) <= tol && std::abs(a.b - b.b) <= tol;
}

std::string show(Rgba c) {
  return c.hex();
}

struct Shot {
  Image img;
  nlohmann::json layout;
  std::string log;
  int rc = -1;
};

Shot screenshot(const std::string& name, const std::string& args) {
  Shot s;
  std::string dir = ::testing::TempDir();
  std::string png = dir + "shot-" + name + ".png", json = dir + "shot-" + name + ".json";
  std::filesystem::remove(png);
  std::string cmd = std::string(XVFB_RUN) + " -a -s \"-screen 0 1600x1000x24\" " + BANKVIZ_APP +
                    " --no-settings " + args + " --screenshot " + png + " --dump-layout " + json +
                    " --force > " + dir + "shot.log 2>&1";
  s.rc = std::system(cmd.c_str());
  std::ifstream lg(dir + "shot.log");
  s.log.assign(std::istreambuf_iterator<char>(lg), {});
  if (s.rc != 0) return s;
  int n = 0;
  uint8_t* data = stbi_load(png.c_str(), &s.img.w, &s.img.h, &n, 4);
  if (data) {
    s.img.px.assign(data, data + static_cast<size_t>(s.img.w) * s.img.h * 4);
    stbi_image_free(data);
  }
  std::ifstream in(json);
  s.layout = nlohmann::json::parse(in, nullptr, false);
  return s;
}

bool have_xvfb() {
  return std::string(XVFB_RUN).find("NOTFOUND") == std::string::npos;
}

}  // namespace

TEST(Screenshot, ColumnReadLightsBankZeroAndOutlinesTheConflict) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed: screenshot tests skipped";
  Shot s = screenshot("conflict", "--preset row-write-column-read --step 2 --wavefront 0");
  ASSERT_EQ(s.rc, 0) << s.log;
  ASSERT_GT(s.img.w, 0);
  const auto& b = s.layout["banks"];
  double x = b["x"], y = b["y"], cell = b["cell"];
  ASSERT_GE(cell, 8);
  Palette pal = dark_palette();
  auto centre = [&](int line, int bank) {
    return s.img.at(x + (bank + 0.5) * cell, y + (line + 0.5) * cell);
  };
  auto border = [&](int line, int bank) {
    return s.img.at(x + bank * cell + 2.5, y + (line + 0.5) * cell);
  };
  // Wavefront 0 serves lane 0's word: line 0, bank 0, lit in bank 0's bright colour. (Its centre
  // carries the lane number, so count the interior pixels of that colour.)
  double inside = 1 + std::max(2.0, cell * 0.16) + 1;
  int lit = 0, all = 0;
  for (double dy = inside; dy < cell - inside; dy += 1)
    for (double dx = inside; dx < cell - inside; dx += 1, ++all)
      lit += near(s.img.at(x + dx, y + dy), pal.bank(0, 32, true));
  EXPECT_GE(lit, all / 4) << lit << " of " << all;  // the rest is the lane number
  // Every word of bank 0 that this warp reads is outlined in the conflict red.
  for (int line : {0, 1, 7, 31}) EXPECT_TRUE(near(border(line, 0), pal.conflict)) << line;
  // Line 5's word is waiting for a later wavefront: outlined, not lit.
  EXPECT_TRUE(near(centre(5, 0), pal.bank(0, 32, false))) << show(centre(5, 0));
  // Bank 1 is untouched by this load: its own colour, no red.
  EXPECT_TRUE(near(centre(0, 1), pal.bank(1, 32, false))) << show(centre(0, 1));
  EXPECT_FALSE(near(border(0, 1), pal.conflict));
}

TEST(Screenshot, PaddingColumnIsHatchedNotColouredByBank) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed: screenshot tests skipped";
  Shot s = screenshot("padding", "--preset row-write-column-read-padded --theme light");
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto& t = s.layout["tile"];
  ASSERT_EQ(t["cols"], 33);
  double x = t["x"], y = t["y"], cell = t["cell"];
  Palette pal = light_palette();
  for (int row : {3, 17, 30}) {
    // Scan across the padding cell (column 32): only the two hatch colours appear.
    int stripe = 0, base = 0, other = 0;
    for (double dx = 2; dx < cell - 2; dx += 1) {
      Rgba c = s.img.at(x + 32 * cell + dx, y + (row + 0.5) * cell);
      if (near(c, pal.padding_stripe, 6)) {
        ++stripe;
      } else if (near(c, pal.padding, 6)) {
        ++base;
      } else {
        ++other;
      }
    }
    EXPECT_GT(stripe, 0) << row;
    EXPECT_GT(base, 0) << row;
    EXPECT_LE(other, 2) << row;
    // A data cell of the same row is its bank's colour, not hatched.
    Rgba d = s.img.at(x + 5.5 * cell, y + (row + 0.5) * cell);
    EXPECT_FALSE(near(d, pal.padding_stripe, 6));
  }
}

TEST(Screenshot, RefusesToOverwriteAnExistingFile) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed: screenshot tests skipped";
  std::string png = ::testing::TempDir() + "keep.png";
  std::ofstream(png) << "keep";
  std::string cmd = std::string(XVFB_RUN) + " -a " + BANKVIZ_APP + " --no-settings --screenshot " +
                    png + " > /dev/null 2>&1";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream in(png);
  std::string got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, "keep");
}

TEST(Screenshot, GifExportHasOneFramePerBeatAndRefusesToOverwrite) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed: screenshot tests skipped";
  std::string gif = ::testing::TempDir() + "anim.gif", log = ::testing::TempDir() + "gif.log";
  std::filesystem::remove(gif);
  // One warp of 32 threads storing then loading: a short animation.
  std::string cmd = std::string(XVFB_RUN) + " -a " + BANKVIZ_APP +
                    " --no-settings --preset reverse-static --size 640x400 --gif " + gif + " > " +
                    log + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(gif, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  bankviz::test::Decoded d = bankviz::test::decode_gif(bytes);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.width, 640);
  EXPECT_EQ(d.height, 400);
  // The app says how many beats it wrote; the file holds exactly that many frames.
  std::ifstream lg(log);
  std::string text((std::istreambuf_iterator<char>(lg)), {});
  size_t at = text.find(" frames)");
  ASSERT_NE(at, std::string::npos) << text;
  size_t open = text.rfind('(', at);
  EXPECT_EQ(static_cast<int>(d.frames.size()), std::stoi(text.substr(open + 1, at - open - 1)));
  EXPECT_GE(d.frames.size(), 2u);
  // A second run must not replace it.
  auto size = std::filesystem::file_size(gif);
  EXPECT_NE(std::system(cmd.c_str()), 0);
  EXPECT_EQ(std::filesystem::file_size(gif), size);
  std::ifstream lg2(log);
  std::string again((std::istreambuf_iterator<char>(lg2)), {});
  EXPECT_NE(again.find("exists"), std::string::npos) << again;
}
