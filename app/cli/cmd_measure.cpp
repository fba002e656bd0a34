// cmd_measure.cpp: `bankviz-cli measure --out FILE`: a recorded set (app/shared/recorded.h) made
// on this GPU or one elsewhere (--gpu, --gpu-command): every preset in both modes with its
// counters, every lesson scene, the Compare menu's one-change variants of each preset, each
// preset's standard sweep (pad=0..32, the sweep window's first range) and the seeds' experiments;
// the device, its driver, the date, bankviz's version and the model's rules version with it.
#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "bankviz/arch.h"
#include "bankviz/compare.h"
#include "bankviz/driver_version.h"
#include "bankviz/io.h"
#include "bankviz/lesson.h"
#include "bankviz/runner.h"
#include "catalog.h"
#include "cli_main.h"
#include "commands.h"
#include "common.h"
#include "gpu_client.h"
#include "recorded.h"
#include "remote_run.h"
#include "run_json.h"

namespace bankviz::cli {
namespace {

struct MeasureOptions {
  std::string out;
  bool force = false;
  double budget_s = 0;                // 0: no limit
  std::vector<std::string> only;      // --preset NAME (repeatable): these presets only
  bool no_sweeps = false;
  std::string resume;  // --resume FILE: an earlier set's runs kept
  GpuFlags gpu;
};

// One scenario to measure: its name in the set and whether its counters are read (the presets
// and scenes: the measurement panel's rows) or only its figure (variants and sweep points).
struct Job {
  std::string name;
  Scenario scenario;
  RunMode mode;
  bool counters;
};

std::vector<Job> plan_jobs(const MeasureOptions& o) {
  std::vector<Job> jobs;
  std::set<std::string> seen;
  auto add = [&](const std::string& name, const Scenario& s, RunMode m, bool counters) {
    if (!analyze(s).analysis) return;  // a variant that does not analyze is nothing to measure
    if (seen.insert(scenario_identity(s) + run_mode_name(m)).second)
      jobs.push_back({name, s, m, counters});
  };
  std::vector<std::string> presets = o.only.empty() ? preset_names() : o.only;
  std::vector<std::pair<std::string, Scenario>> bases;
  for (const std::string& p : presets) {
    ScenarioOptions so;
    so.preset = p;
    bases.emplace_back(p, build_scenario(so));
  }
  for (const auto& [name, s] : bases)
    for (RunMode m : {RunMode::Exposed, RunMode::Written}) add(name, s, m, true);
  // The lessons' scenes (a scene may embed its own scenario or open a preset elsewhere).
  if (o.only.empty())
    for (const std::string& l : catalog_names("lessons")) {
      std::string why;
      LessonLoad lesson = load_lesson_file(catalog_path("lessons", l, &why));
      if (!lesson.lesson) continue;
      int n = 0;
      for (const Scene& scene : lesson.lesson->scenes) {
        ++n;
        ScenarioLoad sl = scene_scenario(scene, assets_dir() + "/presets");
        if (!sl.scenario) continue;
        for (RunMode m : {RunMode::Exposed, RunMode::Written})
          add(l + " scene " + std::to_string(n), *sl.scenario, m, true);
      }
    }
  // The Compare menu's one-change variants of each preset (app/gui/compare's compare_choices).
  for (const auto& [name, s] : bases) {
    if (s.tiles.empty()) continue;
    const TileDecl& t = s.tiles[0];
    std::vector<std::pair<std::string, std::string>> changes{
        {"pad", std::to_string(t.pad + 1)}, {"swizzle", "5,0,5"}, {"elem", "float2"},
        {"elem", "float"}};
    if (t.pad > 0) changes.push_back({"pad", "0"});
    if (t.swizzle.bits != 0) changes.push_back({"swizzle", "none"});
    for (const auto& [param, value] : changes) {
      ScenarioLoad v = apply_sweep_value(s, param, value);
      if (v.scenario) add(name + " " + param + "=" + value, *v.scenario, RunMode::Exposed, false);
    }
  }
  // Each preset's standard sweep: the sweep window's first range of its first parameter, value by
  // value across the presets (a budget that ends early leaves every preset's first values in).
  if (!o.no_sweeps) {
    const SweepParse sp = parse_sweep(std::string(kSweepParams[0]) + "=" + kSweepFirstValues[0]);
    for (size_t v = 0; sp.spec && v < sp.spec->values.size(); ++v)
      for (const auto& [name, s] : bases) {
        ScenarioLoad point = apply_sweep_value(s, sp.spec->param, sp.spec->values[v]);
        if (point.scenario)
          add(name + " " + sp.spec->param + "=" + sp.spec->values[v], *point.scenario,
              RunMode::Exposed, false);
      }
  }
  return jobs;
}

std::string today_utc() {
  char day[16];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(day, sizeof day, "%Y-%m-%d", &tm);
  return day;
}

void run_measure(const MeasureOptions& o) {
  if (std::string why = output_problem(o.out, o.force); !why.empty()) throw Exit{kExitFailed, why};
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Job> jobs = plan_jobs(o);
  // Locally, or on the GPU of --gpu / --gpu-command, one connection for every run.
  std::unique_ptr<GpuClient> client;
  std::unique_ptr<Runner> runner;
  if (!o.gpu.host.empty() || !o.gpu.command.empty()) {
    GpuTarget target{o.gpu.host, o.gpu.command};
    target.request_timeout_s = o.gpu.timeout_s;
    if (std::string why = target.problem(); !why.empty()) throw Exit{kExitUsage, why};
    client = std::make_unique<GpuClient>(target);
    if (std::string why = client->connect(); !why.empty()) throw Exit{kExitFailed, why};
    if (std::string why = client->require_gpu(); !why.empty()) throw Exit{kExitFailed, why};
  } else {
    runner = std::make_unique<Runner>();
    std::string why;
    if (!runner->device(&why).present) throw Exit{kExitFailed, "measure needs a GPU: " + why};
  }
  RecordedSet set;
  set.bankviz = BANKVIZ_VERSION;
  set.rules_version = kModelRulesVersion;
  set.date = today_utc();
  // --resume: the runs of an earlier set (same version, rules and GPU) are kept and not run again.
  if (!o.resume.empty()) {
    TextRead in = read_text_file(o.resume, kMaxRecordedBytes);
    if (!in.text) throw Exit{kExitFailed, in.error};
    std::string why;
    std::optional<RecordedSet> old = parse_recorded_set(*in.text, &why);
    if (!old) throw Exit{kExitFailed, o.resume + ": " + why};
    if (old->bankviz != set.bankviz || old->rules_version != set.rules_version)
      throw Exit{kExitFailed, o.resume + ": recorded by bankviz " + old->bankviz +
                                  " with rules version " + std::to_string(old->rules_version) +
                                  ": measure it again whole"};
    set = std::move(*old);
    set.date = today_utc();
  }
  // The seeds' experiments, as `experiments --run --json` reports them (first: a budget that
  // ends leaves the sweeps' last points out, not these).
  if (o.only.empty() && set.experiments.empty()) {
    if (client) {
      GpuClient::Outcome out = client->request("experiments", {"--run", "--json"}, {});
      if (out.reply && out.reply->ok) {
        nlohmann::json a = nlohmann::json::parse(out.reply->out, nullptr, false);
        if (a.is_array()) set.experiments = a;
      }
    } else {
      std::ostringstream captured;
      std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
      std::vector<std::string> args{"bankviz-cli", "experiments", "--run", "--json"};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      cli_main(static_cast<int>(args.size()), argv.data());
      std::cout.rdbuf(saved);
      nlohmann::json a = nlohmann::json::parse(captured.str(), nullptr, false);
      if (a.is_array()) set.experiments = a;
    }
    std::cerr << "measure: experiments: " << set.experiments.size() << "\n";
  }
  size_t done = 0, failed = 0, skipped = 0;
  for (const Job& job : jobs) {
    if (set.runs.count(scenario_identity(job.scenario) + ' ' + run_mode_name(job.mode))) continue;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (o.budget_s > 0 && elapsed > o.budget_s) {
      ++skipped;
      continue;
    }
    RunOptions ro;
    ro.mode = job.mode;
    ro.counters = job.counters;
    // A figure alone (a variant, a sweep's point): 3 timed repetitions, the best kept; the presets
    // and scenes with the default 5 and their counters.
    if (!job.counters) ro.timing_runs = 3;
    bool lost = false;
    const RunResult r = client ? run_remote(*client, job.scenario, ro, &lost)
                               : runner->run(job.scenario, ro);
    if (lost) throw Exit{kExitFailed, r.message};
    ++done;
    std::cerr << "measure: " << done << "/" << jobs.size() << " " << job.name << " "
              << run_mode_name(job.mode) << ": " << run_status_name(r.status) << "\n";
    if (r.status != RunStatus::Ok) {
      ++failed;
      continue;
    }
    if (!set.device.empty() && set.device != r.device.name)
      throw Exit{kExitFailed, "--resume: the set was recorded on " + set.device + ", this is " +
                                  r.device.name};
    if (set.device.empty()) {
      set.device = r.device.name;
      set.sm = r.device.sm;
      set.sm_count = r.device.sm_count;
      set.clock_mhz = r.device.clock_khz / 1000.0;
      set.driver_cuda = client ? client->greeting().device.driver_cuda : cuda_driver_version();
    }
    nlohmann::json j = run_result_json(job.scenario, r);
    j.erase("explanation");  // words the reader makes again (explain_result)
    const std::string id = scenario_identity(job.scenario);
    set.runs[id + ' ' + run_mode_name(job.mode)] = std::move(j);
    set.names.emplace(id, job.name);
  }
  set.complete = skipped == 0;
  if (set.device.empty()) throw Exit{kExitFailed, "nothing was measured"};
  if (std::string why = write_file_atomic(o.out, recorded_set_text(set), o.force); !why.empty())
    throw Exit{kExitFailed, why};
  std::cout << "recorded " << set.runs.size() << " runs on " << set.device << " ("
            << recorded_label(set) << ") in " << o.out;
  if (failed) std::cout << "; " << failed << " did not run";
  if (skipped) std::cout << "; " << skipped << " left out (--budget-s)";
  std::cout << "\n";
}

}  // namespace

void add_measure_command(CLI::App& app) {
  auto o = std::make_shared<MeasureOptions>();
  auto* cmd = app.add_subcommand(
      "measure",
      "record measurements on a GPU for machines without one (assets/recorded): every preset "
      "in both modes, the lessons' scenes, the Compare menu's variants, each preset's standard "
      "sweep and the seeds' experiments");
  cmd->add_option("--out", o->out, "the recorded set's file (JSON)")
      ->required()
      ->check(non_empty_path());
  cmd->add_flag("--force", o->force, "overwrite an existing --out file");
  cmd->add_option("--budget-s", o->budget_s,
                  "stop starting runs after this many seconds (0: no limit); the set says it "
                  "is incomplete")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--preset", o->only, "only this preset (repeatable; no lessons, experiments)");
  cmd->add_flag("--no-sweeps", o->no_sweeps, "leave out the presets' standard sweeps");
  cmd->add_option("--resume", o->resume,
                  "keep the runs of this earlier set (same bankviz, rules and GPU) and measure "
                  "only what it lacks (an incomplete set, --budget-s)")
      ->check(non_empty_path());
  add_gpu_options(*cmd, o->gpu);
  cmd->callback([o] { run_measure(*o); });
}

}  // namespace bankviz::cli
