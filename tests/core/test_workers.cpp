// core's private worker helper (core/src/workers.h): a sweep's points and a lesson's runs of
// scenes, each index once, and a task's exception back in the caller instead of ending the
// program from a worker thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bankviz/threads.h"
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

// A thread that must work alone (bankviz/threads.h: the browser's page thread, which a helper it
// waited for would hang) runs every index itself, in order; other threads still share the work,
// and a thread it starts begins with helpers allowed.
TEST(Workers, AThreadThatWorksAloneRunsEveryIndexItself) {
  const std::thread::id me = std::this_thread::get_id();
  set_work_alone_on_this_thread(true);
  std::vector<size_t> order;
  std::vector<std::thread::id> who;
  for_each_index(64, [&](size_t i) {  // no lock: only this thread may run them
    order.push_back(i);
    who.push_back(std::this_thread::get_id());
  });
  bool started_alone = true;
  std::thread([&] { started_alone = work_alone_on_this_thread(); }).join();
  set_work_alone_on_this_thread(false);
  ASSERT_EQ(order.size(), 64u);
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i], i);
    EXPECT_EQ(who[i], me);
  }
  EXPECT_FALSE(started_alone);
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: no helper to compare";
  std::mutex m;
  std::set<std::thread::id> shared;
  for_each_index(64, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::lock_guard<std::mutex> lock(m);
    shared.insert(std::this_thread::get_id());
  });
  EXPECT_GT(shared.size(), 1u);
}
