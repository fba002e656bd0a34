// workers.h: independent pieces of work on a worker per core (core's private helper: a sweep's
// points, a lesson's runs of scenes).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "bankviz/threads.h"

namespace bankviz {

// Calls task(i) once for every i in [0, n), on up to kMaxWorkers threads, the caller's included,
// each taking the next index. Where the system gives no more threads (ulimit -u, memory) fewer
// do the work, down to the caller alone. An exception thrown by a task (std::bad_alloc under a
// memory limit) stops the others taking more and is rethrown here, after every thread ended.
// A thread that must work alone (bankviz/threads.h: the browser's page thread) does it all.
template <typename Task>
void for_each_index(size_t n, Task&& task) {
  constexpr size_t kMaxWorkers = 4;
  const size_t workers =
      work_alone_on_this_thread()
          ? 1
          : std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), kMaxWorkers, n});
  std::atomic<size_t> next{0};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failed_mutex);
        if (!failed) failed = std::current_exception();
        next = n;  // the others take nothing more
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: fewer workers
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace bankviz
