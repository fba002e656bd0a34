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
      // The answer's slide: a lesson's scene, after the question's screenshot, not --reveal.
      {"--preset", "row-write-column-read", "--screenshot", "q.png", "--answer-screenshot",
       "a.png"},
      {"--lesson", "data-layout", "--answer-screenshot", "a.png"},
      {"--lesson", "data-layout", "--reveal", "--screenshot", "q.png", "--answer-screenshot",
       "a.png"},
      {"--lesson", "data-layout", "--screenshot", "q.png", "--answer-screenshot", "a.svg"},
      {"--lesson", "data-layout", "--screenshot", "q.png", "--answer-screenshot", "q.png"},
      {"--lesson", "data-layout", "--screenshot", "q.png", "--answer-screenshot", ""},
      {"--lesson", "data-layout", "--screenshot", "q.png", "--answer-dump-layout", "a.json"},
      {"--lesson", "data-layout", "--screenshot", "q.png", "--answer-screenshot", "a.png",
       "--answer-dump-layout", "a.png"},
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

// --sizes: a lesson checked for every room in one run. The files in the order they are drawn
// (the question's at each size, then the answer's), each name with its size.
TEST(Options, SizesNameEachPictureAndLayoutWithItsSize) {
  Parsed p = parse({"--lesson", "histogram", "--sizes", "1920x1080,1024x768", "--screenshot",
                    "d/q.png", "--dump-layout", "d/q.json", "--answer-screenshot", "a.png",
                    "--answer-dump-layout", "e/a.layout.json"});
  ASSERT_TRUE(p.options) << p.code;
  EXPECT_EQ(p.options->width, 1920);  // the window opens at the first
  EXPECT_EQ(p.options->height, 1080);
  const std::vector<ScreenshotFile> f = screenshot_files(*p.options);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].png, "d/q-1920x1080.png");
  EXPECT_EQ(f[0].json, "d/q-1920x1080.json");
  EXPECT_EQ(f[0].width, 1920);
  EXPECT_FALSE(f[0].told);
  EXPECT_EQ(f[1].png, "d/q-1024x768.png");
  EXPECT_EQ(f[1].height, 768);
  EXPECT_FALSE(f[1].told);
  EXPECT_EQ(f[2].png, "a-1920x1080.png");
  EXPECT_EQ(f[2].json, "e/a.layout-1920x1080.json");
  EXPECT_TRUE(f[2].told);
  EXPECT_EQ(f[3].png, "a-1024x768.png");
  EXPECT_EQ(f[3].width, 1024);
  EXPECT_TRUE(f[3].told);
  // Without --sizes: the names as given, at --size.
  p = parse({"--lesson", "histogram", "--size", "1280x720", "--screenshot", "q.png",
             "--answer-screenshot", "a.png"});
  ASSERT_TRUE(p.options);
  const std::vector<ScreenshotFile> g = screenshot_files(*p.options);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].png, "q.png");
  EXPECT_EQ(g[0].json, "");
  EXPECT_EQ(g[0].width, 1280);
  EXPECT_EQ(g[1].png, "a.png");
  EXPECT_TRUE(g[1].told);
  // One size is a list too; a preset's window at several sizes.
  p = parse({"--preset", "row-write-column-read", "--sizes", "3840x2160", "--screenshot", "x.png"});
  ASSERT_TRUE(p.options);
  ASSERT_EQ(screenshot_files(*p.options).size(), 1u);
  EXPECT_EQ(screenshot_files(*p.options)[0].png, "x-3840x2160.png");
  EXPECT_TRUE(
      screenshot_files(parse({"--preset", "row-write-column-read"}).options.value()).empty());
}

// Every bad --sizes is a usage error in words that name the flag and the value.
TEST(Options, BadSizesAreRefusedInWords) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"--screenshot", "a.png", "--sizes", ""}, "--sizes: '': expected WxH between 640x400"},
      {{"--screenshot", "a.png", "--sizes", "1024x768,,1280x720"}, "--sizes: '': expected WxH"},
      {{"--screenshot", "a.png", "--sizes", "1024x768,"}, "--sizes: '': expected WxH"},
      {{"--screenshot", "a.png", "--sizes", "1024x768 1280x720"},
       "--sizes: '1024x768 1280x720': expected WxH"},
      {{"--screenshot", "a.png", "--sizes", "100x100"}, "between 640x400 and 8192x8192"},
      {{"--screenshot", "a.png", "--sizes", "1280x720,-1x5"}, "--sizes: '-1x5'"},
      {{"--screenshot", "a.png", "--sizes", std::string(100, '9') + "x720"}, "...': expected WxH"},
      {{"--screenshot", "a.png", "--sizes", "1280x720,1280x720"}, "1280x720 is named twice"},
      {{"--screenshot", "a.png", "--sizes",
        "700x400,701x400,702x400,703x400,704x400,705x400,706x400,707x400,708x400"},
       "--sizes: at most 8 sizes in one run"},
      {{"--screenshot", "a.png", "--sizes", "1280x720,8192x8192"},
       "--sizes 8192x8192: an image of 8192x8192 pixels is larger than an export may be"},
      {{"--screenshot", "a.png", "--scale", "4", "--sizes", "1280x720,3840x2160"},
       "--sizes 3840x2160: an image of 15360x8640 pixels"},
      {{"--screenshot", "a.png", "--sizes", "1280x720", "--size", "1280x720"},
       "give --size or --sizes, not both"},
      {{"--sizes", "1280x720"}, "--sizes works with --screenshot"},
      {{"--lesson", "histogram", "--sizes", "1280x720", "--answer-screenshot", "a.png"},
       "--sizes works with --screenshot"},
      {{"--screenshot", "a.png", "--sizes", "1280x720", "--gif", "a.gif"},
       "--sizes draws --screenshot's pictures: give --svg, --gif, --sequence and --frames a "
       "--size in a run of their own"},
      {{"--screenshot", "a.png", "--sizes", "1280x720", "--svg", "a.svg"}, "--sizes draws"},
      {{"--screenshot", "a.png", "--sizes", "1280x720", "--sequence", "d"}, "--sizes draws"},
      {{"--screenshot", "a.png", "--sizes", "1280x720", "--frames", "3"}, "--sizes draws"},
      // A name made with a size met another output's.
      {{"--lesson", "histogram", "--sizes", "1280x720", "--screenshot", "a.png",
        "--answer-screenshot", "a.png"},
       "--screenshot and --answer-screenshot name the same file ('a-1280x720.png')"},
      {{"--screenshot", "s.png", "--sizes", "1024x768,1280x720", "--dump-layout", "s.png"},
       "--screenshot and --dump-layout name the same file ('s-1024x768.png')"},
      {{"--lesson", "histogram", "--sizes", "1280x720", "--screenshot", "q.png",
        "--answer-screenshot", "a.png", "--dump-layout", "l.json", "--answer-dump-layout",
        "./l.json"},
       "--dump-layout and --answer-dump-layout name the same file"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += " '" + a + "'";
    testing::internal::CaptureStderr();
    const Parsed q = parse(c.args);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(q.options) << line;
    EXPECT_EQ(q.code, kExitUsage) << line;
    EXPECT_NE(err.find(c.says), std::string::npos) << line << ": " << err;
  }
}
