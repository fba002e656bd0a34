// scratch_dir.h: a temporary directory of this test process's own.
//
// ctest runs the tests in parallel, each in a process of its own, and other checkouts run the
// same tests on the same machine at the same time: a fixed name under /tmp ("shot-lesson.png")
// would be written by two of them at once. Every file a test writes goes under this directory
// instead (mkdtemp: made for this process alone), which is removed when the process ends.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace bankviz::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string t = (std::filesystem::path(::testing::TempDir()) / "bankviz-test-XXXXXX").string();
    if (::mkdtemp(t.data()) == nullptr) {
      // No such directory can be made: the suite cannot run without one.
      std::perror(("bankviz tests: mkdtemp " + t).c_str());
      std::abort();
    }
    path_ = t + "/";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// "/tmp/bankviz-test-Ab12Cd/": ends with '/', as ::testing::TempDir() does.
inline const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

}  // namespace bankviz::test
