// analyzer.cpp: the analysis worker (see analyzer.h).
#include "jobs/analyzer.h"

namespace bankviz::gui {

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

Analyzer::Analyzer(Fn fn)
    : job_(std::move(fn), [](const std::string& why) {
        AnalysisOutcome o;
        o.failure = "the analysis failed: " + why;
        return o;
      }) {}

std::optional<AnalysisOutcome> Analyzer::take() {
  std::optional<LatestJob<Scenario, AnalysisOutcome>::Done> d = job_.take();
  if (!d) return std::nullopt;
  d->result.id = d->id;
  d->result.seconds = d->seconds;
  return std::move(d->result);
}

}  // namespace bankviz::gui
