// run_json.cpp: RunResult as JSON and back (run_json.h).
#include "run_json.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "bankviz/codegen.h"
#include "bankviz/counters.h"
#include "bankviz/reference.h"
#include "gpu_protocol.h"

namespace bankviz {

using nlohmann::json;

namespace {

json comparison_json(const CounterComparison& c) {
  if (!c.read) return nullptr;
  return {{"hardware_wavefronts", c.hw_wavefronts},
          {"hardware_instructions", c.hw_instructions},
          {"model_wavefronts", c.model_wavefronts},
          {"model_instructions", c.model_instructions},
          {"agrees", c.agrees()},
          {"model_block0_only", c.model_block0_only},
          {"model_blocks", c.model_blocks},
          {"launch_blocks", c.launch_blocks},
          {"conflicts", c.conflicts}};
}

json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"sm", d.sm},
          {"sm_count", d.sm_count},
          {"clock_mhz", d.clock_khz / 1000.0},
          {"model_arch", d.model_arch},
          {"shared_per_block_optin", d.shared_per_block_optin},
          {"cc", {d.cc_major, d.cc_minor}},
          {"max_threads_per_block", d.max_threads_per_block},
          {"shared_per_block", d.shared_per_block},
          {"shared_per_sm", d.shared_per_sm}};
}

// Reads fields of a JSON object, keeping the first problem with its path.
struct Reader {
  std::string error;

  const json* at(const json& j, const char* key, const std::string& path) {
    if (!error.empty()) return nullptr;
    if (!j.is_object()) {
      error = path + ": not an object";
      return nullptr;
    }
    auto it = j.find(key);
    if (it == j.end()) {
      error = path + "." + key + ": missing";
      return nullptr;
    }
    return &*it;
  }
  template <class T>
  void num(const json& j, const char* key, T& out, const std::string& path) {
    const json* v = at(j, key, path);
    if (!v) return;
    if (!v->is_number()) {
      error = path + "." + key + ": not a number";
      return;
    }
    const double d = v->get<double>();
    if constexpr (std::is_integral_v<T>) {
      if (!v->is_number_integer() || d < static_cast<double>(std::numeric_limits<T>::min()) ||
          d > static_cast<double>(std::numeric_limits<T>::max())) {
        error = path + "." + key + ": not an integer in range";
        return;
      }
      out = v->get<T>();
    } else {
      if (!std::isfinite(d)) {
        error = path + "." + key + ": not finite";
        return;
      }
      out = static_cast<T>(d);
    }
  }
  void str(const json& j, const char* key, std::string& out, const std::string& path,
           bool optional = false) {
    if (optional && j.is_object() && !j.contains(key)) return;
    const json* v = at(j, key, path);
    if (!v) return;
    if (!v->is_string()) {
      error = path + "." + key + ": not a string";
      return;
    }
    out = v->get<std::string>();
  }
  void flag(const json& j, const char* key, bool& out, const std::string& path) {
    const json* v = at(j, key, path);
    if (!v) return;
    if (!v->is_boolean()) {
      error = path + "." + key + ": not true or false";
      return;
    }
    out = v->get<bool>();
  }
  void comparison(const json& j, const char* key, CounterComparison& c, const std::string& path) {
    const json* v = at(j, key, path);
    if (!v || v->is_null()) return;
    const std::string p = path + "." + key;
    c.read = true;
    num(*v, "hardware_wavefronts", c.hw_wavefronts, p);
    num(*v, "hardware_instructions", c.hw_instructions, p);
    num(*v, "model_wavefronts", c.model_wavefronts, p);
    num(*v, "model_instructions", c.model_instructions, p);
    flag(*v, "model_block0_only", c.model_block0_only, p);
    num(*v, "model_blocks", c.model_blocks, p);
    num(*v, "launch_blocks", c.launch_blocks, p);
    flag(*v, "conflicts", c.conflicts, p);
  }
};

template <class E, class NameOf>
bool enum_named(const std::string& name, E last, NameOf name_of, E& out) {
  for (int i = 0; i <= static_cast<int>(last); ++i)
    if (name == name_of(static_cast<E>(i))) {
      out = static_cast<E>(i);
      return true;
    }
  return false;
}

}  // namespace

json run_result_json(const Scenario& s, const RunResult& r) {
  json j;
  j["scenario"] = s.name;
  j["mode"] = run_mode_name(r.mode);
  j["status"] = run_status_name(r.status);
  if (!r.message.empty()) j["message"] = r.message;
  j["scenario_arch"] = r.scenario_arch;
  if (!r.arch_note.empty()) j["arch_note"] = r.arch_note;
  if (r.status == RunStatus::Ok) j["explanation"] = explain_result(s, r);
  if (r.device.present) j["device"] = device_json(r.device);
  j["compile_ms"] = r.compile_ms;
  j["cache_hit"] = r.cache_hit;
  j["run_ms"] = r.run_ms;
  const Verification& v = r.verification;
  j["verification"] = {{"status", verify_status_name(v.status)},
                       {"summary", v.summary},
                       {"checked", v.checked},
                       {"unchecked", v.unchecked},
                       {"mismatches", v.mismatches}};
  json first = json::array();
  for (const Mismatch& m : v.first)
    first.push_back({{"block", m.block},
                     {"thread", {m.x, m.y, m.z}},
                     {"thread_index", m.thread},
                     {"expected", m.expected},
                     {"got", m.got}});
  j["verification"]["first"] = first;
  j["races"] = r.races;
  j["counters"] = {{"status", counter_status_name(r.counters)},
                   {"ms", r.counters_ms},
                   {"timing", r.counters_timing}};
  if (!r.counters_message.empty()) j["counters"]["message"] = r.counters_message;
  if (r.status == RunStatus::Ok && r.mode == RunMode::Written) {
    j["written"] = {{"grid", r.written.grid},
                    {"launches", r.written.launches},
                    {"us_per_launch", r.written.us_per_launch},
                    {"us_single", r.written.us_single},
                    {"hardware", comparison_json(r.written.hw)}};
  }
  if (r.status == RunStatus::Ok && r.mode == RunMode::Exposed) {
    json steps = json::array();
    for (const StepTiming& t : r.exposed.steps)
      steps.push_back({{"step", t.step},
                       {"label", t.label},
                       {"kind", t.kind},
                       {"reps", t.reps},
                       {"instructions_per_block", t.instructions_per_block},
                       {"ms", t.ms},
                       {"cycles_per_instruction", t.cycles_per_instruction},
                       {"model_wavefronts", t.model_wavefronts},
                       {"predicted_cycles", t.predicted_cycles},
                       {"prediction", t.prediction},
                       {"scenario_wavefronts", t.scenario_wavefronts},
                       {"ratio", t.ratio},
                       {"bytes_per_clock_per_sm", t.bytes_per_clock_per_sm},
                       {"grid", t.grid},
                       {"blocks_per_sm", t.blocks_per_sm},
                       {"block_threads", t.block_threads},
                       {"lesson_warps", t.lesson_warps},
                       {"replicas", t.replicas},
                       {"baseline_ms", t.baseline_ms},
                       {"baseline_launch", t.baseline_launch},
                       {"measured_launch", t.measured_launch},
                       {"schedulers", t.schedulers},
                       {"active_warps_per_sm", t.active_warps_per_sm},
                       {"shared_bound", t.shared_bound},
                       {"copy_bound", t.copy_bound},
                       {"hardware", comparison_json(t.hw)}});
    j["exposed"] = {{"grid", r.exposed.grid},
                    {"blocks_per_sm", r.exposed.blocks_per_sm},
                    {"baseline_ms", r.exposed.baseline_ms},
                    {"steps", steps}};
  }
  return j;
}

std::optional<RunResult> run_result_from_json(const json& j, std::string* error) {
  Reader rd;
  RunResult r;
  std::string mode, status, verify, counters;
  rd.str(j, "mode", mode, "run");
  rd.str(j, "status", status, "run");
  if (rd.error.empty()) {
    if (std::optional<RunMode> m = parse_run_mode(mode))
      r.mode = *m;
    else
      rd.error = "run.mode: '" + mode + "' is not written or exposed";
  }
  if (rd.error.empty() && !enum_named(status, RunStatus::Timeout, run_status_name, r.status))
    rd.error = "run.status: '" + status + "' is no run status";
  rd.str(j, "message", r.message, "run", true);
  rd.str(j, "scenario_arch", r.scenario_arch, "run");
  rd.str(j, "arch_note", r.arch_note, "run", true);
  if (rd.error.empty() && j.contains("device")) {
    const json& d = j["device"];
    DeviceInfo& info = r.device;
    info.present = true;
    rd.str(d, "name", info.name, "run.device");
    rd.str(d, "sm", info.sm, "run.device");
    rd.num(d, "sm_count", info.sm_count, "run.device");
    double mhz = 0;
    rd.num(d, "clock_mhz", mhz, "run.device");
    info.clock_khz = static_cast<int>(std::lround(std::clamp(mhz, 0.0, 1e6) * 1000));
    rd.str(d, "model_arch", info.model_arch, "run.device");
    rd.num(d, "shared_per_block_optin", info.shared_per_block_optin, "run.device");
    if (d.contains("cc") && d["cc"].is_array() && d["cc"].size() == 2 &&
        d["cc"][0].is_number_integer() && d["cc"][1].is_number_integer()) {
      info.cc_major = static_cast<int>(std::clamp<int64_t>(d["cc"][0].get<int64_t>(), 0, 99));
      info.cc_minor = static_cast<int>(std::clamp<int64_t>(d["cc"][1].get<int64_t>(), 0, 99));
    }
    if (d.contains("max_threads_per_block"))
      rd.num(d, "max_threads_per_block", info.max_threads_per_block, "run.device");
    for (auto [key, field] : {std::pair{"shared_per_block", &info.shared_per_block},
                              std::pair{"shared_per_sm", &info.shared_per_sm}})
      if (d.contains(key)) rd.num(d, key, *field, "run.device");
  }
  rd.num(j, "compile_ms", r.compile_ms, "run");
  rd.flag(j, "cache_hit", r.cache_hit, "run");
  rd.num(j, "run_ms", r.run_ms, "run");
  if (const json* v = rd.at(j, "verification", "run")) {
    rd.str(*v, "status", verify, "run.verification");
    if (rd.error.empty() &&
        !enum_named(verify, VerifyStatus::NotRun, verify_status_name, r.verification.status))
      rd.error = "run.verification.status: '" + verify + "' is no verification status";
    rd.str(*v, "summary", r.verification.summary, "run.verification");
    rd.num(*v, "checked", r.verification.checked, "run.verification");
    rd.num(*v, "unchecked", r.verification.unchecked, "run.verification");
    rd.num(*v, "mismatches", r.verification.mismatches, "run.verification");
    if (const json* f = rd.at(*v, "first", "run.verification"); f && f->is_array()) {
      for (const json& m : *f) {
        if (r.verification.first.size() >= 64) break;
        Mismatch x;
        rd.num(m, "block", x.block, "run.verification.first");
        if (m.contains("thread_index"))
          rd.num(m, "thread_index", x.thread, "run.verification.first");
        rd.num(m, "expected", x.expected, "run.verification.first");
        rd.num(m, "got", x.got, "run.verification.first");
        if (const json* t = rd.at(m, "thread", "run.verification.first");
            t && t->is_array() && t->size() == 3 && (*t)[0].is_number_integer() &&
            (*t)[1].is_number_integer() && (*t)[2].is_number_integer()) {
          x.x = (*t)[0].get<int64_t>();
          x.y = (*t)[1].get<int64_t>();
          x.z = (*t)[2].get<int64_t>();
        }
        r.verification.first.push_back(x);
      }
    }
  }
  if (const json* races = rd.at(j, "races", "run"); races && races->is_array())
    for (const json& race : *races)
      if (race.is_string() && r.races.size() < 4096) r.races.push_back(race.get<std::string>());
  if (const json* c = rd.at(j, "counters", "run")) {
    rd.str(*c, "status", counters, "run.counters");
    if (rd.error.empty() &&
        !enum_named(counters, CounterStatus::Failed, counter_status_name, r.counters))
      rd.error = "run.counters.status: '" + counters + "' is no counter status";
    rd.num(*c, "ms", r.counters_ms, "run.counters");
    rd.str(*c, "timing", r.counters_timing, "run.counters");
    rd.str(*c, "message", r.counters_message, "run.counters", true);
  }
  if (rd.error.empty() && r.status == RunStatus::Ok && r.mode == RunMode::Written) {
    if (const json* w = rd.at(j, "written", "run")) {
      rd.num(*w, "grid", r.written.grid, "run.written");
      rd.num(*w, "launches", r.written.launches, "run.written");
      rd.num(*w, "us_per_launch", r.written.us_per_launch, "run.written");
      rd.num(*w, "us_single", r.written.us_single, "run.written");
      rd.comparison(*w, "hardware", r.written.hw, "run.written");
    }
  }
  if (rd.error.empty() && r.status == RunStatus::Ok && r.mode == RunMode::Exposed) {
    if (const json* e = rd.at(j, "exposed", "run")) {
      rd.num(*e, "grid", r.exposed.grid, "run.exposed");
      rd.num(*e, "blocks_per_sm", r.exposed.blocks_per_sm, "run.exposed");
      rd.num(*e, "baseline_ms", r.exposed.baseline_ms, "run.exposed");
      const json* steps = rd.at(*e, "steps", "run.exposed");
      if (steps && !steps->is_array()) rd.error = "run.exposed.steps: not an array";
      if (steps && steps->is_array()) {
        for (const json& s : *steps) {
          if (!rd.error.empty() || r.exposed.steps.size() >= 4096) break;
          const std::string p = "run.exposed.steps[" + std::to_string(r.exposed.steps.size()) + "]";
          StepTiming t;
          rd.num(s, "step", t.step, p);
          rd.str(s, "label", t.label, p);
          rd.str(s, "kind", t.kind, p);
          rd.num(s, "reps", t.reps, p);
          rd.num(s, "instructions_per_block", t.instructions_per_block, p);
          rd.num(s, "ms", t.ms, p);
          rd.num(s, "cycles_per_instruction", t.cycles_per_instruction, p);
          rd.num(s, "model_wavefronts", t.model_wavefronts, p);
          rd.num(s, "predicted_cycles", t.predicted_cycles, p);
          rd.str(s, "prediction", t.prediction, p);
          rd.num(s, "scenario_wavefronts", t.scenario_wavefronts, p);
          rd.num(s, "ratio", t.ratio, p);
          rd.num(s, "bytes_per_clock_per_sm", t.bytes_per_clock_per_sm, p);
          rd.num(s, "grid", t.grid, p);
          rd.num(s, "blocks_per_sm", t.blocks_per_sm, p);
          rd.num(s, "block_threads", t.block_threads, p);
          rd.num(s, "lesson_warps", t.lesson_warps, p);
          rd.num(s, "replicas", t.replicas, p);
          rd.num(s, "baseline_ms", t.baseline_ms, p);
          rd.num(s, "baseline_launch", t.baseline_launch, p);
          rd.num(s, "measured_launch", t.measured_launch, p);
          rd.num(s, "schedulers", t.schedulers, p);
          rd.num(s, "active_warps_per_sm", t.active_warps_per_sm, p);
          rd.flag(s, "shared_bound", t.shared_bound, p);
          if (s.contains("copy_bound")) rd.flag(s, "copy_bound", t.copy_bound, p);
          rd.comparison(s, "hardware", t.hw, p);
          r.exposed.steps.push_back(std::move(t));
        }
      }
    }
  }
  if (!rd.error.empty()) {
    *error = rd.error;
    return std::nullopt;
  }
  return r;
}

namespace {

std::string number17(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace

Request run_request(const Scenario& s, const RunOptions& o) {
  Request q;
  q.request = "run";
  q.args = {"--file",
            "scenario.json",
            "--mode",
            run_mode_name(o.mode),
            "--json",
            "--timing-runs",
            std::to_string(o.timing_runs),
            "--launches",
            std::to_string(o.written_launches),
            "--timeout-ms",
            number17(o.timeout_ms)};
  if (o.reps > 0) q.args.insert(q.args.end(), {"--reps", std::to_string(o.reps)});
  if (!o.counters) q.args.push_back("--no-counters");
  q.files = {{"scenario.json", scenario_to_json(s)}};
  return q;
}

RunResult run_from_reply(const Scenario& s, const RunOptions& o, const Reply* reply,
                         const std::string& transport, const std::string& where, bool* lost) {
  RunResult failed;
  failed.mode = o.mode;
  failed.scenario_arch = s.arch;
  failed.status = RunStatus::NoCuda;
  if (lost) *lost = reply == nullptr;
  if (!reply) {
    failed.message = transport;
    return failed;
  }
  if (!reply->ok) {
    failed.message = where + " refused the run: " + reply->error;
    return failed;
  }
  ParsedLine p = parse_protocol_line(reply->out);
  std::string why = p.error;
  if (p.value) {
    std::optional<RunResult> r = run_result_from_json(*p.value, &why);
    if (r) return *r;
  }
  // No result (a usage error there): its own words.
  failed.message = where + ": " + quoted_excerpt(reply->err.empty() ? why : reply->err, 400);
  return failed;
}

}  // namespace bankviz
