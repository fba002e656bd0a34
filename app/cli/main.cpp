// bankviz-cli: the model, the real kernels and the exports, without a window.
//
//   bankviz-cli analyze [scenario]          per-warp table and the two text pictures (--json)
//   bankviz-cli wavefronts --arch A FILE    recorded per-lane addresses -> load/store wavefronts
//   bankviz-cli presets | archs             what can be named
//   bankviz-cli run / source [scenario]     the generated CUDA kernel (when built with kernels)
//   bankviz-cli export --svg OUT            vector pictures for slides
#include <pthread.h>

#include <cstddef>

#include "cli_main.h"

namespace {

// Parsing, binding and evaluating recurse: an expression nested as deep as allowed (200 levels)
// needs about 1 MiB of stack, more than `ulimit -s 512` gives (it ended by SIGSEGV; at 64 KiB so
// did a plain analyze). The command runs on a thread with its own stack of this size, and so do
// the workers it starts (the thread default), whatever the stack limit.
constexpr size_t kStackBytes = size_t{16} << 20;

struct Call {
  int argc = 0;
  char** argv = nullptr;
  int status = 1;
};

void* run(void* p) {
  auto* c = static_cast<Call*>(p);
  c->status = bankviz::cli::cli_main(c->argc, c->argv);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  Call call{argc, argv, 1};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) == 0) {
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
                         pthread_setattr_default_np(&attr) == 0 &&
                         pthread_create(&thread, &attr, run, &call) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      pthread_join(thread, nullptr);
      return call.status;
    }
  }
  // No thread to be had (ulimit -u): the process's own stack.
  return bankviz::cli::cli_main(argc, argv);
}
