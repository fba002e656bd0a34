// advisor.h: the advisor panel's state and the CuTe layout field's (panel_advisor.cpp).
//
// The advice runs on a worker (a LatestJob, jobs/latest_job.h) over a copy of the analyzed
// scenario: every candidate is a full analyze() (core/advise.h), up to a few seconds for the
// largest presets, so the window keeps drawing. Applying a fix sets the draft like any other edit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bankviz/advise.h"
#include "bankviz/scenario.h"
#include "jobs/latest_job.h"

namespace bankviz::gui {

// One tile's layout text field: the user's text is kept while it does not parse.
struct LayoutField {
  std::string text;            // what the field shows
  std::string shown;           // the tile's layout_text() when the field last took it
  std::string error;           // the parse error of `text`, empty when it parsed
  std::string elem;            // the element type `text` was read for (byte swizzles depend on it)
  std::string note, note_for;  // the tile's layout_note() and the layout it was computed for
};

// What advising one scenario gave: the advice, or why it failed (out of memory).
struct AdviceOutcome {
  std::optional<Advice> advice;
  std::string failure;
};

struct AdvisorState {
  AdvisorState();
  bool open = false;                       // the window (key A, toolbar)
  LatestJob<Scenario, AdviceOutcome> job;  // core's advise() of `asked`; busy() while running
  Scenario asked;                          // the scenario the advice (or the job) is about
  int asked_version = -1;                  // AppState::version it was asked at
  std::optional<Advice> advice;            // the last finished advice
  std::string failure;                     // the job threw (out of memory): the reason
  std::vector<LayoutField> layouts;        // per tile of the draft
};

struct AppState;

// advisor.cpp: the worker. start_advice() asks about the current analyzed scenario (s.scenario);
// poll_advice() takes a finished advice (true when it did); apply_advice() makes the draft the
// asked scenario with the fix applied and re-analyzes it (wait: as set_draft's).
void start_advice(AppState& s);
bool poll_advice(AdvisorState& a);
void apply_advice(AppState& s, const Fix& f, bool wait = false);

}  // namespace bankviz::gui
