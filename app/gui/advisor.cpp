// advisor.cpp: the advisor's worker and applying a fix (advisor.h). No ImGui here, so the tests
// drive it without a window.
#include "advisor.h"

#include <chrono>

#include "app_state.h"

namespace bankviz::gui {

void start_advice(AppState& s) {
  AdvisorState& a = s.advisor;
  if (a.job.valid()) return;  // one at a time
  a.asked = s.scenario;
  a.asked_version = s.version;
  a.failure.clear();
  a.job = std::async(std::launch::async, [sc = s.scenario] { return advise(sc); });
}

bool poll_advice(AdvisorState& a) {
  if (!a.job.valid() || a.job.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return false;
  try {
    a.advice = a.job.get();
  } catch (const std::exception& e) {  // out of memory: say so, keep the window working
    a.advice.reset();
    a.failure = e.what();
  }
  return true;
}

void apply_advice(AppState& s, const Fix& f, bool wait) {
  Scenario d = s.advisor.asked;
  apply_fix(d, f);
  s.preset.clear();
  set_draft(s, d, wait);
}

}  // namespace bankviz::gui
