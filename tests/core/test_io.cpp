// Bounded reads of user files: regular files only, a byte cap, clear messages.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../test_support.h"
#include "bankviz/io.h"
#include "bankviz/scenario.h"

using bankviz::test::slurp;

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

TEST(Io, AFileOverTheCapIsSaidAtItsSizeNeverRoundedDownToTheCap) {
  // A file of 1.9 MB over a 1 MB cap was "(1 MB) is larger than 1 MB".
  const fs::path p = fs::temp_directory_path() / ("bankviz-io-size-" + std::to_string(::getpid()));
  for (const auto& [bytes, says] :
       {std::pair<int, std::string>{2000011, "(1.9 MB) is larger than 1 MB"},
        {3 << 20, "(3 MB) is larger than 1 MB"},
        {(1 << 20) + 1, "(1.0 MB) is larger than 1 MB"}}) {
    std::ofstream(p) << std::string(static_cast<size_t>(bytes), ' ');
    const TextRead r = read_text_file(p.string(), 1 << 20);
    EXPECT_FALSE(r.text);
    EXPECT_NE(r.error.find(says), std::string::npos) << r.error;
  }
  std::ofstream(p) << std::string(1536, ' ');
  EXPECT_NE(read_text_file(p.string(), 1024).error.find("(1.5 KB) is larger than 1 KB"),
            std::string::npos);
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

namespace {
fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("bankviz-io-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
size_t entries(const fs::path& d) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(d), fs::directory_iterator()));
}
}  // namespace

TEST(Io, WritesReplaceAFileOnlyWithForceAndLeaveNoTemporaryFile) {
  const fs::path d = fresh_dir("write");
  const std::string p = (d / "out.svg").string();
  EXPECT_EQ(write_file_atomic(p, "first", false), "");
  EXPECT_EQ(slurp(p), "first");
  const std::string refused = write_file_atomic(p, "second", false);
  EXPECT_NE(refused.find("exists; pass --force"), std::string::npos) << refused;
  EXPECT_EQ(slurp(p), "first");
  EXPECT_EQ(write_file_atomic(p, "second", true), "");
  EXPECT_EQ(slurp(p), "second");
  EXPECT_EQ(entries(d), 1u);  // no temporary file left beside it
  fs::remove_all(d);
}

TEST(Io, ANameOfTheLongestLegalLengthIsWritten) {
  const fs::path d = fresh_dir("long-name");
  for (size_t n : {200u, 236u, 237u, 250u, 255u}) {
    const std::string p = (d / (std::string(n - 4, 'n') + ".svg")).string();
    EXPECT_EQ(write_file_atomic(p, "x", false), "") << n << " bytes";
    EXPECT_EQ(slurp(p), "x") << n;
    EXPECT_EQ(write_file_atomic(p, "y", true), "") << n << " bytes, replaced";
    EXPECT_EQ(slurp(p), "y") << n;
  }
  EXPECT_EQ(entries(d), 5u);  // and no temporary file beside them
  fs::remove_all(d);
}

TEST(Io, WritersOfOneNewNameWithoutForceNeverReplaceEachOther) {
  const fs::path d = fresh_dir("race");
  const std::string p = (d / "same.svg").string();
  // Eight processes write 4 MB each to one new name at once; without --force one of them makes
  // it, each other one is told, and the file is one writer's whole text.
  constexpr int kWriters = 8;
  pid_t pids[kWriters];
  for (int w = 0; w < kWriters; ++w) {
    pids[w] = ::fork();
    if (pids[w] == 0) {
      const std::string text(size_t{4} << 20, static_cast<char>('a' + w));
      const std::string why = write_file_atomic(p, text, false);
      ::_exit(why.empty() ? 0 : why.find("exist") != std::string::npos ? 1 : 2);
    }
  }
  int made = 0, told = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    made += WEXITSTATUS(status) == 0;
    told += WEXITSTATUS(status) == 1;
  }
  EXPECT_EQ(made, 1);
  EXPECT_EQ(told, kWriters - 1);
  const std::string got = slurp(p);
  ASSERT_EQ(got.size(), size_t{4} << 20);
  EXPECT_EQ(got.find_first_not_of(got[0]), std::string::npos);
  EXPECT_EQ(entries(d), 1u);
  fs::remove_all(d);
}

TEST(Io, SpecialFilesDirectoriesAndMissingDirectoriesAreNeverWritten) {
  // /dev/full once "succeeded": a device is refused even with --force (and never renamed over).
  const std::string full = write_file_atomic("/dev/full", "x", true);
  EXPECT_NE(full.find("not a regular file"), std::string::npos) << full;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  EXPECT_NE(write_file_atomic("/tmp", "x", true).find("is a directory"), std::string::npos);
  EXPECT_NE(write_file_atomic("/nonexistent-dir/x.png", "x", true).find("does not exist"),
            std::string::npos);
  EXPECT_EQ(write_file_atomic("", "x", true), "no output file given");
}

TEST(Io, TheKernelsOwnFileSystemsAreNamedAsTheReason) {
  // /proc/self/mem is a "regular file" to stat(); the write once failed making its temporary file
  // and said "No such file or directory". Now the folder's file system is the reason.
  const std::string mem = write_file_atomic("/proc/self/mem", "x", true);
  EXPECT_NE(mem.find("'/proc/self' is in the kernel's proc file system"), std::string::npos) << mem;
  EXPECT_EQ(mem.find("No such file"), std::string::npos) << mem;
  const std::string sys = output_problem("/sys/kernel/new.svg", true);
  EXPECT_NE(sys.find("the kernel's sysfs file system"), std::string::npos) << sys;
  // An ordinary folder is not one of them.
  const fs::path d = fs::temp_directory_path() / ("bankviz-io-ok-" + std::to_string(::getpid()));
  EXPECT_EQ(output_problem(d.string(), false), "");
}

TEST(Io, AnExtensionOfAnotherFormatIsRefusedAndNamesTheRightOne) {
  EXPECT_EQ(extension_problem("out.png", "svg"),
            "'out.png' ends in .png, but the file would be SVG: name it 'out.svg'");
  EXPECT_EQ(extension_problem("dir.v2/figure.JPEG", "svg"),
            "'dir.v2/figure.JPEG' ends in .JPEG, but the file would be SVG: name it "
            "'dir.v2/figure.svg'");
  EXPECT_NE(extension_problem("shot.svg", "png").find("would be PNG"), std::string::npos);
  // The format's own extension (any case), none, a hidden name, or one no format owns: fine.
  for (const char* ok : {"a.svg", "a.SVG", "a", "dir.png/a", ".png", "a.v2", "a.svg.bak"})
    EXPECT_EQ(extension_problem(ok, "svg"), "") << ok;
}

TEST(Io, AWriteThroughALinkReplacesTheFileItNamesAndKeepsTheLink) {
  const fs::path d = fresh_dir("link");
  std::ofstream(d / "real.json") << "old";
  fs::create_symlink(d / "real.json", d / "link.json");
  EXPECT_EQ(write_file_atomic((d / "link.json").string(), "new", true), "");
  EXPECT_TRUE(fs::is_symlink(d / "link.json"));
  EXPECT_EQ(slurp(d / "real.json"), "new");
  fs::create_symlink(d / "nowhere", d / "dangling.json");  // still something the user made
  EXPECT_NE(write_file_atomic((d / "dangling.json").string(), "x", false).find("pass --force"),
            std::string::npos);
  fs::remove_all(d);
}

TEST(Io, AFailedWriteLeavesTheOldFileAndNoPartialOne) {
  // A directory that cannot be written: the temporary file cannot be made, so the old file stays.
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop writes";
  const fs::path d = fresh_dir("ro");
  std::ofstream(d / "keep.txt") << "precious";
  fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string why = write_file_atomic((d / "keep.txt").string(), "lost?", true);
  fs::permissions(d, fs::perms::owner_all);
  EXPECT_NE(why.find("cannot write"), std::string::npos) << why;
  EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;
  EXPECT_EQ(slurp(d / "keep.txt"), "precious");
  EXPECT_EQ(entries(d), 1u);
  fs::remove_all(d);
}

// A signal that ends the program in the middle of a write leaves no partial file and no temporary
// one (remove_temporary_files_on_signal). A child writes 64 MB (pages of zeros, never touched:
// no memory) while the parent watches the directory; when the temporary file appears, the signal.
namespace {

// Waits for the child; its signal number if a signal ended it, else 100 + its exit status.
int wait_child(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status);
}

bool has_temporary(const fs::path& d) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec))
    if (e.path().filename().string().find(".bankviz-") != std::string::npos) return true;
  return false;
}

}  // namespace

class IoSignal : public ::testing::TestWithParam<int> {};

TEST_P(IoSignal, EndsTheProgramAndRemovesTheTemporaryFile) {
  const int sig = GetParam();
  const fs::path d = fresh_dir("signal-" + std::to_string(sig));
  const std::string out = (d / "big.svg").string();
  constexpr size_t kBytes = size_t{64} << 20;
  bool caught = false;
  // A fast disk may finish the write before the parent sees it: try again, a few times.
  for (int attempt = 0; attempt < 5 && !caught; ++attempt) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::signal(sig, SIG_DFL);  // not ignored as ctest's parent may have left it
      remove_temporary_files_on_signal();
      void* zeros = ::mmap(nullptr, kBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (zeros == MAP_FAILED) ::_exit(3);
      const std::string why =
          write_file_atomic(out, std::string_view(static_cast<const char*>(zeros), kBytes), true);
      ::_exit(why.empty() ? 0 : 4);
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < until) {
      seen = has_temporary(d);
      if (!seen) {
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) break;  // done before it was seen
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    if (seen) {
      ::kill(child, sig);
      EXPECT_EQ(wait_child(child), sig) << "the signal, not the end of the write, ended it";
      caught = true;
    } else {
      ::kill(child, SIGKILL);
      wait_child(child);
    }
    // Whatever happened, no temporary file is left; a complete file only if the write finished.
    EXPECT_FALSE(has_temporary(d));
    if (caught) {
      EXPECT_FALSE(fs::exists(out)) << "a partial file was left";
    }
    fs::remove(out);
  }
  EXPECT_TRUE(caught) << "the write always finished before its temporary file was seen";
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Signals, IoSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& info) {
                           return std::string(info.param == SIGINT    ? "SIGINT"
                                              : info.param == SIGTERM ? "SIGTERM"
                                                                      : "SIGHUP");
                         });

TEST(Io, AnIgnoredSignalStaysIgnored) {
  // `nohup`, or a shell's background job, ignores SIGHUP or SIGINT: the program must keep that.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGHUP, SIG_IGN);
    remove_temporary_files_on_signal();
    struct sigaction hup {
    }, term{};
    ::sigaction(SIGHUP, nullptr, &hup);
    ::sigaction(SIGTERM, nullptr, &term);
    ::_exit(hup.sa_handler == SIG_IGN && term.sa_handler != SIG_DFL ? 0 : 5);
  }
  EXPECT_EQ(wait_child(child), 100);
}
