// Settings file: bad values are reported and defaulted, never fatal.
#include <gtest/gtest.h>

#include "settings.h"

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
