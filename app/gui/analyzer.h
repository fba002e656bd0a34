// analyzer.h: analysis of the draft on a worker thread, so a large scenario never freezes the
// window.
//
// Like the Measurer (measure.h): the UI hands the draft over and keeps drawing the last good
// picture, marked stale, while the worker runs check() and analyze(); each frame it takes the
// outcome of its newest request. An outcome for a request that a newer one has superseded is
// dropped (core's analysis has no cancellation hook, so the worker finishes it first). Nothing
// thrown on the worker escapes: an exception, out of memory included, becomes the outcome's
// failure and the app keeps its last good state.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz::gui {

// What analyzing one draft gave: an analysis, the draft's errors, or why it failed.
struct AnalysisOutcome {
  uint64_t id = 0;  // the request it answers
  Scenario scenario;
  std::optional<Analysis> analysis;  // set when the draft analyzed cleanly
  std::vector<Diagnostic> errors;    // check()'s, then analyze()'s; empty when analysis is set
  std::string failure;               // an exception's text ("out of memory ..."); then neither
  double seconds = 0;                // time the analysis took
};

// check() then analyze(): the default analysis function. May throw (out of memory).
AnalysisOutcome analyze_draft(const Scenario& s);

// The text for the exception being handled (call inside a catch block): "out of memory" for
// std::bad_alloc, what() for other exceptions.
std::string current_exception_text();

class Analyzer {
 public:
  using Fn = std::function<AnalysisOutcome(const Scenario&)>;

  explicit Analyzer(Fn fn = analyze_draft) : fn_(std::move(fn)) {}
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // Replaces the analysis function (tests inject slow or throwing ones); used from the next run.
  void set_function(Fn fn);
  // Queues the draft (a queued, not yet started one is replaced) and returns the request's id.
  uint64_t request(const Scenario& s);
  // The outcome of the newest request, once, when it is done; older outcomes are never returned.
  std::optional<AnalysisOutcome> take();
  // True while the newest request's outcome is not ready.
  bool busy() const;
  // Seconds since the newest request when busy, else 0.
  double busy_seconds() const;
  // Blocks until the newest request's outcome is ready (true) or `seconds` pass (false).
  bool wait(double seconds);

 private:
  void worker();
  Fn fn_;
  mutable std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::thread thread_;
  std::optional<Scenario> queued_;
  uint64_t latest_ = 0;  // id of the newest request
  uint64_t queued_id_ = 0;
  std::optional<AnalysisOutcome> done_;  // the newest request's outcome, until taken
  uint64_t finished_ = 0;                // id of the newest outcome ready or taken
  double requested_at_ = 0;              // steady-clock seconds of the newest request
  bool stop_ = false;
};

}  // namespace bankviz::gui
