// cli_main.cpp: bankviz-cli's body (cli_main.h); main.cpp calls it.
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "bankviz/io.h"
#include "cli_main.h"
#include "commands.h"
#include "common.h"
#include "data_dir.h"
#include "heap_reuse.h"
#include "printable.h"

namespace bankviz::cli {

int cli_main(int argc, char** argv) {
  // A write past the file-size limit fails with a message and leaves no temporary file, and Ctrl+C
  // or SIGTERM during a write ends the program without one either (io.h).
  ignore_file_size_signal();
  remove_temporary_files_on_signal();
  // Started by the app (app/gui/profile/subprocess.cpp): ends when the app's thread that started it
  // does, by SIGTERM, on which it kills what it started and removes its temporary files (io.h).
  if (const char* parent = std::getenv("BANKVIZ_PARENT_PID"); parent && *parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (std::to_string(::getppid()) != parent) std::raise(SIGTERM);  // it has gone already
  }
  keep_freed_memory_for_reuse();
  // Everything printed goes through PrintableBuf: no user text reaches the terminal as control.
  std::streambuf* const cout_buf = std::cout.rdbuf();
  std::streambuf* const cerr_buf = std::cerr.rdbuf();
  PrintableBuf out(cout_buf), err(cerr_buf);
  std::cout.rdbuf(&out);
  std::cerr.rdbuf(&err);
  struct Restore {  // the streams outlive cli_main's locals: give them their own buffers back
    std::streambuf *o, *e;
    ~Restore() {
      std::cout.flush();
      std::cout.rdbuf(o);
      std::cerr.rdbuf(e);
    }
  } restore{cout_buf, cerr_buf};
  invocation_args().assign(argv + (argc > 0 ? 1 : 0), argv + argc);
  CLI::App app{"bankviz-cli: CUDA shared-memory banks, wavefronts and conflicts, without a window"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every subcommand");
  // "NAME VERSION" on one line, as GNU programs print it (help2man reads it for the man page).
  app.set_version_flag("--version", std::string("bankviz-cli ") + BANKVIZ_VERSION,
                       "print the version and exit");
  add_analyze_command(app);
  add_wavefronts_command(app);
  add_list_commands(app);
  add_compare_commands(app);
  add_advise_command(app);
  add_experiments_command(app);
  add_lessons_command(app);
#ifdef BANKVIZ_CLI_RUN
  add_run_commands(app);
  add_validate_command(app);
  add_profile_command(app);
  add_serve_command(app);
  add_measure_command(app);
#endif
#ifdef BANKVIZ_CLI_EXPORT
  add_export_command(app);
#endif
  try {
    // A data directory named but missing is a usage error, not a silent fall-back.
    if (std::string why = data_env_problem(); !why.empty()) throw Exit{kExitUsage, why};
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every other parse problem is a usage error (exit status 2).
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  } catch (const Exit& e) {
    if (!e.message.empty()) std::cerr << "bankviz-cli: " << e.message << "\n";
    return e.status;
  } catch (const std::invalid_argument& e) {
    // CLI11 (2.1) converts a flag's value (--dynamic=VALUE) with std::stoll and lets its
    // exception escape: a value that is not a number is a usage error, not an internal one.
    std::cerr << "bankviz-cli: a flag's value is not a number (" << e.what() << "); see --help\n";
    return kExitUsage;
  } catch (const std::out_of_range& e) {
    std::cerr << "bankviz-cli: a flag's value is out of range (" << e.what() << "); see --help\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // Under a memory limit (ulimit -v, a cgroup) the work did not fit: not a bug of bankviz.
    std::cerr << "bankviz-cli: out of memory: the work did not fit in the memory this process "
                 "may use (ulimit -v or a container's limit)\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "bankviz-cli: internal error: " << e.what() << "\n";
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    // In the fuzz build (fuzz/) an exception that no check turned into a message is a crash, so
    // that the fuzzer keeps the input.
    std::fprintf(stderr, "bankviz-cli: internal error: %s\n", e.what());
    std::abort();
#endif
    return kExitFailed;
  }
  // Output that did not reach its file (a full disk, a closed pipe) is a failure, not success.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "bankviz-cli: cannot write the output: " << std::strerror(errno) << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace bankviz::cli
