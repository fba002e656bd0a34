// cmd_run.cpp: `bankviz-cli run` (the generated kernel on the GPU, next to the model) and
// `bankviz-cli source` (the generated kernel's text).
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "bankviz/codegen.h"
#include "bankviz/compiled.h"
#include "bankviz/io.h"
#include "bankviz/runner.h"
#include "bankviz/sass.h"
#include "bankviz/written_steps.h"
#include "commands.h"
#include "recorded.h"
#include "run_json.h"
#include "common.h"

namespace bankviz::cli {
namespace {

// printf-style formatting into std::cout, so the table passes the CLI's printable filter (a
// step's label is user text) and stays in order with the rest of the output.
[[gnu::format(printf, 1, 2)]] void print(const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::cout << line;
}

struct RunCmdOptions {
  ScenarioOptions scenario;
  std::string mode = "written";
  bool json = false;
  int timing_runs = 5;
  int launches = 200;
  long long reps = 0;
  double timeout_ms = 10000;
  bool no_counters = false;
  bool steps = false;
  bool recorded = false;
  GpuFlags gpu;
};

RunMode mode_of(const std::string& text) {
  std::optional<RunMode> m = parse_run_mode(text);
  if (!m) throw Exit{kExitUsage, "--mode " + text + ": expected written or exposed"};
  return *m;
}

// The model's wavefronts per memory step (all warps of one block), for the written-mode table.
void print_model(const Scenario& s, const std::string& arch_id, const char* whose) {
  AnalysisResult a = analyze(s, find_arch(arch_id));
  if (!a.analysis) return;
  const Analysis& an = *a.analysis;
  std::cout << "model (" << an.arch->name << ", " << whose << "), one block:\n";
  for (size_t e = 0; e < an.steps.size(); ++e) {
    if (an.steps[e].kind == StepKind::Sync) continue;
    const int i = static_cast<int>(e);
    std::cout << "  " << an.steps[e].label << ": " << an.step_wavefronts(i) << " wavefronts (ideal "
              << an.step_ideal(i) << ")\n";
  }
}

// The counters' status line: what was read (per lesson block), or why not and the fix.
void print_counters(const RunResult& r) {
  if (r.counters == CounterStatus::Ok)
    std::cout << "hardware counters (CUPTI, read in separate launches, " << fixed(r.counters_ms, 1)
              << " ms), per block of the lesson:\n";
  else if (r.counters != CounterStatus::Off || !r.counters_message.empty())
    std::cout << "hardware counters: " << r.counters_message << "\n";
}

void print_text(const Scenario& s, const RunResult& r) {
  if (r.status != RunStatus::Ok) {
    std::cout << s.name << ": " << run_status_name(r.status) << ": " << r.message << "\n";
    return;
  }
  const DeviceInfo& d = r.device;
  std::cout << s.name << " on " << d.name << " (" << d.sm << ", " << d.sm_count << " SMs, "
            << d.clock_khz / 1000 << " MHz), mode " << run_mode_name(r.mode) << "\n";
  std::cout << "compile: "
            << (r.cache_hit ? std::string("cached") : fixed(r.compile_ms, 1) + " ms (NVRTC)")
            << ", run " << fixed(r.run_ms, 1) << " ms\n";
  std::cout << "check: " << verify_status_name(r.verification.status) << ": "
            << r.verification.summary << "\n";
  for (const Mismatch& m : r.verification.first)
    std::cout << "  block " << m.block << " thread (" << m.x << "," << m.y << "," << m.z
              << "): expected " << m.expected << ", got " << m.got << "\n";
  for (const std::string& race : r.races) std::cout << "  " << race << "\n";
  if (!r.arch_note.empty()) std::cout << "note: " << r.arch_note << "\n";
  std::cout << "\n";
  if (r.mode == RunMode::Written) {
    std::cout << "as written: " << r.written.grid << " block(s) of " << s.block[0] << "x"
              << s.block[1] << "x" << s.block[2] << "; " << fixed(r.written.us_per_launch, 2)
              << " us per launch (" << r.written.launches << " back to back), "
              << fixed(r.written.us_single, 2) << " us for one launch between events\n";
    print_model(s, d.model_arch, "the GPU that ran it");
    if (r.scenario_arch != d.model_arch) print_model(s, r.scenario_arch, "the scenario's");
    print_counters(r);
    if (r.written.hw.read)
      std::cout << "counters, one block, every shared step: " << format_comparison(r.written.hw)
                << "\n";
    std::cout << "\n" << explain_result(s, r) << "\n";
    return;
  }
  const bool other = r.scenario_arch != d.model_arch;
  std::cout << "exposed: " << r.exposed.grid << " blocks (" << r.exposed.blocks_per_sm
            << " per SM), baseline " << fixed(r.exposed.baseline_ms, 3)
            << " ms; a step that only some of the lesson's warps run is launched with just "
               "those warps (warps/SM)\n";
  // Measured on the present GPU, next to its model (and the simulated architecture's model).
  std::cout << "measured on " << d.name << "; model wf = the " << d.model_arch
            << " model (this GPU)" << (other ? "; " + r.scenario_arch + " wf = the scenario's" : "")
            << "\n";
  print("%-4s %-6s %-34s %8s %10s %10s %10s %8s %8s %8s%s\n", "step", "kind", "access", "reps",
        "model wf", "predicted", "cyc/instr", "ratio", "B/clk/SM", "warps/SM",
        other ? ("  " + r.scenario_arch + " wf").c_str() : "");
  for (const StepTiming& t : r.exposed.steps) {
    std::string label = t.label.size() > 34 ? t.label.substr(0, 31) + "..." : t.label;
    print("%-4d %-6s %-34s %8lld %10.3f %10.3f %10.3f %8.3f %8.1f %8d", t.step, t.kind.c_str(),
          label.c_str(), static_cast<long long>(t.reps), t.model_wavefronts, t.predicted_cycles,
          t.cycles_per_instruction, t.ratio, t.bytes_per_clock_per_sm, t.active_warps_per_sm);
    if (other) print("  %10.3f", t.scenario_wavefronts);
    if (!t.shared_bound && t.instructions_per_block > 0)
      print("  (%d active warps per SM: warp-bound, not bank-bound)", t.active_warps_per_sm);
    std::cout << "\n";
  }
  // Where the prediction is not one cycle per wavefront as written: the rule it follows.
  for (const StepTiming& t : r.exposed.steps)
    if (!t.prediction.empty()) print("  step %-3d predicted: %s\n", t.step, t.prediction.c_str());
  print_counters(r);
  for (const StepTiming& t : r.exposed.steps)
    if (t.hw.read) print("  step %-3d %s\n", t.step, format_comparison(t.hw).c_str());
  std::cout << "\n" << explain_result(s, r) << "\n";
}

// --steps: the written kernel profiled (written_steps.h), its shared instructions per step
// beside the model's; the table and its JSON, or why there is none.
nlohmann::json compiled_json(const std::vector<CompiledStep>& steps) {
  nlohmann::json j = nlohmann::json::array();
  for (const CompiledStep& c : steps)
    j.push_back({{"step", c.step},
                 {"sass", c.sass},
                 {"instructions", c.instructions},
                 {"wavefronts", c.wavefronts},
                 {"written_instructions", c.written_instructions},
                 {"written_wavefronts", c.written_wavefronts},
                 {"differs", c.differs()},
                 {"reason", c.reason}});
  return j;
}

// Written mode: the model of the kernel as compiled (compiled.h), per block, where it differs
// from the model as written; or why there is none.
void as_compiled_of(const Scenario& s, const RunResult& r, AsCompiled& c, nlohmann::json& j,
                    nlohmann::json& totals, std::string& text) {
  c = as_compiled(s, r.device.present ? find_arch(r.device.model_arch) : nullptr);
  if (!c.error.empty()) {
    j = {{"error", c.error}};
    text = "\nas compiled: not modelled: " + c.error + "\n";
    return;
  }
  j = compiled_json(c.steps);
  const std::string table = format_compiled_steps(c.steps);
  text = table.empty() ? "\nas compiled (the cubin's SASS, nvdisasm): every step as written\n"
                       : "\nas compiled (the cubin's SASS, nvdisasm), the steps that differ from "
                         "the model as written:\n" +
                             table;
  // The kernel's totals as compiled (ptxas's pads included) beside the L1 unit's counters, per
  // block of the launch (every block where they differ, as the counters' model as written).
  if (!r.written.hw.read) return;
  const GenerateResult g = generate_kernel(s, RunMode::Written);
  std::string why;
  const std::vector<CompiledStep> launch =
      g.kernel ? compiled_launch(s, find_arch(r.device.model_arch), *g.kernel, c.sass, s.grid, &why)
               : std::vector<CompiledStep>();
  if (launch.empty()) return;
  const CompiledTotals t = compiled_totals(s, launch);
  CounterComparison cmp = r.written.hw;
  const double blocks = static_cast<double>(std::max<int64_t>(1, s.grid));
  cmp.model_wavefronts = static_cast<double>(t.wavefronts) / blocks;
  cmp.model_instructions = static_cast<double>(t.instructions) / blocks;
  cmp.model_block0_only = false;
  totals = {{"instructions", cmp.model_instructions},
            {"wavefronts", cmp.model_wavefronts},
            {"pad_instructions", static_cast<double>(t.pad_instructions) / blocks},
            {"hardware_instructions", cmp.hw_instructions},
            {"hardware_wavefronts", cmp.hw_wavefronts},
            {"agrees", cmp.agrees()}};
  // std::string first: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  std::string pads;
  if (t.pad_instructions > 0)
    pads = std::string(" (") + fixed(static_cast<double>(t.pad_instructions) / blocks, 2) +
           " of its instructions ptxas's @!PT pads)";
  text += std::string("counters, one block, the kernel as compiled") + pads + ": " +
          format_comparison(cmp) + "\n";
}

void written_steps_of(const Scenario& s, const RunResult& r, Runner& runner,
                      const AsCompiled& compiled, nlohmann::json& j, std::string& text) {
  const GenerateResult g = generate_kernel(s, RunMode::Written);
  const AnalysisResult a = analyze(s, find_arch(r.device.model_arch));
  if (!g.kernel || !a.analysis) return;
  const ProfileResult p = runner.profile(written_profile_request(s, *g.kernel));
  if (p.status != RunStatus::Ok || p.counters != CounterStatus::Ok) {
    const std::string why = p.status != RunStatus::Ok ? p.message
                                                      : counter_status_name(p.counters) +
                                                            std::string(": ") + p.counters_message;
    j = {{"error", why}};
    text = "\nthe written kernel step by step: not read: " + why + "\n";
    return;
  }
  std::vector<WrittenStep> steps = written_steps(s, *a.analysis, *g.kernel, p.instructions,
                                                 compiled.sass.empty() ? nullptr : &compiled.sass);
  // The model as compiled over the launch (every block where they differ); where that is too
  // large the rows keep the model as written.
  std::string too_large;
  if (!compiled.sass.empty())
    attach_compiled(steps, compiled_launch(s, find_arch(r.device.model_arch), *g.kernel,
                                           compiled.sass, s.grid, &too_large));
  j = nlohmann::json::array();
  for (const WrittenStep& w : steps) {
    nlohmann::json row{{"step", w.step},
                       {"label", w.label},
                       {"sass_instructions", w.sass_instructions},
                       {"ops", w.ops},
                       {"hardware_instructions", w.executed},
                       {"hardware_wavefronts", w.wavefronts},
                       {"model_instructions", w.model_instructions},
                       {"model_wavefronts", w.model_wavefronts},
                       {"agrees", w.agrees()}};
    if (w.compiled) {
      row["compiled_instructions"] = w.compiled_instructions;
      row["compiled_wavefronts"] = w.compiled_wavefronts;
      row["compiled_reason"] = w.compiled_reason;
      row["agrees_compiled"] = w.agrees_compiled();
    }
    j.push_back(std::move(row));
  }
  text =
      "\nthe written kernel step by step (CUPTI's SASS metrics on the generated kernel, its "
      "instructions by source line):\n" +
      format_written_steps(steps, s.grid);
}

// --recorded: the run recorded on a GPU (assets/recorded, `measure`) for exactly this scenario,
// shown as a live run is, under its label; else that nothing was measured.
void run_recorded(const RunCmdOptions& o) {
  if (!o.gpu.host.empty() || !o.gpu.command.empty())
    throw Exit{kExitUsage, "--recorded shows what was recorded: give it without --gpu"};
  if (o.steps) throw Exit{kExitUsage, "--steps: not recorded (it profiles the kernel live)"};
  const Scenario s = build_scenario(o.scenario);
  const RunMode mode = mode_of(o.mode);
  const std::optional<RecordedRun> rec = find_recorded_run(shipped_recorded_sets(), s, mode);
  if (!rec) {
    if (o.json)
      std::cout << nlohmann::json{{"scenario", s.name}, {"mode", run_mode_name(mode)},
                                  {"recorded", nullptr}, {"message", kNotMeasured}}
                       .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
    throw Exit{kExitFailed, o.json ? "" : s.name + ": " + kNotMeasured +
                                              " (no recorded run of exactly this scenario in " +
                                              run_mode_name(mode) + " mode)"};
  }
  if (o.json) {
    nlohmann::json j = run_result_json(s, rec->result);
    j["recorded"] = {{"label", rec->label},
                     {"file", rec->set->path},
                     {"date", rec->set->date},
                     {"device", rec->set->device},
                     {"bankviz", rec->set->bankviz},
                     {"rules_version", rec->set->rules_version}};
    if (!rec->note.empty()) j["recorded"]["note"] = rec->note;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << "recorded: " << rec->label << " (bankviz " << rec->set->bankviz << ", "
            << rec->set->path << "); not this machine\n";
  if (!rec->note.empty()) std::cout << "note: " << rec->note << "\n";
  print_text(s, rec->result);
}

void run_run(const RunCmdOptions& o) {
  if (o.recorded) return run_recorded(o);
  if (run_on_remote_gpu(o.gpu, "run", {o.scenario.file})) return;
  const Scenario s = build_scenario(o.scenario);
  RunOptions ro;
  ro.mode = mode_of(o.mode);
  ro.timing_runs = o.timing_runs;
  ro.written_launches = o.launches;
  ro.reps = o.reps;
  ro.timeout_ms = o.timeout_ms;
  ro.counters = !o.no_counters;
  if (o.steps && ro.mode != RunMode::Written)
    throw Exit{kExitUsage,
               "--steps: written mode only (exposed mode measures every step on its own)"};
  Runner runner;
  const RunResult r = runner.run(s, ro);
  std::cout.flush();
  nlohmann::json steps_json, compiled_json, compiled_totals_json;
  std::string steps_text, compiled_text;
  AsCompiled compiled;
  if (ro.mode == RunMode::Written && r.status == RunStatus::Ok)
    as_compiled_of(s, r, compiled, compiled_json, compiled_totals_json, compiled_text);
  if (o.steps && r.status == RunStatus::Ok)
    written_steps_of(s, r, runner, compiled, steps_json, steps_text);
  if (o.json) {
    nlohmann::json j = run_result_json(s, r);
    if (ro.mode == RunMode::Written && r.status == RunStatus::Ok) j["as_compiled"] = compiled_json;
    // The kernel's totals as compiled beside the unit's counters (where both were read).
    if (!compiled_totals_json.is_null()) j["as_compiled_totals"] = compiled_totals_json;
    if (o.steps) j["written_steps"] = steps_json;
    // Invalid UTF-8 in a label from the command line is replaced, never thrown.
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_text(s, r);
    std::cout << compiled_text << steps_text;
  }
  if (r.status != RunStatus::Ok || r.verification.status == VerifyStatus::Mismatch)
    throw Exit{kExitFailed, ""};
}

struct SourceOptions {
  std::string mode = "written";
  std::string cubin;  // write the compiled kernel here (NVRTC, sm_90) instead of the source
  bool force = false;
};

void run_source(const ScenarioOptions& so, const SourceOptions& o) {
  const Scenario s = build_scenario(so);
  if (!o.cubin.empty()) {
    if (std::string why = output_problem(o.cubin, o.force); !why.empty())
      throw Exit{kExitFailed, why};
  }
  GenerateResult g = generate_kernel(s, mode_of(o.mode));
  if (!g.kernel) {
    std::string msg = "cannot generate a kernel for '" + s.name + "':";
    for (const Diagnostic& d : g.errors) msg += "\n  " + d.format();
    throw Exit{kExitFailed, msg};
  }
  if (o.cubin.empty()) {
    std::cout << g.kernel->text;
    return;
  }
  std::string error;
  const std::vector<char> cubin = compiled_cubin(*g.kernel, "sm_90", &error);
  if (cubin.empty()) throw Exit{kExitFailed, "cannot compile the kernel: " + error};
  if (std::string why =
          write_file_atomic(o.cubin, std::string_view(cubin.data(), cubin.size()), o.force);
      !why.empty())
    throw Exit{kExitFailed, why};
}

}  // namespace

void add_run_commands(CLI::App& app) {
  auto o = std::make_shared<RunCmdOptions>();
  auto* run = app.add_subcommand(
      "run",
      "generate the scenario's CUDA kernel, run it on the GPU, check it against the CPU "
      "and time it next to the model's prediction");
  add_scenario_options(*run, o->scenario);
  run->add_option("--mode", o->mode, "written (the lesson's launch) or exposed (shared-bound)")
      ->capture_default_str();
  run->add_flag("--json", o->json, "print the result as JSON");
  run->add_option("--timing-runs", o->timing_runs, "timed repetitions (best or median kept)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  run->add_option("--launches", o->launches, "written mode: launches between two events")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  run->add_option("--reps", o->reps, "exposed mode: repeats of the measured step (0: ~2 ms)")
      ->check(CLI::Range(0LL, 1LL << 24));
  run->add_option("--timeout-ms", o->timeout_ms,
                  "give up on a kernel that has not finished after this long")
      ->check(finite_number())
      ->check(CLI::Range(1.0, 600000.0))
      ->capture_default_str();
  run->add_flag("--no-counters", o->no_counters,
                "do not read the GPU's shared-memory counters (CUPTI) beside the timing");
  run->add_flag("--steps", o->steps,
                "written mode: the kernel's shared instructions per step from the hardware "
                "(CUPTI's SASS metrics, as profile reads them) beside the model's");
  run->add_flag("--recorded", o->recorded,
                "show the run recorded on a GPU for exactly this scenario (assets/recorded, "
                "bankviz-cli measure) instead of running it");
  add_gpu_options(*run, o->gpu);
  run->callback([o] { run_run(*o); });

  auto so = std::make_shared<ScenarioOptions>();
  auto src = std::make_shared<SourceOptions>();
  auto* source = app.add_subcommand("source", "print the CUDA kernel generated for a scenario");
  add_scenario_options(*source, *so);
  source->add_option("--mode", src->mode, "written or exposed")->capture_default_str();
  source
      ->add_option("--cubin", src->cubin,
                   "write the kernel compiled for sm_90 (NVRTC with line info, as run loads "
                   "it) to FILE instead of printing its source")
      ->check(non_empty_path());
  source->add_flag("--force", src->force, "overwrite an existing --cubin file");
  source->callback([so, src] { run_source(*so, *src); });
}

}  // namespace bankviz::cli
