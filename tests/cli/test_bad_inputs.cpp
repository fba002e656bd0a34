// docs/BAD_INPUTS.md is executed: every table row whose command runs bankviz-cli is run with sh,
// and its exit status and message are checked. The doc cannot drift from the program.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include "../test_support.h"

using bankviz::test::slurp;

// tests/landlock_env.cpp: true when this Linux has no Landlock and the tests compile uncontained.
bool tests_run_uncontained();

namespace {

namespace fs = std::filesystem;

struct Row {
  int line = 0;
  std::string input, command, says;
  int exit = -1;
};

// The text inside the first pair of backticks, with markdown's "\|" read as "|".
std::string code_of(const std::string& cell) {
  const size_t a = cell.find('`'), b = cell.rfind('`');
  if (a == std::string::npos || b <= a) return {};
  std::string s = cell.substr(a + 1, b - a - 1);
  for (size_t p; (p = s.find("\\|")) != std::string::npos;) s.replace(p, 2, 1, '|');
  return s;
}

std::vector<Row> rows() {
  std::ifstream in(std::string(BANKVIZ_SOURCE_DIR) + "/docs/BAD_INPUTS.md");
  std::vector<Row> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t from = 1;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|' && line[i - 1] != '\\') {
        cells.push_back(line.substr(from, i - from));
        from = i + 1;
      }
    }
    if (cells.size() != 4) continue;
    Row r;
    r.line = n;
    r.input = cells[0];
    r.command = code_of(cells[1]);
    r.says = code_of(cells[3]);
    if (r.command.find("bankviz-cli") == std::string::npos) continue;
    r.exit = std::atoi(cells[2].c_str());
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST(BadInputs, EveryRowOfTheDocBehavesAsItSays) {
  const std::vector<Row> table = rows();
  ASSERT_GE(table.size(), 40u) << "docs/BAD_INPUTS.md lost its rows";
  const fs::path tmp = fs::temp_directory_path() / ("bankviz-bad-" + std::to_string(::getpid()));
  const fs::path fifo = tmp / "fifo";
  int skipped = 0;
  for (const Row& r : table) {
    SCOPED_TRACE("docs/BAD_INPUTS.md:" + std::to_string(r.line) + ": " + r.command);
    // Only root can give a file to another user or run a command as one.
    if ((r.command.find("chown") != std::string::npos ||
         r.command.find("su nobody") != std::string::npos) &&
        ::geteuid() != 0) {
      std::cerr << "docs/BAD_INPUTS.md:" << r.line << ": skipped: needs root\n";
      ++skipped;
      continue;
    }
    // The compile's containment cannot be tried where this Linux has no Landlock (the tests then
    // compile uncontained: tests/landlock_env.cpp).
    if (r.input.find("needs Landlock") != std::string::npos && tests_run_uncontained()) {
      std::cerr << "docs/BAD_INPUTS.md:" << r.line << ": skipped: needs Landlock\n";
      ++skipped;
      continue;
    }
    fs::remove_all(tmp);
    fs::create_directories(tmp / "work");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string cmd = r.command;
    for (size_t p = 0; (p = cmd.find("bankviz-cli", p)) != std::string::npos;) {
      const std::string exe = std::string("'") + BANKVIZ_CLI + "'";
      cmd.replace(p, 11, exe);
      p += exe.size();
    }
    // A FIFO nobody writes would block a reader forever: `timeout` turns a hang into a failure.
    const std::string script = "HOSTILE='" + std::string(BANKVIZ_TEST_DATA) + "/hostile' FIFO='" +
                               fifo.string() + "' TMP='" + (tmp / "work").string() +
                               "'; export HOSTILE FIFO TMP; " + cmd;
    const std::string sh = "timeout 30 sh -c \"$(cat '" + (tmp / "script").string() + "')\" > '" +
                           (tmp / "out").string() + "' 2> '" + (tmp / "err").string() + "'";
    std::ofstream(tmp / "script") << script;
    const int raw = std::system(sh.c_str());
    const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    const std::string output = slurp(tmp / "err") + slurp(tmp / "out");
    EXPECT_EQ(status, r.exit) << output;
    EXPECT_NE(output.find(r.says), std::string::npos)
        << "expected: " << r.says << "\ngot: " << output;
    // Nothing is left behind in the work directory but what the row made on purpose.
    for (const auto& e : fs::directory_iterator(tmp / "work"))
      EXPECT_EQ(e.path().filename().string().rfind(".", 0), std::string::npos) << e.path();
  }
  fs::remove_all(tmp);
  if (skipped > 0) std::cerr << skipped << " rows skipped: they need root or Landlock\n";
}
