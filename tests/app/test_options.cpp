// The app's command line: every usage error exits 2 (never CLI11's own 105/109...), help exits 0,
// and values CLI::Range would let through (NaN, infinities) are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shell/options.h"

using namespace bankviz::gui;

namespace {

struct Parsed {
  std::optional<Options> options;
  int code = -1;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "bankviz");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Parsed p;
  p.options = parse_options(static_cast<int>(argv.size()), argv.data(), &p.code);
  return p;
}

}  // namespace

TEST(Options, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus"},
      {"stray"},
      {"--scale", "nan"},
      {"--scale", "-nan"},
      {"--scale", "inf"},
      {"--scale", "-inf"},
      {"--scale", "0.49"},
      {"--scale", "4.01"},
      {"--scale", "1e40"},
      {"--scale", ""},
      {"--scale", "2x"},
      {"--scale", "1", "--scale", "2"},
      {"--size", "0x0"},
      {"--size", ""},
      {"--size", "1600x"},
      {"--size", "x1000"},
      {"--size", "1600x1000x3"},
      {"--size", "+1600x1000"},
      {"--size", " 1600x1000"},
      {"--size", "1600x1000 "},
      {"--size", "99999999999999999999x1000"},
      {"--size", "8193x1000"},
      {"--size", "639x400"},
      {"--gif", "a.gif", "--size", "8192x8192"},  // over 3840x2160 pixels a frame
      {"--gif", "a.gif", "--size", "3841x2160"},
      {"--reveal"},                         // answers a lesson's scene: no lesson
      {"--kernel", "dot", "--line", "28"},  // the "your kernel" options need --kernel-file
      {"--line", "28"},
      {"--record-cpu"},
      {"--kernel-window"},
      {"--kernel-file", "dot.cu", "--kernel", "dot"},  // no --line
      {"--kernel-file", "dot.cu", "--line", "28"},     // no --kernel
      {"--kernel-file", "dot.cu", "--kernel", "dot", "--line", "0"},
      {"--kernel-file", "", "--kernel", "dot", "--line", "28"},
      {"--kernel-file", "dot.cu", "--kernel", "dot", "--line", "28", "--shared", "-1"},
      {"--preset", "row-write-column-read", "--reveal"},
      {"--frames", "0"},
      {"--frames", "100001"},
      {"--frames", "99999999999999999999"},
      {"--frames", "nan"},
      {"--step", "-1"},
      {"--step", "99999999999"},
      {"--step", "1.5"},
      {"--step", "2", "--warp", "-1"},
      {"--step", "2", "--wavefront", "nan"},
      {"--warp", "1"},       // without --step it would be ignored
      {"--wavefront", "1"},  // likewise
      {"--theme", "neon"},
      {"--theme", ""},
      {"--theme"},
      {"--preset", ""},
      {"--scenario", ""},
      {"--screenshot", ""},
      {"--svg", ""},
      {"--sequence", ""},
      {"--gif", ""},
      {"--screenshot", "a.png", "--dump-layout", ""},
      {"--dump-layout", "layout.json"},  // works with --screenshot only
      // A name whose extension says another format (io.h's extension_problem).
      {"--screenshot", "a.svg"},
      {"--screenshot", "a.JPG"},
      {"--svg", "a.png"},
      {"--gif", "a.png"},
      {"--export-gif", "a.mp4"},
      {"--screenshot", "a.png", "--dump-layout", "a.csv"},
      {"--preset", "a", "--scenario", "b.json"},
      {"--egl"},  // offscreen rendering needs something to render
      {"--presenter=maybe"},
  };
  for (const auto& args : bad) {
    std::string line;
    for (const std::string& a : args) line += " '" + a + "'";
    Parsed p = parse(args);
    EXPECT_FALSE(p.options) << line;
    EXPECT_EQ(p.code, kExitUsage) << line;
  }
}

TEST(Options, GoodFlagsParse) {
  Parsed p = parse({"--preset", "row-write-column-read", "--scale", "0.5", "--size", "640x400",
                    "--step", "2", "--warp", "1", "--wavefront", "0", "--screenshot", "a.png",
                    "--dump-layout", "a.json", "--egl", "--theme", "light"});
  ASSERT_TRUE(p.options);
  EXPECT_EQ(p.code, kExitOk);
  EXPECT_FLOAT_EQ(p.options->scale, 0.5f);
  EXPECT_EQ(p.options->width, 640);
  EXPECT_EQ(p.options->height, 400);
  EXPECT_TRUE(p.options->size_given);
  EXPECT_EQ(p.options->step, 2);
  EXPECT_EQ(p.options->warp, 1);
  EXPECT_EQ(*p.options->theme, "light");
  p = parse({"--lesson", "data-layout", "--scene", "3", "--reveal"});
  ASSERT_TRUE(p.options);
  EXPECT_TRUE(p.options->reveal);
  EXPECT_EQ(p.options->scene, 3);
  p = parse({"--kernel-file", "dot.cu", "--kernel", "dot", "--line", "28", "--block", "256",
             "--args", "buffer:1K int:3", "--shared", "2112", "--record-cpu", "--kernel-window"});
  ASSERT_TRUE(p.options);
  EXPECT_TRUE(p.options->kernel_window);
  EXPECT_EQ(p.options->kernel_file, "dot.cu");
  EXPECT_EQ(p.options->line, 28);
  EXPECT_EQ(p.options->block, "256");
  EXPECT_EQ(p.options->kernel_args, "buffer:1K int:3");
  EXPECT_EQ(p.options->shared, 2112);
  EXPECT_TRUE(p.options->record_cpu);
  // A name of the right format, or with an extension no format claims, is the user's choice.
  for (const char* name : {"a.PNG", "a", "a.shot", ".png", "dir.v2/a"}) {
    p = parse({"--screenshot", name});
    ASSERT_TRUE(p.options) << name;
    EXPECT_EQ(p.options->screenshot, name);
  }
  p = parse({"--scale", "4", "--size", "8192x8192", "--frame-times", "--egl"});
  ASSERT_TRUE(p.options);
  EXPECT_EQ(p.options->frames, 120);
  EXPECT_FLOAT_EQ(p.options->scale, 4.0f);
  // A GIF or a sequence up to 4K UHD a frame, a PNG up to 8K UHD (--size times --scale).
  p = parse({"--gif", "a.gif", "--size", "3840x2160"});
  ASSERT_TRUE(p.options);
  EXPECT_EQ(p.options->width, 3840);
  p = parse({"--sequence", "frames", "--scale", "3"});  // 3840x2160, the slide's 1280x720 x 3
  ASSERT_TRUE(p.options);
  p = parse({"--screenshot", "a.png", "--size", "1920x1080", "--scale", "4"});  // 7680x4320
  ASSERT_TRUE(p.options);
  // Outputs of different names, a sequence's folder beside a PNG.
  p = parse({"--screenshot", "x.png", "--sequence", "x", "--gif", "x.gif", "--svg", "x.svg"});
  ASSERT_TRUE(p.options);
  p = parse({"--sequence", "d", "--screenshot", "d/shot.png", "--gif", "d/frame-1.gif"});
  ASSERT_TRUE(p.options);  // beside the frames, under names no frame has
}

// Each refusal says why, in words that name the flags.
TEST(Options, ExportsOfOneNameOrTooManyPixelsAreRefusedInWords) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      // The same output twice: the PNG and the sequence's folder would overwrite each other.
      {{"--screenshot", "x.png", "--sequence", "x.png"},
       "--screenshot and --sequence name the same file ('x.png')"},
      {{"--screenshot", "./d/../x.png", "--sequence", "x.png"}, "name the same file"},
      {{"--sequence", "frames", "--screenshot", "frames/frame-0001.png"},
       "--screenshot 'frames/frame-0001.png' is one of --sequence's frames"},
      {{"--gif", "a.gif", "--export-gif", "a.gif"}, "--gif and --export-gif name the same file"},
      // 8192x8192 took 35 s and 1.4 GB for one PNG; a sequence writes hundreds of frames.
      {{"--screenshot", "a.png", "--size", "8192x8192"},
       "--screenshot at --size 8192x8192: an image of 8192x8192 pixels is larger than an export "
       "may be: at most 33177600 pixels (7680x4320)"},
      {{"--screenshot", "a.png", "--scale", "4", "--size", "2000x1080"}, "8000x4320 pixels"},
      {{"--sequence", "d", "--size", "8192x8192"},
       "--sequence at --size 8192x8192: frames of 8192x8192 pixels are larger than an export may "
       "be: at most 8294400 pixels (3840x2160 a frame)"},
      {{"--gif", "a.gif", "--scale", "4"}, "--gif: frames of 5120x2880 pixels"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += " '" + a + "'";
    testing::internal::CaptureStderr();
    const Parsed p = parse(c.args);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(p.options) << line;
    EXPECT_EQ(p.code, kExitUsage) << line;
    EXPECT_NE(err.find(c.says), std::string::npos) << line << ": " << err;
  }
}

TEST(Options, HelpExitsZero) {
  Parsed p = parse({"--help"});
  EXPECT_FALSE(p.options);
  EXPECT_EQ(p.code, kExitOk);
}
