// remote_run.cpp: run_remote() (remote_run.h).
#include "remote_run.h"

#include <cstdio>

#include "bankviz/codegen.h"
#include "run_json.h"

namespace bankviz {

namespace {

std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace

RunResult run_remote(GpuClient& client, const Scenario& s, const RunOptions& o, bool* lost) {
  RunResult failed;
  failed.mode = o.mode;
  failed.scenario_arch = s.arch;
  failed.status = RunStatus::NoCuda;
  if (lost) *lost = false;
  std::vector<std::string> args{"--file",        "scenario.json",
                                "--mode",        run_mode_name(o.mode),
                                "--json",        "--timing-runs",
                                std::to_string(o.timing_runs), "--launches",
                                std::to_string(o.written_launches), "--timeout-ms",
                                number(o.timeout_ms)};
  if (o.reps > 0) args.insert(args.end(), {"--reps", std::to_string(o.reps)});
  if (!o.counters) args.push_back("--no-counters");
  GpuClient::Outcome out = client.request("run", args, {{"scenario.json", scenario_to_json(s)}});
  if (!out.reply) {
    if (lost) *lost = true;
    failed.message = out.error;
    return failed;
  }
  if (!out.reply->ok) {
    failed.message = client.target().where() + " refused the run: " + out.reply->error;
    return failed;
  }
  ParsedLine p = parse_protocol_line(out.reply->out);
  std::string why = p.error;
  if (p.value) {
    std::optional<RunResult> r = run_result_from_json(*p.value, &why);
    if (r) return *r;
  }
  // No result (a usage error there): its own words.
  failed.message = client.target().where() + ": " +
                   quoted_excerpt(out.reply->err.empty() ? why : out.reply->err, 400);
  return failed;
}

}  // namespace bankviz
