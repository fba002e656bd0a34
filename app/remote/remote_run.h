// remote_run.h: Runner::run() on a GPU elsewhere: the scenario sent to the client's `bankviz-cli
// serve` as `run --file S --json` and its result read back (run_json.h), so a caller (the app's
// Measurer, `measure --gpu`) gets the RunResult a local run would have given.
#pragma once

#include <string>

#include "bankviz/run_types.h"
#include "bankviz/scenario.h"
#include "gpu_client.h"

namespace bankviz {

// A failure to reach the GPU is a RunResult with status NoCuda and the client's message; *lost
// (when given) is set true then (the connection, not the kernel, failed).
RunResult run_remote(GpuClient& client, const Scenario& s, const RunOptions& o,
                     bool* lost = nullptr);

}  // namespace bankviz
