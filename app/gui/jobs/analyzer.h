// analyzer.h: analysis of the draft on a worker thread, so a large scenario never freezes the
// window.
//
// A LatestJob (latest_job.h): the UI hands the draft over and keeps drawing the last good picture,
// marked stale, while the worker runs check() and analyze(); each frame it takes the outcome of
// its newest request. An outcome for a request that a newer one has superseded is dropped.
// Nothing thrown on the worker escapes: an exception, out of memory included, becomes the
// outcome's failure and the app keeps its last good state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"
#include "jobs/latest_job.h"

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

class Analyzer {
 public:
  using Fn = std::function<AnalysisOutcome(const Scenario&)>;

  explicit Analyzer(Fn fn = analyze_draft);

  // Replaces the analysis function (tests inject slow or throwing ones); used from the next run.
  void set_function(Fn fn) { job_.set_function(std::move(fn)); }
  // Queues the draft (a queued, not yet started one is replaced) and returns the request's id.
  uint64_t request(const Scenario& s) { return job_.request(s); }
  // The draft analysed now, on the calling thread (latest_job.h run_here: start-up, no worker).
  uint64_t run_here(const Scenario& s) { return job_.run_here(s); }
  // The outcome of the newest request, once, when it is done; older outcomes are never returned.
  std::optional<AnalysisOutcome> take();
  // True while the newest request's outcome is not ready.
  bool busy() const { return job_.busy(); }
  // Seconds since the newest request when busy, else 0.
  double busy_seconds() const { return job_.busy_seconds(); }
  // Blocks until the newest request's outcome is ready (true) or `seconds` pass (false).
  bool wait(double seconds) { return job_.wait(seconds); }

 private:
  LatestJob<Scenario, AnalysisOutcome> job_;
};

}  // namespace bankviz::gui
