// Links that open a scene (app/gui/shell/link.h): the browser's fragment and `bankviz --link`
// become the app's own flags, checked by the same code; make_link() is the way back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shell/link.h"
#include "shell/options.h"

using namespace bankviz::gui;

namespace {

std::optional<Options> parse_link_flags(const std::string& fragment, int* code,
                                        std::string* message) {
  std::vector<std::string> args = {"bankviz", "--link", fragment};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data(), code, message);
}

}  // namespace

TEST(Link, Base64UrlRoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (size_t n = 0; n <= bytes.size(); n += 37) {
    const std::string part = bytes.substr(0, n);
    const std::string text = base64url_encode(part);
    EXPECT_EQ(text.find_first_of("+/="), std::string::npos) << text;
    EXPECT_EQ(base64url_decode(text), part) << n;
  }
  EXPECT_EQ(base64url_encode("{\"a\":1}"), "eyJhIjoxfQ");
  EXPECT_EQ(base64url_decode("eyJhIjoxfQ=="), "{\"a\":1}");  // padding is optional
  EXPECT_FALSE(base64url_decode("eyJ$"));                    // outside the alphabet
  EXPECT_FALSE(base64url_decode("a"));                       // no byte ends there
}

TEST(Link, LessonSceneRevealPresenterAndSizeBecomeFlags) {
  int code = -1;
  std::string message;
  auto o = parse_link_flags(
      "#lesson=data-layout&scene=3&reveal&presenter&size=1280x720&theme=light", &code, &message);
  ASSERT_TRUE(o) << message;
  EXPECT_EQ(o->lesson, "data-layout");
  EXPECT_EQ(o->scene, 3);
  EXPECT_TRUE(o->reveal);
  EXPECT_TRUE(o->presenter);
  EXPECT_EQ(o->width, 1280);
  EXPECT_EQ(o->height, 720);
  ASSERT_TRUE(o->theme);
  EXPECT_EQ(*o->theme, "light");
  EXPECT_FALSE(o->link_dump_layout);
}

TEST(Link, ScenarioIsDecodedAndDumpLayoutNoted) {
  const std::string json = "{\"name\": \"x y\"}";
  int code = -1;
  std::string message;
  auto o = parse_link_flags("scenario=" + base64url_encode(json) + "&dump-layout", &code, &message);
  ASSERT_TRUE(o) << message;
  EXPECT_EQ(o->scenario_text, json);
  EXPECT_TRUE(o->link_dump_layout);
  EXPECT_TRUE(o->lesson.empty());
}

TEST(Link, PercentEscapesAreDecoded) {
  int code = -1;
  std::string message;
  auto o = parse_link_flags("#preset=row%2Dwrite", &code, &message);
  ASSERT_TRUE(o) << message;
  EXPECT_EQ(o->preset, "row-write");
}

TEST(Link, BrokenLinksAreUsageErrorsThatSayWhy) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"#lesson", "needs a value"},
      {"#reveal=1", "takes no value"},
      {"#colour=red", "not a link key"},
      {"#preset=a&preset=b", "twice"},
      {"#scenario=%%%", "%-escape"},
      {"#scenario=@@@@", "base64url"},
      {"#scene=2", "--scene picks a scene of a --lesson"},
      {"#lesson=a&preset=b", "one of lesson, preset and scenario"},
      {"#lesson=a&scene=0", "--scene"},
      {"#size=10x10", "--size"},
      {"#theme=blue", "--theme"},
      {"#preset=", "--preset"},
  };
  for (const auto& [fragment, why] : bad) {
    int code = -1;
    std::string message;
    EXPECT_FALSE(parse_link_flags(fragment, &code, &message)) << fragment;
    EXPECT_EQ(code, kExitUsage) << fragment;
    EXPECT_NE(message.find(why), std::string::npos) << fragment << ": " << message;
  }
}

TEST(Link, AnEmptyLinkOpensTheDefault) {
  int code = -1;
  std::string message;
  auto o = parse_link_flags("#", &code, &message);
  ASSERT_TRUE(o) << message;
  EXPECT_TRUE(o->lesson.empty() && o->preset.empty() && o->scenario_text.empty());
}

TEST(Link, MadeLinksParseBackToTheSameView) {
  LinkView v;
  v.lesson = "data-layout";
  v.scene = 4;
  v.revealed = true;
  v.presenter = true;
  v.light = true;
  EXPECT_EQ(make_link(v), "lesson=data-layout&scene=4&reveal&presenter&theme=light");
  int code = -1;
  std::string message;
  auto o = parse_link_flags(make_link(v), &code, &message);
  ASSERT_TRUE(o) << message;
  EXPECT_EQ(o->scene, 4);
  EXPECT_TRUE(o->reveal && o->presenter);

  bankviz::Scenario s;
  s.name = "edited & kept";
  LinkView e;
  e.scenario = &s;
  const std::string link = make_link(e);
  ASSERT_EQ(link.rfind("scenario=", 0), 0u) << link;
  auto back = parse_link(link, &message);
  ASSERT_TRUE(back) << message;
  EXPECT_EQ(back->scenario_json, bankviz::scenario_to_json(s));

  LinkView p;
  p.preset = "row-write-column-read";
  EXPECT_EQ(make_link(p), "preset=row-write-column-read");
}
