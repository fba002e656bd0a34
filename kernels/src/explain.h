// explain.h (internal): the words of a run that the runner itself writes. The public ones
// (explain_result(), explain_mode(), run_status_name()) are in run_types.h; all live in
// explain.cpp.
#pragma once

#include <string>
#include <vector>

#include "bankviz/run_types.h"

namespace bankviz::detail {

// Why the measurement and the scenario's model may differ, when the scenario simulates another
// architecture than the present GPU's (RunResult::arch_note); empty when they are the same.
std::string arch_note(const Scenario& s, const DeviceInfo& dev);

// Diagnostics, one per line (RunResult::message for a scenario that cannot run).
std::string format_errors(const std::vector<Diagnostic>& errors);

// A step as the timing tables name it: its label, or its kind and subscript ("load tile[tx]").
std::string step_label(const Step& st);

}  // namespace bankviz::detail
