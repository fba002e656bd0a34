// scenario_json.h (private to core/src): the Scenario <-> JSON value conversion shared by
// scenario.cpp (files) and text.cpp (the --json analysis embeds the scenario it analyzed).
#pragma once

#include <nlohmann/json.hpp>

#include "bankviz/scenario.h"

namespace bankviz::detail {

// ordered_json keeps keys in the order written, so files and output read the same way round.
using Json = nlohmann::ordered_json;

Json scenario_to_json_value(const Scenario& s);

}  // namespace bankviz::detail
