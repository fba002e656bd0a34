// run_json.h: a GPU run's result (kernels/run_types.h RunResult) as JSON and back. `bankviz-cli
// run --json` prints it; a remote GPU (--gpu) and a recorded measurement (recorded.h) carry it,
// and reading it back gives the RunResult a local run would have given, so the CLI's table, the
// explanation and the app's figures come from the one code that shows a local run. No process,
// no CUDA: the browser build reads recorded figures with it too.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bankviz/run_types.h"
#include "bankviz/scenario.h"

namespace bankviz {

// Every field of the result but the kernel's text and NVRTC's log (the scenario regenerates
// them); `s` is the scenario that ran (its name and the explanation's words).
nlohmann::json run_result_json(const Scenario& s, const RunResult& r);
// The result back; nullopt with the reason when the JSON is not one (a missing or mistyped
// field, an unknown status or mode). Numbers out of their field's range are refused.
std::optional<RunResult> run_result_from_json(const nlohmann::json& j, std::string* error);

// A run on a GPU elsewhere, whatever carries it (a process's pipes: remote_run.h; the browser's
// HTTP to `serve --http`): the request (`run --file scenario.json --json` with the options), and
// the RunResult read back from what came back. `reply` empty: nothing came back (`transport`
// says why; *lost is set); a refusal or a run that printed no result is a NoCuda result in words,
// `where` naming the server.
struct Request;
struct Reply;
Request run_request(const Scenario& s, const RunOptions& o);
RunResult run_from_reply(const Scenario& s, const RunOptions& o, const Reply* reply,
                         const std::string& transport, const std::string& where,
                         bool* lost = nullptr);

}  // namespace bankviz
