// core's private worker helper (core/src/workers.h): a sweep's points and a lesson's runs of
// scenes, each index once, and a task's exception back in the caller instead of ending the
// program from a worker thread.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "workers.h"

using namespace bankviz;

TEST(Workers, EveryIndexRunsExactlyOnce) {
  for (size_t n : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<std::atomic<int>> runs(n);
    for_each_index(n, [&](size_t i) { ++runs[i]; });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "n " << n << ", index " << i;
  }
}

// A task that runs out of memory (std::bad_alloc under ulimit -v) reaches the caller, which
// says so, after every worker ended; an exception escaping a thread would end the program.
TEST(Workers, ATasksExceptionIsRethrownInTheCaller) {
  std::atomic<int> done{0};
  EXPECT_THROW(for_each_index(200,
                              [&](size_t i) {
                                if (i == 3) throw std::bad_alloc();
                                ++done;
                              }),
               std::bad_alloc);
  EXPECT_LT(done.load(), 200);
  EXPECT_THROW(for_each_index(1, [](size_t) { throw std::runtime_error("x"); }),
               std::runtime_error);
}
