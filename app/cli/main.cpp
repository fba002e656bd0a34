// bankviz-cli: the model, the real kernels and the exports, without a window.
//
//   bankviz-cli analyze [scenario]          per-warp table and the two text pictures (--json)
//   bankviz-cli wavefronts --arch A FILE    recorded per-lane addresses -> load/store wavefronts
//   bankviz-cli presets | archs             what can be named
//   bankviz-cli run / source [scenario]     the generated CUDA kernel (when built with kernels)
//   bankviz-cli export --svg OUT            vector pictures for slides
#include "cli_main.h"
#include "stack.h"

int main(int argc, char** argv) {
  // The command, and the workers it starts, run on threads with the model's stack (stack.h).
  return bankviz::run_with_the_model_stack(bankviz::cli::cli_main, argc, argv);
}
