// latest_job.h: the app's one mechanism for work off the UI thread.
//
// The UI hands a request over and keeps drawing; a worker thread of the job's own (started by the
// first request) runs the job's function on it; each frame the UI looks at what is done. Only the
// newest request matters: a queued request that a newer one replaces never runs, and a result
// that a newer request superseded is never take()n (last() still shows it, so a panel can keep
// the previous figure while the next one is computed). The function is not interrupted: a run
// that was superseded finishes first (core's analysis and a kernel launch have no cancellation
// hook). Nothing thrown by the function escapes the worker: the job's `fail` function turns the
// exception's text ("out of memory") into a result, so the app keeps running and says why.
//
// The analysis of the draft (analyzer.h), the GPU measurement (measure.h), the advisor
// (advisor.h), the seeds' experiments (compare.h) and the "your kernel" profile (profiler.h) are
// LatestJobs. Exports stream frames from the UI thread to their encoder and have a queue of their
// own (export/export_job.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace bankviz::gui {

// The text for the exception being handled (call inside a catch block): "out of memory" for
// std::bad_alloc, what() for other exceptions.
std::string current_exception_text();

// Seconds on the steady clock.
inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class Request, class Result>
class LatestJob {
 public:
  using Fn = std::function<Result(const Request&)>;
  // The result for a run that threw: `why` is "the run failed: out of memory" style text.
  using FailFn = std::function<Result(const std::string& why)>;
  // Called on the worker with each finished result before it is published (a history, a state).
  using DoneFn = std::function<void(uint64_t id, const Result&)>;

  struct Done {
    uint64_t id = 0;     // the request it answers (request()'s return)
    double seconds = 0;  // how long the function ran
    Result result;
  };

  explicit LatestJob(Fn fn = {}, FailFn fail = {}) : fn_(std::move(fn)), fail_(std::move(fail)) {}
  ~LatestJob() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  LatestJob(const LatestJob&) = delete;
  LatestJob& operator=(const LatestJob&) = delete;

  // Replaces the function (used from the next run); tests inject slow or throwing ones.
  void set_function(Fn fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = std::move(fn);
  }
  void on_done(DoneFn fn) {
    std::lock_guard<std::mutex> lock(mu_);
    on_done_ = std::move(fn);
  }
  // Keep the newest finished result for last() and current() (a measurement shown while the next
  // one runs); off by default, so a large result (an analysis) is not held twice.
  void keep_last(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    keep_last_ = on;
  }
  bool has_function() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<bool>(fn_);
  }

  // Queues the request (a queued one not yet started is replaced) and returns its id (from 1).
  uint64_t request(Request r) {
    uint64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = ++latest_;
      queued_ = std::move(r);
      queued_id_ = id;
      fresh_.reset();  // superseded
      requested_at_ = steady_seconds();
      if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
    }
    cv_.notify_all();
    return id;
  }

  // request() and wait() without the worker: runs the request on the calling thread and
  // publishes its result as the worker would (take(), last(), on_done). Start-up analyses run so
  // (shell reanalyze with wait): in the browser a thread the page's main thread blocks on may
  // never start, because a Web Worker starts through that thread's event loop; so the page's
  // first frame needs no worker (PTHREAD_POOL_DELAY_LOAD, app/web/site.cmake).
  uint64_t run_here(const Request& r) {
    Fn fn;
    FailFn fail;
    DoneFn done;
    uint64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = ++latest_;
      queued_.reset();  // a request still queued is superseded by this one
      fresh_.reset();
      requested_at_ = steady_seconds();
      fn = fn_;
      fail = fail_;
      done = on_done_;
    }
    const double t0 = steady_seconds();
    Done d{id, 0, run_guarded(fn, fail, r)};
    d.seconds = steady_seconds() - t0;
    if (done) done(id, d.result);
    std::lock_guard<std::mutex> lock(mu_);
    if (keep_last_) last_ = d;
    if (id == latest_) {  // else a request made meanwhile (another thread) superseded it
      fresh_ = std::move(d);
      finished_ = id;
      done_cv_.notify_all();
    }
    return id;
  }

  // Called by the running function (on the worker) with an early result, a measurement's figure
  // before its counters: last() and current() show it until the function's own result replaces
  // it; take(), busy() and wait() still wait for the function. Ignored when the run is superseded.
  void progress(Result r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!keep_last_ || running_ == 0 || running_ != latest_) return;
    last_ = Done{running_, steady_seconds() - running_since_, std::move(r)};
  }

  // The newest request's result, once, when it is done; superseded results are never returned.
  std::optional<Done> take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<Done> out = std::move(fresh_);
    fresh_.reset();
    return out;
  }
  // The newest result finished, taken or not, even when a newer request is running (keep_last).
  std::optional<Done> last() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  // last() when it answers the newest request, else none.
  std::optional<Done> current() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_ && last_->id == latest_) return last_;
    return std::nullopt;
  }
  // True while the newest request's result is not ready.
  bool busy() const {
    std::lock_guard<std::mutex> lock(mu_);
    return finished_ < latest_;
  }
  // Seconds since the newest request when busy, else 0.
  double busy_seconds() const {
    std::lock_guard<std::mutex> lock(mu_);
    return finished_ < latest_ ? steady_seconds() - requested_at_ : 0.0;
  }
  // The newest request's id (0 before the first).
  uint64_t latest() const {
    std::lock_guard<std::mutex> lock(mu_);
    return latest_;
  }
  // Blocks until the newest request's result is ready (true) or `seconds` pass (false).
  bool wait(double seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    return done_cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                             [&] { return finished_ >= latest_; });
  }

 private:
  Result run_guarded(const Fn& fn, const FailFn& fail, const Request& r) {
    try {
      if (!fn) throw std::logic_error("no function to run");
      return fn(r);  // the slow part
    } catch (...) {
      std::string why;
      try {
        why = current_exception_text();
      } catch (...) {
        why = "out of memory";  // no memory even for the message
      }
      if (fail) return fail(why);
      return Result{};
    }
  }

  void work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || queued_.has_value(); });
      if (stop_) return;
      Request r = std::move(*queued_);
      queued_.reset();
      const uint64_t id = queued_id_;
      Fn fn = fn_;
      FailFn fail = fail_;
      DoneFn done = on_done_;
      running_ = id;
      running_since_ = steady_seconds();
      const double t0 = running_since_;
      lock.unlock();
      Done d{id, 0, run_guarded(fn, fail, r)};
      d.seconds = steady_seconds() - t0;
      if (done) done(id, d.result);
      lock.lock();
      running_ = 0;
      if (keep_last_) last_ = d;
      if (id == latest_) {  // else a newer request superseded it
        fresh_ = std::move(d);
        finished_ = id;
        done_cv_.notify_all();
      }
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::thread thread_;
  Fn fn_;
  FailFn fail_;
  DoneFn on_done_;
  std::optional<Request> queued_;
  uint64_t latest_ = 0, queued_id_ = 0, finished_ = 0;
  uint64_t running_ = 0;  // the request the function is running for, 0 when none
  double requested_at_ = 0, running_since_ = 0;
  std::optional<Done> fresh_, last_;
  bool keep_last_ = false;
  bool stop_ = false;
};

}  // namespace bankviz::gui
