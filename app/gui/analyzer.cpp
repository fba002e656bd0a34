// analyzer.cpp: the analysis worker (see analyzer.h).
#include "analyzer.h"

#include <chrono>
#include <exception>
#include <new>

namespace bankviz::gui {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string current_exception_text() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

AnalysisOutcome analyze_draft(const Scenario& s) {
  AnalysisOutcome o;
  o.scenario = s;
  o.errors = check(s);
  if (!o.errors.empty()) return o;
  AnalysisResult r = analyze(s);
  o.analysis = std::move(r.analysis);
  o.errors = std::move(r.errors);
  return o;
}

Analyzer::~Analyzer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Analyzer::set_function(Fn fn) {
  std::lock_guard<std::mutex> lock(mu_);
  fn_ = std::move(fn);
}

uint64_t Analyzer::request(const Scenario& s) {
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = ++latest_;
    queued_ = s;
    queued_id_ = id;
    done_.reset();  // superseded
    requested_at_ = now_seconds();
    if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
  }
  cv_.notify_all();
  return id;
}

std::optional<AnalysisOutcome> Analyzer::take() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<AnalysisOutcome> out = std::move(done_);
  done_.reset();
  return out;
}

bool Analyzer::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_ < latest_;
}

double Analyzer::busy_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_ < latest_ ? now_seconds() - requested_at_ : 0.0;
}

bool Analyzer::wait(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  return done_cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                           [&] { return finished_ >= latest_; });
}

void Analyzer::worker() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || queued_.has_value(); });
    if (stop_) return;
    Scenario s = std::move(*queued_);
    queued_.reset();
    const uint64_t id = queued_id_;
    Fn fn = fn_;
    lock.unlock();
    const double t0 = now_seconds();
    AnalysisOutcome o;
    try {
      o = fn(s);  // the slow part
    } catch (...) {
      // Nothing escapes the worker: the state the UI shows stays as it was.
      o = AnalysisOutcome{};
      try {
        o.failure = "the analysis failed: " + current_exception_text();
      } catch (...) {
        o.failure = "out of memory";  // no memory even for the message (short: no allocation)
      }
    }
    o.id = id;
    o.seconds = now_seconds() - t0;
    lock.lock();
    if (id == latest_) {  // else a newer request superseded it: drop it
      done_ = std::move(o);
      finished_ = id;
      done_cv_.notify_all();
    }
  }
}

}  // namespace bankviz::gui
