// cli_run.h: running bankviz-cli from a test, as a user meets it (exit status, stdout, stderr).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../test_support.h"

namespace bankviz::test {

struct Result {
  int status = -1;
  std::string out, err;
};

// Runs bankviz-cli with the given shell-quoted arguments and optional standard input; `prefix`
// goes before the program (e.g. "env NAME=VALUE ").
inline Result cli(const std::string& args, const std::string& input = "",
                  const std::string& prefix = "") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("bankviz-cli-test-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  std::ofstream(dir / "in") << input;
  const std::string cmd = prefix + "'" + BANKVIZ_CLI + "' " + args + " < '" +
                          (dir / "in").string() + "' > '" + (dir / "out").string() + "' 2> '" +
                          (dir / "err").string() + "'";
  const int raw = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

}  // namespace bankviz::test
