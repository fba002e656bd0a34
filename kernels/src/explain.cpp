// explain.cpp: a run in words (run_types.h, explain.h): statuses, what each mode measures, why a
// simulated architecture differs from the GPU that ran, and which steps are issue-bound.
#include <cmath>
#include <cstdio>

#include "bankviz/analysis.h"
#include "bankviz/arch.h"
#include "explain.h"
#include "plan.h"

namespace bankviz {

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::NotRun:
      return "not run";
    case RunStatus::NoCuda:
      return "no CUDA";
    case RunStatus::BadScenario:
      return "bad scenario";
    case RunStatus::BadArguments:
      return "bad arguments";
    case RunStatus::CompileError:
      return "compile error";
    case RunStatus::TooLarge:
      return "too large";
    case RunStatus::LaunchError:
      return "launch error";
    case RunStatus::Timeout:
      return "timeout";
  }
  return "?";
}

std::string explain_mode(RunMode m) {
  if (m == RunMode::Written)
    return "As written: the lesson's own launch, timed over back-to-back launches. Such a kernel "
           "is tiny,\nso launch overhead and global memory dominate and bank conflicts change the "
           "time only a\nlittle (the seeds' 1.2x-1.8x). Use --mode exposed to see what the "
           "conflicts really cost.";
  return "Exposed: each shared-memory step repeated many times inside the kernel, on every SM at "
         "once,\nso shared memory is the bottleneck. Then each wavefront costs one cycle of the "
         "SM's shared\npipe, and cycles per instruction should equal the model's wavefronts per "
         "instruction.";
}

namespace {

// Why a simulated architecture's banks serve the same kernel differently from the present GPU's.
std::string why_archs_differ(const Arch& sim, const Arch& here) {
  if (sim.half_warp_unit && !here.half_warp_unit)
    return "Compute capability 1.x GPUs had " + std::to_string(sim.banks) +
           " banks and served each half-warp (16 threads) on its own, so threads in different "
           "halves never conflicted. Since Fermi every GPU has " +
           std::to_string(here.banks) +
           " banks and looks at the whole warp at once: two half-warps that each were "
           "conflict-free can now collide in one bank, and a pattern that filled 16 banks "
           "now may use all 32.";
  if (sim.bank_bytes != here.bank_bytes)
    return "Kepler could make its banks " + std::to_string(sim.bank_bytes) +
           " bytes wide (cudaDeviceSetSharedMemConfig): two neighbouring 4-byte values, or one "
           "8-byte value, then sat in one bank and never conflicted. Since Maxwell every GPU "
           "has " +
           std::to_string(here.bank_bytes) +
           "-byte banks and accepts that setting but ignores it, so the kernel cannot run with "
           "Kepler's banks here: an 8-byte access is served in half-warps and neighbours "
           "that shared a bank on Kepler fall into two.";
  return std::string(sim.name) + " arranges shared memory as " + std::to_string(sim.banks) +
         " banks of " + std::to_string(sim.bank_bytes) + " bytes, the present GPU (" +
         std::string(here.name) + ") as " + std::to_string(here.banks) + " banks of " +
         std::to_string(here.bank_bytes) + " bytes with its own rules for wide accesses.";
}

std::string per_step_line(int step, const std::string& label, double sim_wf, double here_wf,
                          const Arch& sim, const Arch& here) {
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "step %d (%s): %s predicts %.3g wavefronts per warp instruction, %s %.3g.", step,
                label.c_str(), std::string(sim.name).c_str(), sim_wf,
                std::string(here.name).c_str(), here_wf);
  return buf;
}

}  // namespace

std::string explain_result(const Scenario& s, const RunResult& r) {
  if (r.status != RunStatus::Ok) return {};
  std::string out = explain_mode(r.mode);
  const Arch* sim = find_arch(r.scenario_arch);
  const Arch* here = find_arch(r.device.model_arch);
  if (sim && here && sim != here) {
    out += "\n\nMeasured on " + r.device.name + " (" + r.device.sm + "), whose banks follow the " +
           std::string(here->name) + " model; the scenario simulates " + std::string(sim->name) +
           ". The table shows the model for the GPU that ran it next to the scenario's. " +
           why_archs_differ(*sim, *here);
    // Where the two predictions differ, step by step.
    std::vector<std::string> lines;
    if (r.mode == RunMode::Exposed) {
      for (const StepTiming& t : r.exposed.steps)
        if (t.instructions_per_block > 0 &&
            std::fabs(t.scenario_wavefronts - t.model_wavefronts) > 1e-9)
          lines.push_back(per_step_line(t.step, t.label, t.scenario_wavefronts, t.model_wavefronts,
                                        *sim, *here));
    } else {
      AnalysisResult a = analyze(s, sim), b = analyze(s, here);
      if (a.analysis && b.analysis) {
        for (size_t i = 0; i < s.steps.size(); ++i) {
          if (!s.steps[i].is_memory()) continue;
          const detail::StepModel ma = detail::model_of_step(*a.analysis, static_cast<int>(i));
          const detail::StepModel mb = detail::model_of_step(*b.analysis, static_cast<int>(i));
          if (ma.wavefronts == mb.wavefronts || ma.instructions == 0) continue;
          lines.push_back(per_step_line(static_cast<int>(i), detail::step_label(s.steps[i]),
                                        double(ma.wavefronts) / ma.instructions,
                                        double(mb.wavefronts) / mb.instructions, *sim, *here));
        }
      }
    }
    if (lines.empty()) out += " For this kernel both models happen to predict the same wavefronts.";
    for (const std::string& l : lines) out += "\n  " + l;
  }
  if (r.mode == RunMode::Exposed) {
    std::string issue;
    for (const StepTiming& t : r.exposed.steps)
      if (t.instructions_per_block > 0 && !t.shared_bound && t.kind != "atomic")
        issue += (issue.empty() ? "" : ", ") + std::to_string(t.step);
    if (!issue.empty())
      out += "\n\nStep(s) " + issue +
             ": only a few warps per SM take part (a guard such as `cacheIndex < 32` leaves "
             "most of the block idle), and each warp can push a shared-memory instruction only "
             "every ~10-14 cycles. With fewer than " +
             std::to_string(kSharedBoundWarps) +
             " such warps per SM the warps, not the banks, set the pace, so the measured cycles "
             "exceed the model's wavefronts there even without a conflict.";
    std::string copy;
    for (const StepTiming& t : r.exposed.steps)
      if (t.copy_bound) copy += (copy.empty() ? "" : ", ") + std::to_string(t.step);
    if (!copy.empty())
      out += "\n\nStep(s) " + copy +
             ": cp.async also reads its source from global memory (through L1) in the same "
             "pipe; an H100 takes 2.2 to 3.4 cycles per warp-wide cp.async below 4 wavefronts "
             "however few its shared-memory write needs, and about 0.45 more than its wavefronts "
             "from 4 up, so under about 5 wavefronts the copy, not the banks, sets the pace. The "
             "prediction follows the copy (docs/COST.md), not the wavefronts alone.";
    bool atomic = false;
    for (const StepTiming& t : r.exposed.steps) atomic |= t.kind == "atomic";
    if (atomic)
      out +=
          "\n\natomicAdd reads, adds and writes in the shared-memory unit: every lane takes its "
          "own pass through its bank, even lanes adding to the same bin (the model counts "
          "it so, as measured on Hopper). Where the bins depend on the data (a histogram), "
          "the model shows block 0 while the exposed run spreads over many blocks, so the two "
          "agree only on average.";
  }
  out += explain_counters(r);
  return out;
}

namespace {

// The most wavefronts the L1 unit was seen to count in one launch beyond its instructions'
// (docs/COUNTERS.md: up to 9,052 in the histograms' 4096-block launches on an H100).
constexpr double kStrayWavefronts = 16384;

// Why one row's hardware counts differ from the model, in words; empty when they agree.
std::string why_counters_differ(const CounterComparison& c, RunMode mode, const Arch* here) {
  if (!c.read || c.agrees()) return {};
  if (c.model_block0_only)
    return "the scenario names blockIdx, so its blocks access different addresses: the model "
           "shows block 0, the counters the average over every block launched";
  if (std::fabs(c.hw_instructions - c.model_instructions) > 1e-9) {
    if (mode == RunMode::Written)
      return "the compiled kernel issues " + std::to_string(std::llround(c.hw_instructions)) +
             " shared instructions per block where the lesson's code has " +
             std::to_string(std::llround(c.model_instructions)) +
             " accesses: the compiler merged neighbouring accesses into wider instructions "
             "(LDS.64, "
             "LDS.128), kept a value it had already loaded instead of loading it again, or "
             "added accesses for its own bookkeeping. The model counts the lesson's accesses as "
             "written; exposed mode forces one instruction per access (ld/st.volatile.shared), "
             "and `bankviz-cli source` shows the kernel";
    return "the launch executed a different number of shared instructions than the lesson "
           "has: the counters include something the model does not (please report it)";
  }
  // Written mode reads the lesson's launch once: the L1 unit's counts then include the
  // wavefronts no instruction asked for (docs/COUNTERS.md), which exposed mode cancels.
  const double excess = (c.hw_wavefronts - c.model_wavefronts) * double(c.launch_blocks);
  if (mode == RunMode::Written && c.launch_blocks > 0 && excess > 0 && excess <= kStrayWavefronts)
    return "the counters are the L1 unit's, which also count wavefronts that no instruction of "
           "the kernel asked for: up to about ten thousand in a launch on an H100, and this "
           "launch counted " +
           std::to_string(std::llround(excess)) + " more than the model over its " +
           std::to_string(c.launch_blocks) +
           " blocks. Exposed mode reads each step as the difference of two launches, which "
           "cancels them";
  if (here && !here->measured)
    return "this GPU's rules (" + std::string(here->name) + ", " + provenance_summary(*here) +
           ") are not Hopper's measured ones: `bankviz-cli validate` shows exactly where they "
           "hold on this GPU";
  return "the same instructions cost a different number of wavefronts than the model says: "
         "`bankviz-cli validate` checks the rules access by access (please report it)";
}

}  // namespace

std::string explain_counters(const RunResult& r) {
  if (r.status != RunStatus::Ok || r.counters == CounterStatus::Off) return {};
  if (r.counters != CounterStatus::Ok) return "\n\nHardware counters: " + r.counters_message;
  const Arch* here = find_arch(r.device.model_arch);
  std::vector<std::string> lines;
  int agree = 0, read = 0;
  auto row = [&](const std::string& what, const CounterComparison& c) {
    if (!c.read) return;
    ++read;
    if (c.agrees()) {
      ++agree;
      return;
    }
    lines.push_back(what + ": " + format_comparison(c) +
                    ". Why: " + why_counters_differ(c, r.mode, here) + ".");
  };
  if (r.mode == RunMode::Written) {
    row("The lesson's kernel", r.written.hw);
  } else {
    for (const StepTiming& t : r.exposed.steps) row("Step " + std::to_string(t.step), t.hw);
  }
  if (read == 0) return {};
  std::string out =
      "\n\nHardware counters (the GPU's own, as Nsight Compute reports them, read through CUPTI "
      "in launches of their own): ";
  if (lines.empty())
    return out + (read == 1
                      ? "they agree with the model."
                      : "they agree with the model on all " + std::to_string(read) + " steps.");
  out += std::to_string(agree) + " of " + std::to_string(read) + " agree with the model.";
  for (const std::string& l : lines) out += "\n  " + l;
  return out;
}

namespace detail {

std::string format_errors(const std::vector<Diagnostic>& errors) {
  std::string out;
  for (const Diagnostic& d : errors) {
    if (!out.empty()) out += '\n';  // not ("" or "\n") + ...: GCC 12's -Wrestrict false positive
    out += d.format();
  }
  return out;
}

std::string step_label(const Step& st) {
  return st.label.empty() ? std::string(step_kind_name(st.kind)) + " " + st.index : st.label;
}

std::string arch_note(const Scenario& s, const DeviceInfo& dev) {
  const Arch* sa = find_arch(s.arch);
  const Arch* ma = find_arch(dev.model_arch);
  if (!sa || !ma || sa == ma) return {};
  std::string note = "The scenario simulates " + std::string(sa->name) + " (" +
                     std::to_string(sa->banks) + " banks of " + std::to_string(sa->bank_bytes) +
                     " bytes). It ran on " + dev.name + " (" + dev.sm + "), which always serves " +
                     "shared memory with " + std::to_string(ma->banks) + " banks of " +
                     std::to_string(ma->bank_bytes) + " bytes";
  if (sa->bank_bytes == 8)
    note += " (since Maxwell the 8-byte bank setting is accepted and ignored)";
  note += ": the measurement follows the " + std::string(ma->name) + " model, shown next to the " +
          std::string(sa->name) + " prediction.";
  return note;
}

}  // namespace detail
}  // namespace bankviz
