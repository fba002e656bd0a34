// advisor.cpp: the advisor's worker and applying a fix (advisor.h). No ImGui here, so the tests
// drive it without a window.
#include "advisor/advisor.h"

#include "shell/app_state.h"

namespace bankviz::gui {

AdvisorState::AdvisorState()
    : job(
          [](const Scenario& sc) {
            return AdviceOutcome{advise(sc), {}};
          },
          // Out of memory: say so, keep the window working.
          [](const std::string& why) {
            return AdviceOutcome{std::nullopt, why};
          }) {}

void start_advice(AppState& s) {
  AdvisorState& a = s.advisor;
  if (a.job.busy()) return;  // one at a time: the advice shown is about `asked`
  a.asked = s.scenario;
  a.asked_version = s.version;
  a.failure.clear();
  a.job.request(s.scenario);
}

bool poll_advice(AdvisorState& a) {
  auto done = a.job.take();
  if (!done) return false;
  a.advice = std::move(done->result.advice);
  a.failure = std::move(done->result.failure);
  return true;
}

void apply_advice(AppState& s, const Fix& f, bool wait) {
  Scenario d = s.advisor.asked;
  apply_fix(d, f);
  s.preset.clear();
  set_draft(s, d, wait);
}

}  // namespace bankviz::gui
