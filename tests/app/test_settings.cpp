// Settings file: bad values are reported and defaulted, never fatal; special files are refused.
// And the exported files' writers (capture.h, gif.h): checked, atomic, never into a device.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "export/gif.h"
#include "platform/capture.h"
#include "shell/settings.h"
#include "stb_image.h"

using namespace bankviz::gui;

TEST(Settings, RoundTripsThroughJson) {
  Settings s;
  s.light = true;
  s.presenter = true;
  s.speed = 7.5;
  s.preset = "row-write-column-read-padded";
  std::vector<std::string> problems;
  Settings back = settings_from_json(settings_to_json(s), &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_TRUE(back.light);
  EXPECT_TRUE(back.presenter);
  EXPECT_DOUBLE_EQ(back.speed, 7.5);
  EXPECT_EQ(back.preset, s.preset);
}

// The GPU setting (the toolbar's GPU menu): each source with its host or command round-trips;
// a source without what it needs, an unknown source or a host that is not a short string is
// reported and this machine's GPU used.
TEST(Settings, GpuSourceRoundTripsAndBadOnesFallBackToThisMachine) {
  using G = Settings::GpuSource;
  for (G g : {G::Here, G::Ssh, G::Command, G::Recorded}) {
    Settings s;
    s.gpu_source = g;
    s.gpu_host = "student@gpu1";
    s.gpu_command = "srun -p gpu bankviz-cli serve";
    std::vector<std::string> problems;
    const Settings back = settings_from_json(settings_to_json(s), &problems);
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(back.gpu_source, g) << gpu_source_name(g);
    EXPECT_EQ(back.gpu_host, s.gpu_host);
    EXPECT_EQ(back.gpu_command, s.gpu_command);
  }
  struct Case {
    const char* json;
    const char* says;
  };
  for (const Case& c : {
           Case{R"({"gpu": {"source": "cloud"}})", "gpu.source = \"cloud\" is not"},
           Case{R"({"gpu": {"source": 3}})", "gpu.source = 3 is not"},
           Case{R"({"gpu": {"source": "ssh"}})", "without its host"},
           Case{R"({"gpu": {"source": "ssh", "host": ""}})", "without its host"},
           Case{R"({"gpu": {"source": "command"}})", "without its command"},
           Case{R"({"gpu": {"source": "ssh", "host": 7}})", "gpu.host is not a string"},
           Case{R"({"gpu": "gpu1"})", "gpu = \"gpu1\" is not an object"},
       }) {
    std::vector<std::string> problems;
    const Settings s = settings_from_json(c.json, &problems);
    EXPECT_EQ(s.gpu_source, G::Here) << c.json;
    ASSERT_FALSE(problems.empty()) << c.json;
    EXPECT_NE(problems.front().find(c.says), std::string::npos) << problems.front();
  }
  std::vector<std::string> problems;
  const std::string long_host(kMaxGpuHostChars + 1, 'h');
  const Settings s =
      settings_from_json(R"({"gpu": {"source": "ssh", "host": ")" + long_host + "\"}}", &problems);
  EXPECT_EQ(s.gpu_source, G::Here);
  EXPECT_TRUE(s.gpu_host.empty());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("at most 1024 characters"), std::string::npos) << problems[0];
}

// Issue 31: a first start opens the default lesson; the lesson and each lesson's place are kept.
TEST(Settings, TheLessonAndItsPlaceAreRemembered) {
  std::vector<std::string> problems;
  EXPECT_EQ(Settings{}.lesson, "data-layout");
  // A file from before lessons were remembered: the default lesson.
  EXPECT_EQ(settings_from_json(R"({"preset": "reverse-static"})", &problems).lesson, "data-layout");
  Settings s;
  s.lesson = "histogram";
  s.lesson_places = {{"histogram", 3}, {"swizzles", 5}};
  Settings back = settings_from_json(settings_to_json(s), &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(back.lesson, "histogram");
  EXPECT_EQ(back.lesson_places, s.lesson_places);
  // Left for a preset: "" is kept as a choice, not replaced by the default.
  s.lesson = "";
  EXPECT_EQ(settings_from_json(settings_to_json(s), &problems).lesson, "");
  EXPECT_TRUE(problems.empty());
}

TEST(Settings, BadLessonPlacesAreReportedAndLeftOut) {
  std::vector<std::string> problems;
  Settings s = settings_from_json(
      R"({"lesson": "../etc/passwd", "lesson_places": {"histogram": 2, "swizzles": 0,
          "a/b": 3, "ldmatrix": 2.5, "x": "4", "tiled-matmul": 1e12, "dot-product": 4}})",
      &problems);
  EXPECT_EQ(s.lesson, "data-layout");  // not a name: the default
  EXPECT_EQ(s.lesson_places, (std::map<std::string, int>{{"dot-product", 4}, {"histogram", 2}}));
  ASSERT_EQ(problems.size(), 6u);
  EXPECT_NE(problems[0].find("lesson = \"../etc/passwd\""), std::string::npos) << problems[0];
  problems.clear();
  s = settings_from_json(R"({"lesson": 7, "lesson_places": [1, 2]})", &problems);
  EXPECT_EQ(s.lesson, "data-layout");
  EXPECT_TRUE(s.lesson_places.empty());
  EXPECT_EQ(problems.size(), 2u);
  // Bounded: a file with thousands of places keeps kMaxLessonPlaces and says so.
  std::string many = R"({"lesson_places": {)";
  for (int i = 0; i < 1000; ++i)
    many += (i ? "," : "") + std::string("\"l") + std::to_string(i) + "\": 1";
  problems.clear();
  s = settings_from_json(many + "}}", &problems);
  EXPECT_EQ(s.lesson_places.size(), kMaxLessonPlaces);
  ASSERT_EQ(problems.size(), 1u);
}

TEST(Settings, ExportsFollowTheWindowsThemeUnlessOneIsChosen) {
  Settings s;
  EXPECT_EQ(s.export_theme, Settings::ExportTheme::App);
  s.light = false;
  EXPECT_FALSE(export_light(s));  // a dark window: dark GIFs, slides and SVGs
  s.light = true;
  EXPECT_TRUE(export_light(s));
  s.export_theme = Settings::ExportTheme::Dark;  // chosen: whatever the window shows
  EXPECT_FALSE(export_light(s));
  s.light = false;
  s.export_theme = Settings::ExportTheme::Light;
  EXPECT_TRUE(export_light(s));
  for (Settings::ExportTheme t :
       {Settings::ExportTheme::App, Settings::ExportTheme::Light, Settings::ExportTheme::Dark}) {
    s.export_theme = t;
    std::vector<std::string> problems;
    EXPECT_EQ(settings_from_json(settings_to_json(s), &problems).export_theme, t);
    EXPECT_TRUE(problems.empty());
  }
  // Settings written before export_theme: "export_light": true was the default (now the
  // window's theme), false a choice of dark.
  std::vector<std::string> problems;
  EXPECT_EQ(settings_from_json(R"({"export_light": true})", &problems).export_theme,
            Settings::ExportTheme::App);
  EXPECT_EQ(settings_from_json(R"({"export_light": false})", &problems).export_theme,
            Settings::ExportTheme::Dark);
  EXPECT_TRUE(problems.empty());
  const Settings bad = settings_from_json(R"({"export_theme": "sepia"})", &problems);
  EXPECT_EQ(bad.export_theme, Settings::ExportTheme::App);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("export_theme"), std::string::npos) << problems[0];
}

TEST(Settings, BadValuesAreReportedAndDefaulted) {
  std::vector<std::string> problems;
  Settings s = settings_from_json(
      R"({"theme": "neon", "speed": 1000, "ui_scale": "big", "loop": false})", &problems);
  EXPECT_EQ(problems.size(), 3u);
  EXPECT_FALSE(s.light);
  EXPECT_DOUBLE_EQ(s.speed, Settings{}.speed);
  EXPECT_FLOAT_EQ(s.ui_scale, 1.0f);
  EXPECT_FALSE(s.loop);  // good values next to bad ones are kept
}

TEST(Settings, GarbageFileMeansDefaults) {
  std::vector<std::string> problems;
  Settings s = settings_from_json("{not json", &problems);
  EXPECT_EQ(problems.size(), 1u);
  EXPECT_DOUBLE_EQ(s.speed, Settings{}.speed);
}

TEST(Settings, WindowSizeAndViewsOnlyRoundTrip) {
  Settings s;
  s.window_w = 1920;
  s.window_h = 1080;
  s.views_only = true;
  s.speed = 3.5;
  std::vector<std::string> problems;
  Settings back = settings_from_json(settings_to_json(s), &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(back.window_w, 1920);
  EXPECT_EQ(back.window_h, 1080);
  EXPECT_TRUE(back.views_only);
  EXPECT_DOUBLE_EQ(back.speed, 3.5);
}

TEST(Settings, ImpossibleWindowSizeIsReportedAndDefaulted) {
  std::vector<std::string> problems;
  Settings s =
      settings_from_json(R"({"window_w": 20, "window_h": "tall", "views_only": 3})", &problems);
  ASSERT_EQ(problems.size(), 3u);
  for (const char* key : {"window_w", "window_h", "views_only"}) {
    bool named = false;
    for (const std::string& p : problems) named = named || p.find(key) != std::string::npos;
    EXPECT_TRUE(named) << key;
  }
  EXPECT_EQ(s.window_w, Settings{}.window_w);
  EXPECT_EQ(s.window_h, Settings{}.window_h);
  EXPECT_FALSE(s.views_only);
}

// [SECTION] The settings file on disk: special files are refused, never read or written.

namespace {

namespace fs = std::filesystem;

// A fresh $XDG_CONFIG_HOME for one test; config_dir() is DIR/bankviz.
struct ConfigHome {
  fs::path root;
  std::string old;
  bool had = false;
  explicit ConfigHome(const std::string& name) {
    root = fs::path(::testing::TempDir()) / ("config-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "bankviz");
    if (const char* x = std::getenv("XDG_CONFIG_HOME")) {
      had = true;
      old = x;
    }
    setenv("XDG_CONFIG_HOME", root.c_str(), 1);
  }
  ~ConfigHome() {
    if (had) {
      setenv("XDG_CONFIG_HOME", old.c_str(), 1);
    } else {
      unsetenv("XDG_CONFIG_HOME");
    }
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path file() const { return root / "bankviz" / "settings.json"; }
};

}  // namespace

TEST(SettingsFile, SpecialFilesAreReportedNotReadAndNeverWrittenInto) {
  struct Case {
    const char* name;
    std::function<void(const fs::path&)> make;
  };
  const std::vector<Case> cases = {
      {"fifo", [](const fs::path& p) { ASSERT_EQ(mkfifo(p.c_str(), 0644), 0); }},
      {"directory", [](const fs::path& p) { fs::create_directory(p); }},
      {"dev-zero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }},
      {"dev-full", [](const fs::path& p) { fs::create_symlink("/dev/full", p); }},
  };
  for (const Case& c : cases) {
    ConfigHome home(c.name);
    c.make(home.file());
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> problems;
    Settings s = load_settings(&problems);  // a FIFO would block forever if it were opened
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << c.name;
    ASSERT_EQ(problems.size(), 1u) << c.name;
    EXPECT_NE(problems[0].find("settings.json"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("defaults"), std::string::npos) << problems[0];
    EXPECT_DOUBLE_EQ(s.speed, Settings{}.speed);
    std::string err;
    EXPECT_FALSE(save_settings(s, &err)) << c.name;
    EXPECT_NE(err.find("settings.json"), std::string::npos) << err;
    // Still what it was: saving never replaces a special file.
    const fs::file_status st = fs::symlink_status(home.file());
    const std::string name = c.name;
    const fs::file_type want = name == "fifo"        ? fs::file_type::fifo
                               : name == "directory" ? fs::file_type::directory
                                                     : fs::file_type::symlink;
    EXPECT_EQ(st.type(), want) << name;
  }
}

TEST(SettingsFile, AFileOverOneMegabyteIsKeptAsideNotReplacedOnSave) {
  // Over 1 MB is not read (a big hand-made file, or a value pasted in by mistake); saving at the
  // end replaced it whole with the defaults, and what the user wrote was lost. Now it is moved
  // aside, the message says where, and the save writes a fresh file beside it.
  ConfigHome home("huge");
  const std::string huge = "{\"speed\": 3, \"pad\": \"" + std::string(2 << 20, 'x') + "\"}";
  std::ofstream(home.file()) << huge;
  std::vector<std::string> problems;
  Settings s = load_settings(&problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("larger than"), std::string::npos) << problems[0];
  const std::string aside = home.file().string() + ".bad";
  EXPECT_NE(problems[0].find("the file is kept as " + aside), std::string::npos) << problems[0];
  EXPECT_FALSE(fs::exists(home.file()));
  s.speed = 7;
  std::string err;
  ASSERT_TRUE(save_settings(s, &err)) << err;
  problems.clear();
  Settings back = load_settings(&problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_DOUBLE_EQ(back.speed, 7);
  std::ifstream in(aside);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), huge);
  // Nothing else beside them: no temporary file is left.
  int files = 0;
  for (const auto& e : fs::directory_iterator(home.file().parent_path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(SettingsFile, AFileThatCannotBeKeptAsideIsNeverSavedOver) {
  // Every name beside it taken (.bad to .bad.99): the file stays where it is, the message says
  // so, and a save refuses to replace it, for a file too large and for one that is not JSON.
  for (const std::string& text : {"{\"pad\": \"" + std::string(2 << 20, 'x') + "\"}",
                                  std::string(R"({"theme": "light",, })")}) {
    ConfigHome home("full");
    std::ofstream(home.file()) << text;
    for (int n = 0; n < 100; ++n)
      std::ofstream(home.file().string() + ".bad" + (n ? "." + std::to_string(n) : "")) << "older";
    std::vector<std::string> problems;
    const Settings s = load_settings(&problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("so the settings will not be saved over it"), std::string::npos)
        << problems[0].substr(0, 300);
    std::string err;
    EXPECT_FALSE(save_settings(s, &err));
    EXPECT_NE(err.find("cannot save settings: "), std::string::npos) << err.substr(0, 300);
    EXPECT_NE(err.find("it is left as it is"), std::string::npos) << err.substr(0, 300);
    std::ifstream in(home.file());
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  }
}

TEST(SettingsFile, AFileThatIsNotJsonIsKeptAsideNotReplacedByTheDefaults) {
  // A hand edit with a typo: the values in it must survive the app's save at its end.
  ConfigHome home("typo");
  const std::string typo = R"({"theme": "light", "ui_scale": 1.5,, })";
  std::ofstream(home.file()) << typo;
  std::ofstream(home.file().string() + ".bad") << "an older copy";
  std::vector<std::string> problems;
  Settings s = load_settings(&problems);
  ASSERT_EQ(problems.size(), 1u);
  const std::string aside = home.file().string() + ".bad.1";
  EXPECT_NE(problems[0].find("kept as " + aside), std::string::npos) << problems[0];
  EXPECT_FALSE(s.light);  // the defaults
  std::string err;
  ASSERT_TRUE(save_settings(s, &err)) << err;
  std::ifstream in(aside);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), typo);
  std::ifstream older(home.file().string() + ".bad");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(older), {}), "an older copy");
  problems.clear();
  load_settings(&problems);  // the saved file reads cleanly
  EXPECT_TRUE(problems.empty());
}

TEST(SettingsFile, NumbersAreRangeCheckedBeforeAnyConversion) {
  // 1e300 would be an infinity as a float; 4294967936 would wrap to 640 as an int; 1e10 as an int
  // is undefined; 2.5 is no integer. Each is reported and defaulted.
  std::vector<std::string> problems;
  Settings s = settings_from_json(
      R"({"ui_scale": 1e300, "window_w": 4294967936, "window_h": 1e10, "export_scale": 2.5,
          "speed": -1e300})",
      &problems);
  EXPECT_EQ(problems.size(), 5u);
  for (const std::string& p : problems) EXPECT_NE(p.find("using"), std::string::npos) << p;
  EXPECT_FLOAT_EQ(s.ui_scale, 1.0f);
  EXPECT_EQ(s.window_w, Settings{}.window_w);
  EXPECT_EQ(s.window_h, Settings{}.window_h);
  EXPECT_EQ(s.export_scale, Settings{}.export_scale);
  EXPECT_DOUBLE_EQ(s.speed, Settings{}.speed);
  // In range and whole: kept, including an integer written as 3.0.
  problems.clear();
  s = settings_from_json(R"({"window_w": 1920.0, "export_scale": 3, "ui_scale": 2})", &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(s.window_w, 1920);
  EXPECT_EQ(s.export_scale, 3);
  EXPECT_FLOAT_EQ(s.ui_scale, 2.0f);
}

// [SECTION] Exported files go through write_file_atomic

TEST(ExportFiles, DevicesAreRefusedEvenWithForce) {
  std::vector<uint8_t> px(4 * 4 * 4, 200);
  std::string err;
  EXPECT_FALSE(write_png("/dev/full", 4, 4, px, true, &err));
  EXPECT_NE(err.find("/dev/full"), std::string::npos) << err;
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  EXPECT_FALSE(write_text("/dev/full", "svg", true, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  EXPECT_FALSE(write_binary("/dev/full", {1, 2, 3}, true, &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
}

TEST(ExportFiles, ExistingFilesAreKeptWithoutForceAndReplacedWholeWithIt) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("export-files-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string png = (dir / "a.png").string();
  { std::ofstream(png) << "keep"; }
  std::vector<uint8_t> px(8 * 2 * 4, 0);
  for (size_t i = 0; i < px.size(); i += 4) px[i] = static_cast<uint8_t>(i);
  std::string err;
  EXPECT_FALSE(write_png(png, 8, 2, px, false, &err));
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  std::ifstream in(png);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), "keep");
  ASSERT_TRUE(write_png(png, 8, 2, px, true, &err)) << err;
  // What was written is the encoder's PNG, byte for byte.
  std::ifstream again(png, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), {}), png_bytes(8, 2, px));
  EXPECT_EQ(png_bytes(8, 2, px).substr(1, 3), "PNG");
  EXPECT_TRUE(png_bytes(8, 3, px).empty());  // pixels that do not match the size
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);  // no temporary file left
  fs::remove_all(dir);
}

TEST(SettingsFile, AValueNestedTooDeepIsReportedAndTheFileKeptAside) {
  // 300,000 levels: printing it in a message (or destroying it) recursed that deep and every
  // start of the app crashed. Now: one message, the defaults, and the user's file kept whole.
  ConfigHome home("deep");
  const std::string deep = "{\"theme\": \"light\", \"speed\": " + std::string(300000, '[') +
                           std::string(300000, ']') + "}";
  std::ofstream(home.file()) << deep;
  std::vector<std::string> problems;
  const Settings s = load_settings(&problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("nested deeper than 32 levels"), std::string::npos) << problems[0];
  const std::string aside = home.file().string() + ".bad";
  EXPECT_NE(problems[0].find("kept as " + aside), std::string::npos) << problems[0];
  EXPECT_FALSE(s.light);  // the defaults, not half of the file
  std::ifstream in(aside);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), deep);
  // 32 levels are read (the value is reported as the wrong type); brackets inside strings count
  // for nothing.
  problems.clear();
  const Settings ok = settings_from_json(
      "{\"theme\": \"light\", \"preset\": \"[[[[\", \"speed\": " + std::string(31, '[') +
          std::string(31, ']') + "}",
      &problems);
  EXPECT_TRUE(ok.light);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("speed"), std::string::npos) << problems[0];
}

TEST(Settings, LongValuesAreQuotedByTheirStartAndLength) {
  // A 900 KB theme string was quoted whole in the message.
  std::vector<std::string> problems;
  const std::string big(900000, 'x');
  const Settings s = settings_from_json(
      "{\"theme\": \"" + big + "\", \"preset\": \"" + big + "\", \"gpu\": [\"" + big + "\"]}",
      &problems);
  ASSERT_EQ(problems.size(), 3u);
  for (const std::string& p : problems) {
    EXPECT_LT(p.size(), 300u) << p.substr(0, 300);
    EXPECT_NE(p.find("characters)"), std::string::npos) << p.substr(0, 300);
  }
  EXPECT_NE(problems[0].find("theme = \"xxx"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("(900002 characters)"), std::string::npos) << problems[0];
  EXPECT_TRUE(s.preset.empty());  // a preset name no file can have is left out
  // Control characters are escaped, never sent to the terminal.
  problems.clear();
  settings_from_json("{\"theme\": \"\\u001b[2J\"}", &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].find('\x1b'), std::string::npos) << problems[0];
}

TEST(ExportFiles, APngDecodesToTheSamePixels) {
  // Rows unfiltered (capture.cpp): flat areas, edges, gradients and alpha all come back exact.
  const int w = 97, h = 31;
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 4];
      p[0] = static_cast<uint8_t>(x < 40 ? 30 : x * 7 + y);
      p[1] = static_cast<uint8_t>(y * 8);
      p[2] = static_cast<uint8_t>((x ^ y) * 3);
      p[3] = static_cast<uint8_t>(255 - x);
    }
  const std::string png = png_bytes(w, h, px);
  ASSERT_FALSE(png.empty());
  int dw = 0, dh = 0, n = 0;
  uint8_t* back = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(png.data()),
                                        static_cast<int>(png.size()), &dw, &dh, &n, 4);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(dw, w);
  EXPECT_EQ(dh, h);
  EXPECT_TRUE(std::equal(px.begin(), px.end(), back));
  stbi_image_free(back);
  // An opaque picture (every frame the app draws) is written without its alpha channel (IHDR's
  // colour type 2, RGB) and reads back with alpha 255 everywhere.
  for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;
  const std::string rgb = png_bytes(w, h, px);
  ASSERT_GT(rgb.size(), 26u);
  EXPECT_EQ(rgb[25], 2) << "colour type";
  back = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(rgb.data()),
                               static_cast<int>(rgb.size()), &dw, &dh, &n, 4);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(n, 3);
  EXPECT_TRUE(std::equal(px.begin(), px.end(), back));
  stbi_image_free(back);
}
