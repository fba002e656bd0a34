// cmd_experiments.cpp: `bankviz-cli experiments [NAME] [--run] [--json] [--runs N]`: the seeds'
// own comparisons (kernels/experiments.h). Without --run it lists what each seed published and
// what the model predicts; with --run it runs both kernels as the seed did on the present GPU,
// checks them and prints the measured ratio beside the published one, with the reason they differ.
#include <cstdarg>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bankviz/experiments.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

using json = nlohmann::ordered_json;

// printf-style into std::cout: the CLI's printable filter sees it, and `serve` captures it.
[[gnu::format(printf, 1, 2)]] void print(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  std::cout << text;
}

struct Options {
  std::string name;
  bool run = false;
  bool as_json = false;
  int runs = 10;
  GpuFlags gpu;
};

std::vector<Scenario> scenarios_of(const Experiment& e) {
  std::vector<Scenario> out;
  if (e.name != "data-layout-row-vs-column") return out;
  for (const char* p : {"column-write-column-read", "row-write-row-read"}) {
    ScenarioOptions o;
    o.preset = p;
    out.push_back(build_scenario(o));
  }
  return out;
}

void run_command(const Options& o) {
  if (o.run && run_on_remote_gpu(o.gpu, "experiments", {})) return;
  std::vector<const Experiment*> chosen;
  if (!o.name.empty()) {
    const Experiment* e = find_experiment(o.name);
    if (e == nullptr) {
      std::string known;
      for (const Experiment& x : experiments()) known += (known.empty() ? "" : ", ") + x.name;
      throw Exit{kExitUsage, "no experiment named '" + o.name + "' (known: " + known + ")"};
    }
    chosen.push_back(e);
  } else {
    for (const Experiment& e : experiments()) chosen.push_back(&e);
  }
  json out = json::array();
  bool failed = false;
  for (const Experiment* e : chosen) {
    json j{{"name", e->name},
           {"seed", e->seed},
           {"title", e->title},
           {"baseline", e->baseline},
           {"improved", e->improved},
           {"published", e->published},
           {"published_ratio", e->published_ratio},
           {"model", e->model},
           {"model_ratio", e->model_ratio},
           {"presets", e->presets}};
    if (!o.as_json) {
      print("%s (%s)\n  %s\n  published: %s\n  model: %s%s\n  presets: %s\n", e->name.c_str(),
                  e->seed.c_str(), e->title.c_str(), e->published.c_str(), e->model.c_str(),
                  e->model_ratio > 0 ? (" (" + fixed(e->model_ratio, 1) + "x)").c_str() : "",
                  e->presets.c_str());
    }
    if (o.run) {
      const ExperimentRun r = run_experiment(*e, o.runs, scenarios_of(*e));
      json m{{"status", run_status_name(r.status)}};
      if (r.status != RunStatus::Ok) {
        failed = true;
        m["message"] = r.message;
        if (!o.as_json) print("  not run: %s\n", r.message.c_str());
      } else {
        m["device"] = r.device.name;
        json vs = json::array();
        for (const VariantTiming& v : r.variants) {
          vs.push_back(
              {{"name", v.name}, {"ms", v.ms}, {"verified", v.verified}, {"check", v.check}});
          failed |= !v.verified;
          if (!o.as_json)
            print("  %-14s %10.4f ms  %s: %s\n", v.name.c_str(), v.ms,
                        v.verified ? "verified" : "MISMATCH", v.check.c_str());
        }
        m["variants"] = vs;
        m["ratio"] = r.ratio;
        m["why"] = r.why;
        if (!o.as_json)
          print("  measured: %sx (%s / %s)\n  %s\n", fixed(r.ratio, 2).c_str(),
                      e->baseline.c_str(), e->improved.c_str(), r.why.c_str());
      }
      j["measured"] = m;
    }
    if (!o.as_json) print("\n");
    out.push_back(j);
  }
  if (o.as_json) std::cout << out.dump(2) << "\n";
  if (failed) throw Exit{kExitFailed, ""};
}

}  // namespace

void add_experiments_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "experiments",
      "the seeds' own comparisons (global vs shared atomics, float vs float2, row vs column): "
      "published figures and the model's; --run measures them as the seeds ran them");
  cmd->add_option("name", o->name, "one experiment (default: all)");
  cmd->add_flag("--run", o->run, "run both kernels of each on the GPU, verify and time them");
  cmd->add_flag("--json", o->as_json, "print JSON");
  cmd->add_option("--runs", o->runs, "timed launches per kernel (the median is kept)")
      ->check(CLI::Range(1, 1000));
  add_gpu_options(*cmd, o->gpu);
  cmd->callback([o] { run_command(*o); });
}

}  // namespace bankviz::cli
