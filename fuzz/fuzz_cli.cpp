// fuzz_cli: bankviz-cli's flags, run in process through cli_main() (app/cli/cli_main.h).
//
// The input is a command line and, optionally, what standard input holds:
//   WORD '\n' WORD '\n' ... [ '\0' STANDARD-INPUT ]
// (argv[0] is added). Examples are in corpus/cli/. Standard output and error go to memory and are
// checked, then dropped. Properties, besides no crash, hang, leak or undefined behaviour
// (ASan + UBSan):
// - the exit status is 0, 1 or 2 (success, failed work, usage error);
// - a non-zero status comes with a message on standard error;
// - no "internal error": an exception that no check turned into a message aborts in this build
//   (cli_main.cpp, FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION);
// - nothing printed holds a control byte other than newline and tab (printable.h).
//
// Left out, so that fuzzing has no effect outside the process: `run` (compiles and launches
// CUDA), `export` (writes files), `serve` (takes over the standard streams), `measure` (every
// preset on the GPU), `--gpu` and `--gpu-command` (start ssh or a shell), and absolute or parent-relative paths (`/x`, `--file=/x`,
// `-f/x`, `a/../b`): a path the fuzzer makes up is relative and names a file in the directory it
// runs in (scripts/fuzz.sh runs it in a scratch directory with a scenario and a records file).
// Presets come from the source tree's assets/ ($BANKVIZ_ASSETS is set to it).
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check.h"
#include "cli_main.h"

namespace {

// Counts what is written, keeps its start, and notes control bytes.
class Sink : public std::streambuf {
 public:
  void reset() {
    bytes_ = 0;
    head_.clear();
    control_ = false;
  }
  size_t bytes() const { return bytes_; }
  const std::string& head() const { return head_; }
  bool control() const { return control_; }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    put(traits_type::to_char_type(ch));
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) put(s[i]);
    return n;
  }

 private:
  void put(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) control_ = true;
    if (head_.size() < kHead) head_ += c;
    ++bytes_;
  }
  static constexpr size_t kHead = 1 << 16;
  size_t bytes_ = 0;
  std::string head_;
  bool control_ = false;
};

// A word that names a path outside the current directory: '/' first, after '=' (--file=/x) or
// after a group of short options (-f/x, -hf/x); or a parent directory ("../", "/..").
bool leaves_the_directory(std::string_view w) {
  if (w == ".." || w.find("../") != std::string_view::npos ||
      w.find("/..") != std::string_view::npos)
    return true;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] != '/') continue;
    if (i == 0 || w[i - 1] == '=') return true;
    bool short_options = w[0] == '-' && i > 1;
    for (size_t k = 1; k < i && short_options; ++k)
      short_options = std::isalpha(static_cast<unsigned char>(w[k])) != 0;
    if (short_options) return true;
  }
  return false;
}

// Open bugs, reported and left to the files' owners: inputs that reach one are skipped, so that a
// run finds new bugs instead of this one again. Each has its reproducer in regressions/open/ and
// its entry in README.md; remove the skip with the fix. BANKVIZ_FUZZ_OPEN=1 turns the skips off
// (to reproduce one: BANKVIZ_FUZZ_OPEN=1 fuzz_cli regressions/open/cli/FILE).
bool skip_open_bugs = true;
bool known_open_bug(const std::vector<std::string>& words, size_t i) {
  // None open: the too-long preset name and --dynamic=VALUE (fixed 2026-11-22, their inputs are
  // in regressions/cli/) were the last. Add a skip here, with its reason, for the next one.
  (void)words;
  (void)i;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("BANKVIZ_ASSETS", BANKVIZ_SOURCE_DIR "/assets", 1);
  const char* open = std::getenv("BANKVIZ_FUZZ_OPEN");
  skip_open_bugs = !(open && std::string_view(open) == "1");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view line = input.substr(0, nul);
  const std::string_view stdin_text =
      nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  std::vector<std::string> words{"bankviz-cli"};
  for (size_t from = 0; from <= line.size();) {
    size_t nl = line.find('\n', from);
    if (nl == std::string_view::npos) nl = line.size();
    words.emplace_back(line.substr(from, nl - from));
    from = nl + 1;
  }
  if (words.size() > 64) return -1;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "run" || w == "export" || w == "serve" || w == "measure" || w.starts_with("--gpu") ||
        leaves_the_directory(w) || known_open_bug(words, i))
      return -1;
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  static Sink out, err;
  out.reset();
  err.reset();
  std::stringbuf in{std::string(stdin_text)};
  std::streambuf* const cout_buf = std::cout.rdbuf(&out);
  std::streambuf* const cerr_buf = std::cerr.rdbuf(&err);
  std::streambuf* const cin_buf = std::cin.rdbuf(&in);
  const int status = bankviz::cli::cli_main(static_cast<int>(words.size()), argv.data());
  std::cout.rdbuf(cout_buf);
  std::cerr.rdbuf(cerr_buf);
  std::cin.rdbuf(cin_buf);
  std::cout.clear();
  std::cerr.clear();
  std::cin.clear();

  FUZZ_CHECK(status == 0 || status == 1 || status == 2,
             "exit status " + std::to_string(status) + "; stderr:\n" + err.head());
  FUZZ_CHECK(status == 0 || err.bytes() > 0,
             "exit status " + std::to_string(status) + " without a message on standard error");
  FUZZ_CHECK(!out.control() && !err.control(), "a control byte was printed:\n" + err.head());
  return 0;
}
