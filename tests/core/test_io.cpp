// Bounded reads of user files: regular files only, a byte cap, clear messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bankviz/io.h"
#include "bankviz/scenario.h"

using namespace bankviz;
namespace fs = std::filesystem;

TEST(Io, ReadsARegularFileWhole) {
  const fs::path p = fs::temp_directory_path() / ("bankviz-io-" + std::to_string(::getpid()));
  std::ofstream(p) << "hello\n";
  TextRead r = read_text_file(p.string(), 100);
  ASSERT_TRUE(r.text) << r.error;
  EXPECT_EQ(*r.text, "hello\n");
  TextRead small = read_text_file(p.string(), 3);  // over the cap: refused, not truncated
  EXPECT_FALSE(small.text);
  EXPECT_NE(small.error.find("larger than 3 bytes"), std::string::npos) << small.error;
  fs::remove(p);
}

TEST(Io, DevicesDirectoriesAndMissingFilesAreRefusedWithTheReason) {
  EXPECT_NE(read_text_file("/dev/zero", 1 << 20).error.find("is a device"), std::string::npos);
  EXPECT_NE(read_text_file("/", 1 << 20).error.find("is a directory"), std::string::npos);
  EXPECT_NE(read_text_file("/nonexistent/x.json", 1 << 20).error.find("no such file"),
            std::string::npos);
  const ScenarioLoad l = load_scenario_file("/dev/zero");  // it once read until memory ran out
  ASSERT_FALSE(l.scenario);
  EXPECT_NE(l.errors[0].message.find("is a device"), std::string::npos) << l.errors[0].message;
}

TEST(Io, AStreamIsReadUpToItsCap) {
  std::istringstream in(std::string(1000, 'x'));
  TextRead r = read_text_stream(in, 999, "standard input");
  EXPECT_FALSE(r.text);
  EXPECT_NE(r.error.find("standard input is larger than 999 bytes"), std::string::npos);
  std::istringstream ok(std::string(999, 'x'));
  EXPECT_EQ(read_text_stream(ok, 999, "in").text->size(), 999u);
}
