// cmd_compare.cpp: `bankviz-cli compare A B` (two scenarios side by side, with the ratio between
// them) and `bankviz-cli sweep --param pad=0..32` (one parameter over a range), both from the
// model (core/compare.h) and, with --run, measured on the GPU in exposed mode.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "bankviz/analysis.h"
#include "bankviz/compare.h"
#include "bankviz/runner.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

using json = nlohmann::ordered_json;

// The measured figure beside the model's: the worst step's SM cycles per warp instruction in
// exposed mode (a kernel built to make the shared-memory step the bottleneck).
struct Measured {
  std::optional<double> cycles;  // empty when not measured
  std::string note;              // why not, or what ran
};

Measured measure(Runner& runner, const Scenario& s, const Analysis& a) {
  Measured m;
  const int worst = a.worst_step();
  if (worst < 0) {
    m.note = "no memory step";
    return m;
  }
  RunOptions ro;
  ro.counters = false;  // compare and sweep show timing only: no CUPTI pass per value
  ro.mode = RunMode::Exposed;
  const RunResult r = runner.run(s, ro);
  if (r.status != RunStatus::Ok) {
    m.note = r.message;
    return m;
  }
  if (r.verification.status == VerifyStatus::Mismatch)
    m.note = "verification: " + r.verification.summary;
  // The GPU present may not have the scenario's banks (a Kepler 8-byte lesson on Hopper): say so.
  if (!r.arch_note.empty()) m.note += (m.note.empty() ? "" : "; ") + r.arch_note;
  const int step = a.steps[static_cast<size_t>(worst)].step;
  for (const StepTiming& t : r.exposed.steps)
    if (t.step == step) m.cycles = t.cycles_per_instruction;
  if (!m.cycles && m.note.empty()) m.note = "the worst step was not timed";
  return m;
}

json summary_json(const Summary& s) {
  return {{"name", s.name},
          {"title", s.title},
          {"total_wavefronts", s.total_wavefronts},
          {"total_ideal", s.total_ideal},
          {"worst_step", s.worst_step},
          {"worst_label", s.worst_label},
          {"worst_wavefronts", s.worst_wavefronts},
          {"worst_instructions", s.worst_instructions},
          {"worst_per_request", s.worst_per_request},
          {"racing_accesses", s.racing_accesses},
          {"out_of_bounds", s.out_of_bounds}};
}

std::string dump(const json& j) {
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// [SECTION] compare

struct CompareOptions {
  std::string a, b;
  bool json = false, run = false;
  GpuFlags gpu;
};

void run_compare(const CompareOptions& o) {
  // The model alone needs no GPU: only --run goes to --gpu.
  if (o.run) {
    std::vector<std::string> files;
    for (const std::string* v : {&o.a, &o.b})
      if (names_a_file(*v)) files.push_back(*v);
    if (run_on_remote_gpu(o.gpu, "compare", files)) return;
  }
  const auto [sa, sb] = scenario_pair(o.a, o.b);
  const Analysis aa = analyze_or_exit(sa), ab = analyze_or_exit(sb);
  const Comparison c = compare(aa, ab);
  Measured ma, mb;
  if (o.run) {
    Runner runner;
    ma = measure(runner, sa, aa);
    mb = measure(runner, sb, ab);
  }
  const bool measured = ma.cycles && mb.cycles && *ma.cycles > 0;
  if (o.json) {
    // B / A has no value when A has no wavefronts: null, not 0.
    json j{{"a", summary_json(c.a)},
           {"b", summary_json(c.b)},
           {"total_ratio", c.a.total_wavefronts > 0 ? json(c.total_ratio) : json()},
           {"per_request_ratio", c.a.worst_per_request > 0 ? json(c.per_request_ratio) : json()}};
    if (o.run) {
      auto side = [](const Measured& m) {
        json s{{"note", m.note}};
        s["cycles_per_instruction"] = m.cycles ? json(*m.cycles) : json();
        return s;
      };
      j["measured"] = {{"a", side(ma)}, {"b", side(mb)}};
      j["measured"]["ratio"] = measured ? json(*mb.cycles / *ma.cycles) : json();
    }
    std::cout << dump(j);
    return;
  }
  auto row = [](const std::string& what, const std::string& a, const std::string& b,
                const std::string& ratio) {
    char line[512];
    std::snprintf(line, sizeof line, "%-28s %-22s %-22s %s\n", what.c_str(), a.c_str(), b.c_str(),
                  ratio.c_str());
    std::cout << line;
  };
  auto cut = [](const std::string& t) { return t.size() > 22 ? t.substr(0, 19) + "..." : t; };
  std::cout << "A: " << c.a.name << (c.a.title.empty() ? "" : ": " + c.a.title) << "\n"
            << "B: " << c.b.name << (c.b.title.empty() ? "" : ": " + c.b.title) << "\n\n";
  row("", "A", "B", "B / A");
  const std::string undefined = "- (A has none)";
  row("wavefronts (model)", std::to_string(c.a.total_wavefronts),
      std::to_string(c.b.total_wavefronts),
      c.a.total_wavefronts > 0 ? fixed(c.total_ratio, 3) : undefined);
  row("ideal", std::to_string(c.a.total_ideal), std::to_string(c.b.total_ideal), "");
  row("worst step", cut(c.a.worst_label), cut(c.b.worst_label), "");
  row("  wavefronts per request", fixed(c.a.worst_per_request, 2), fixed(c.b.worst_per_request, 2),
      c.a.worst_per_request > 0 ? fixed(c.per_request_ratio, 3) : undefined);
  if (c.a.racing_accesses || c.b.racing_accesses)
    row("racing lane accesses", std::to_string(c.a.racing_accesses),
        std::to_string(c.b.racing_accesses), "");
  if (o.run) {
    row("  cycles per instruction", ma.cycles ? fixed(*ma.cycles, 2) : "-",
        mb.cycles ? fixed(*mb.cycles, 2) : "-", measured ? fixed(*mb.cycles / *ma.cycles, 3) : "");
    for (const auto& [side, m] : {std::pair{"A", &ma}, std::pair{"B", &mb}})
      if (!m->note.empty()) std::cout << side << ": " << m->note << "\n";
  }
  if (c.total_ratio > 0 && c.total_ratio < 1)
    std::cout << "\nB needs " << fixed(1 / c.total_ratio, 2) << "x fewer wavefronts than A.\n";
  else if (c.total_ratio > 1)
    std::cout << "\nB needs " << fixed(c.total_ratio, 2) << "x the wavefronts of A.\n";
  if (o.run && !measured) throw Exit{kExitFailed, "not measured (see above)"};
}

// [SECTION] sweep

struct SweepOptions {
  ScenarioOptions scenario;
  std::string param;
  bool run = false, csv = false, json = false;
  GpuFlags gpu;
};

void run_sweep(const SweepOptions& o) {
  if (o.csv && o.json) throw Exit{kExitUsage, "give --csv or --json, not both"};
  if (o.run && run_on_remote_gpu(o.gpu, "sweep", {o.scenario.file})) return;
  const SweepParse p = parse_sweep(o.param);
  if (!p.spec) throw Exit{kExitUsage, "--param " + p.error};
  const Scenario base = build_scenario(o.scenario);
  const std::vector<SweepPoint> points = sweep(base, *p.spec);
  std::vector<Measured> measured(points.size());
  if (o.run) {
    Runner runner;
    for (size_t i = 0; i < points.size(); ++i) {
      if (!points[i].summary) continue;
      const ScenarioLoad l = apply_sweep_value(base, p.spec->param, points[i].value);
      AnalysisResult r = analyze(*l.scenario);
      measured[i] = measure(runner, *l.scenario, *r.analysis);
    }
  }
  // --run that measured nothing (no GPU, no CUDA) fails with the reason, after the model's table.
  std::string not_measured;
  if (o.run) {
    bool any = false;
    for (const Measured& m : measured) {
      any |= m.cycles.has_value();
      if (not_measured.empty()) not_measured = m.note;
    }
    if (any)
      not_measured.clear();
    else if (not_measured.empty())
      not_measured = "no value analyzes";
  }
  // Every value made the scenario invalid (pad=-5..-1): the table says why per value, and the
  // flag is a usage error, as --pad -1 is.
  bool any_analyzes = false;
  for (const SweepPoint& pt : points) any_analyzes |= pt.summary.has_value();
  const auto finish = [&] {
    if (!any_analyzes)
      throw Exit{kExitUsage,
                 "--param " + o.param + ": no value analyzes (each value's error above)"};
    if (!not_measured.empty()) throw Exit{kExitFailed, "--run: not measured: " + not_measured};
  };
  if (o.json) {
    json rows = json::array();
    for (size_t i = 0; i < points.size(); ++i) {
      json r{{"value", points[i].value}};
      if (points[i].summary) r["model"] = summary_json(*points[i].summary);
      if (!points[i].error.empty()) r["error"] = points[i].error;
      if (o.run) {
        r["cycles_per_instruction"] = measured[i].cycles ? json(*measured[i].cycles) : json();
        if (!measured[i].note.empty()) r["note"] = measured[i].note;
      }
      rows.push_back(std::move(r));
    }
    std::cout << dump(json{{"scenario", base.name}, {"param", p.spec->param}, {"points", rows}});
    return finish();
  }
  // CSV (and the default table, which is the same columns aligned).
  auto quote = [](const std::string& t) {
    std::string q = "\"";
    for (char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + '"';
  };
  const char* sep = o.csv ? "," : " ";
  std::cout << "value" << sep << "total_wavefronts" << sep << "total_ideal" << sep
            << "worst_per_request" << sep << "worst_step";
  if (o.run) std::cout << sep << "cycles_per_instruction";
  std::cout << sep << "error\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& pt = points[i];
    std::cout << (o.csv ? quote(pt.value) : pt.value) << sep;
    if (pt.summary)
      std::cout << pt.summary->total_wavefronts << sep << pt.summary->total_ideal << sep
                << fixed(pt.summary->worst_per_request, 3) << sep
                << (o.csv ? quote(pt.summary->worst_label) : pt.summary->worst_label);
    else
      std::cout << sep << sep << sep;
    if (o.run) std::cout << sep << (measured[i].cycles ? fixed(*measured[i].cycles, 3) : "");
    std::cout << sep << (o.csv ? quote(pt.error) : pt.error) << "\n";
  }
  finish();
}

}  // namespace

void add_compare_commands(CLI::App& app) {
  auto c = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "two scenarios side by side (presets or scenario files) and the ratio B / A");
  cmd->add_option("A", c->a, "the 'before': a preset name or a scenario file")->required();
  cmd->add_option("B", c->b, "the 'after': a preset name or a scenario file")->required();
  cmd->add_flag("--json", c->json, "print the comparison as JSON");
  cmd->add_flag("--run", c->run, "also measure both on the GPU (exposed mode, worst step)");
  add_gpu_options(*cmd, c->gpu);
  cmd->callback([c] { run_compare(*c); });

  auto s = std::make_shared<SweepOptions>();
  auto* sw = app.add_subcommand(
      "sweep",
      "vary one parameter of the first tile over a range: wavefronts per request per value");
  add_scenario_options(*sw, s->scenario);
  sw->add_option("--param", s->param,
                 "PARAM=VALUES: pad=0..32, rows=16..64, cols=32,33, elem=int,float2, "
                 "swizzle=none;3,0,3")
      ->required();
  sw->add_flag("--run", s->run, "also measure each value on the GPU (exposed mode, worst step)");
  sw->add_flag("--csv", s->csv, "comma-separated values");
  sw->add_flag("--json", s->json, "JSON");
  add_gpu_options(*sw, s->gpu);
  sw->callback([s] { run_sweep(*s); });
}

}  // namespace bankviz::cli
