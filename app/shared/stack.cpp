// stack.cpp: the model's stack for both programs (stack.h).
#include "stack.h"

#include <pthread.h>
#include <sys/resource.h>

namespace bankviz {

namespace {

struct Call {
  int (*program)(int, char**) = nullptr;
  int argc = 0;
  char** argv = nullptr;
  int status = 1;
};

void* call(void* p) {
  auto* c = static_cast<Call*>(p);
  c->status = c->program(c->argc, c->argv);
  return nullptr;
}

bool model_stack_by_default() {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  const bool ok = pthread_attr_setstacksize(&attr, kModelStackBytes) == 0 &&
                  pthread_setattr_default_np(&attr) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

void let_the_main_stack_grow() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kModelStackBytes)
    return;
  const rlim_t want = static_cast<rlim_t>(kModelStackBytes);
  limit.rlim_cur =
      limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= want ? want : limit.rlim_max;
  ::setrlimit(RLIMIT_STACK, &limit);
}

}  // namespace

int run_with_the_model_stack(int (*program)(int, char**), int argc, char** argv) {
#ifdef __EMSCRIPTEN__
  // The browser's page thread owns the canvas and must not block on another thread: the program
  // runs on it, with the model's stack given at link time (app/web/site.cmake: TOTAL_STACK).
  return program(argc, argv);
#endif
  Call c{program, argc, argv, 1};
  pthread_attr_t attr;
  if (model_stack_by_default() && pthread_attr_init(&attr) == 0) {
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, kModelStackBytes) == 0 &&
                         pthread_create(&thread, &attr, call, &c) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      pthread_join(thread, nullptr);
      return c.status;
    }
  }
  let_the_main_stack_grow();
  return program(argc, argv);
}

}  // namespace bankviz
