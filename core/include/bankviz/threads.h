// threads.h: whether work core shares among helper threads (a lesson's scenes, a sweep's points,
// advise's candidates: src/workers.h) may start them from the calling thread and wait for them.
//
// The browser's page thread may not: a Web Worker starts only through that thread's event loop,
// so a helper the page thread started and then waits for never starts (the page hangs; the app's
// docs/WEB.md). The app says so for that thread; there the work runs on the calling thread alone.
#pragma once

namespace bankviz {

namespace detail {
inline thread_local bool g_work_alone = false;
}  // namespace detail

// For the calling thread only; a thread it starts begins with helpers allowed.
inline void set_work_alone_on_this_thread(bool alone) {
  detail::g_work_alone = alone;
}
inline bool work_alone_on_this_thread() {
  return detail::g_work_alone;
}

}  // namespace bankviz
