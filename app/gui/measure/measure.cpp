// measure.cpp: the measurement worker (see measure.h).
#include "measure/measure.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "gpu_protocol.h"  // short_gpu_name
#include "recorded.h"      // figure_words

namespace bankviz::gui {

Measurer::Measurer()
    : job_({}, [](const std::string& why) {
        Measurement m;
        m.error = "the measurement failed: " + why;
        return m;
      }) {
  job_.keep_last(true);
  job_.on_done([this](uint64_t, const Measurement& m) { finished(m); });
}

Measurer::~Measurer() {
  cancel_running();
}  // then job_'s end waits for no hung request

void Measurer::cancel_running() {
  std::function<void()> cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel = std::move(cancel_);
    cancel_ = nullptr;
  }
  if (cancel) cancel();
}

void Measurer::set_cancel(std::function<void()> cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  cancel_ = std::move(cancel);
}

void Measurer::set_runner(RunFn fn) {
  cancel_running();
  job_.set_function([this, fn = std::move(fn)](const Request& r) {
    MeasureCall call;
    call.figure_only = r.figure_only;
    call.figure = [this](const Measurement& m) { job_.progress(m); };
    return fn(r.scenario, call);
  });
  std::lock_guard<std::mutex> lock(mu_);
  unavailable_ = false;
}

void Measurer::set_runner(std::function<Measurement(const Scenario&)> fn) {
  set_runner([fn = std::move(fn)](const Scenario& s, const MeasureCall&) { return fn(s); });
}

void Measurer::set_source(std::function<std::string()> source) {
  std::lock_guard<std::mutex> lock(mu_);
  source_ = std::move(source);
}

std::string Measurer::source() const {
  std::function<std::string()> f;
  {
    std::lock_guard<std::mutex> lock(mu_);
    f = source_;
  }
  return f ? f() : std::string();
}

void Measurer::set_unavailable(std::string reason) {
  cancel_running();
  std::lock_guard<std::mutex> lock(mu_);
  unavailable_ = true;
  reason_ = std::move(reason);
}

void Measurer::request(const Scenario& s, bool figure_only) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (unavailable_) return;
  }
  job_.request({s, figure_only});
}

void Measurer::finished(const Measurement& m) {
  std::lock_guard<std::mutex> lock(mu_);
  if (m.ok) {
    history_.push_back(m);
    if (history_.size() > 64) history_.erase(history_.begin());
  }
  // Only "no GPU" makes the Measurer unavailable: a scenario whose kernel failed is shown as
  // that measurement's failure, and the next edit is measured again.
  if (m.no_device) {
    unavailable_ = true;
    reason_ = m.error;
  }
}

Measurer::State Measurer::state() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (unavailable_) return State::Unavailable;
  }
  if (job_.busy()) return State::Running;
  return job_.last() ? State::Done : State::Idle;
}

std::string Measurer::reason() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (unavailable_) return reason_;
  }
  std::optional<Measurement> m = last();
  return m && !m->ok ? m->error : std::string();
}

std::optional<Measurement> Measurer::last() const {
  auto d = job_.last();
  if (!d) return std::nullopt;
  d->result.request = d->id;
  return std::move(d->result);
}

std::optional<Measurement> Measurer::current() const {
  auto d = job_.current();
  if (!d) return std::nullopt;
  d->result.request = d->id;
  return std::move(d->result);
}

std::vector<Measurement> Measurer::history() const {
  std::lock_guard<std::mutex> lock(mu_);
  return history_;
}

std::string stage_line(const Measurement& m, int step) {
  if (!m.ok) return {};
  for (const Measurement::StepFigure& f : m.steps) {
    if (f.step != step || f.cycles <= 0) continue;
    // "NVIDIA H100 80GB HBM3" -> "H100": what a room calls the card.
    const std::string card = short_gpu_name(m.device_name);
    // A recorded figure says where and when: "measured on H200, recorded 2026-11-29: ...".
    const std::string where = m.recorded.empty() ? "measured on " + card : m.recorded;
    const std::string buf = figure_words(where, f.cycles, f.model);
    // The connection to the GPU elsewhere was lost: the last figure, marked.
    return m.stale.empty() ? buf : buf + " (stale: GPU connection lost)";
  }
  return {};
}

}  // namespace bankviz::gui

// [SECTION] The kernels runner (called on the worker thread only)

#include <cstdio>

#include "bankviz/compiled.h"
#include "bankviz/runner.h"
#include "data_dir.h"
#include "recorded.h"

namespace bankviz::gui {

namespace {

// The written kernel as compiled, where it differs from as written (compiled.h), into m.
void as_compiled_rows(const Scenario& s, const DeviceInfo& dev, Measurement& m) {
  const AsCompiled c = as_compiled(s, find_arch(dev.model_arch));
  if (!c.error.empty()) {
    m.compiled_problem = c.error;
    return;
  }
  m.compiled_read = true;
  for (const CompiledStep& st : c.steps) {
    if (!st.differs()) continue;
    Measurement::CompiledRow row;
    row.what = "step " + std::to_string(st.step);
    if (st.step >= 0 && static_cast<size_t>(st.step) < s.steps.size()) {
      const Step& step = s.steps[static_cast<size_t>(st.step)];
      row.what += ": " + step.kind_text() + " " + (step.label.empty() ? step.index : step.label);
    }
    row.written_instructions = st.written_instructions;
    row.written_wavefronts = st.written_wavefronts;
    row.instructions = st.instructions;
    row.wavefronts = st.wavefronts;
    row.reason = st.reason;
    m.compiled.push_back(std::move(row));
  }
}

}  // namespace

namespace {

// The exposed figure of `fig` into m (the stage's figure and the panel's lines).
void figure_of(const RunResult& fig, Measurement& m) {
  m.ok = true;
  m.mode = "exposed";
  double cycles = 0, model = 0;
  for (const StepTiming& st : fig.exposed.steps) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: %.2f cycles/instr (model %.2f wavefronts)",
                  st.label.c_str(), st.cycles_per_instruction, st.scenario_wavefronts);
    m.lines.push_back(buf);
    // Where this GPU's prediction is not one cycle per wavefront: the cycles and the rule.
    if (!st.prediction.empty()) {
      std::snprintf(buf, sizeof buf, "  predicted %.2f cycles/instr: ", st.predicted_cycles);
      m.lines.push_back(std::string(buf) + st.prediction);
    }
    m.steps.push_back({st.step, st.cycles_per_instruction, st.scenario_wavefronts});
    cycles += st.cycles_per_instruction;
    model += st.scenario_wavefronts;
  }
  m.cycles_per_instruction = cycles;
  m.predicted = model;
  m.partial = true;
  if (!fig.arch_note.empty()) m.lines.push_back(fig.arch_note);
  if (!fig.verification.summary.empty()) m.lines.push_back(fig.verification.summary);
}

void device_of(const DeviceInfo& dev, Measurement& m) {
  m.device = dev.name + " (" + dev.sm + ", " + std::to_string(dev.sm_count) + " SMs)";
  m.device_name = dev.name;
  m.sm = dev.sm;
  m.model_arch = dev.model_arch;
}

// The rest after the figure: the counters of `ex` (the exposed run with them, or the figure's
// run when that failed: `counters_failed` says why), the lesson's launch `wr`, the compiled kernel.
void rest_of(const Scenario& s, const RunResult& fig, const RunResult& ex, const RunResult& wr,
             const std::string& counters_failed, bool compiled, Measurement& m) {
  m.partial = false;
  m.mode = "exposed + as written";
  if (wr.status == RunStatus::Ok) m.microseconds = wr.written.us_per_launch;
  // The same words as `bankviz-cli run`: what each mode measures, why the lesson's launch hides
  // most of the conflict, and (for a simulated architecture) why the GPU disagrees with it.
  m.explanation = explain_result(s, fig);
  if (wr.status == RunStatus::Ok) m.explanation += "\n\n" + explain_result(s, wr);
  for (const StepTiming& st : ex.exposed.steps)
    if (st.hw.read)
      m.counters.push_back({"step " + std::to_string(st.step) + ": " + st.label, st.hw});
  if (wr.status == RunStatus::Ok && wr.written.hw.read)
    m.counters.push_back({"as written: the whole kernel", wr.written.hw});
  if (ex.counters != CounterStatus::Ok && ex.counters != CounterStatus::Off)
    m.counters_problem = ex.counters_message;
  if (!counters_failed.empty()) m.counters_problem = counters_failed;
  if (compiled && wr.status == RunStatus::Ok) as_compiled_rows(s, fig.device, m);
}

// This machine's GPU: one Runner for the worker thread's life (the CUDA context, the modules).
class LocalGpu : public RunBackend {
 public:
  DeviceInfo device(std::string* reason) override { return runner_.device(reason); }
  RunResult run(const Scenario& s, const RunOptions& o) override { return runner_.run(s, o); }

 private:
  Runner runner_;
};

}  // namespace

Measurement measure_on(RunBackend& gpu, const Scenario& s, const MeasureCall& call) {
  Measurement m;
  std::string reason;
  DeviceInfo dev = gpu.device(&reason);
  if (!dev.present) {
    m.error = "no CUDA device: the model still works, timing unavailable (" + reason + ")";
    m.no_device = true;
    return m;
  }
  device_of(dev, m);
  // The figure first: exposed timing without the counters' launches (0.05-0.8 s on an H100 for
  // the seeds' scenarios, against 0.8-3 s for the whole measurement: BENCHMARKS.md).
  RunOptions o;
  o.mode = RunMode::Exposed;
  o.counters = false;
  RunResult fig = gpu.run(s, o);
  if (fig.status != RunStatus::Ok) {
    m.error = std::string(run_status_name(fig.status)) + ": " + fig.message;
    return m;
  }
  if (fig.device.present) device_of(fig.device, m);
  figure_of(fig, m);
  if (call.figure_only) return m;
  if (call.figure) call.figure(m);
  // The rest: the GPU's counters (exposed steps once more, read, not re-timed: the figure above
  // stays), the lesson's launch, the compiled kernel.
  o.counters = true;
  o.timing_runs = 1;
  RunResult ex = gpu.run(s, o);
  std::string counters_failed;
  if (ex.status != RunStatus::Ok) {  // the figure stands; no counters, and why
    counters_failed =
        "the counters' run failed: " + std::string(run_status_name(ex.status)) + ": " + ex.message;
    ex = fig;
  }
  o.mode = RunMode::Written;
  o.timing_runs = RunOptions{}.timing_runs;
  const RunResult wr = gpu.run(s, o);
  rest_of(s, fig, ex, wr, counters_failed, true, m);
  return m;
}

Measurement measure_with_runner(const Scenario& s, const MeasureCall& call) {
  thread_local LocalGpu gpu;
  return measure_on(gpu, s, call);
}

Measurement measure_here_or_recorded(const Scenario& s, const MeasureCall& call) {
  thread_local bool no_gpu_here = false;
  if (!no_gpu_here) {
    Measurement m = measure_with_runner(s, call);
    if (!m.no_device) return m;
    no_gpu_here = true;
  }
  return measure_recorded(s, call);
}

std::string recorded_sets_words() {
  const std::vector<RecordedSet>& sets = shipped_recorded_sets();
#ifdef __EMSCRIPTEN__
  if (sets.empty())
    return "none could be loaded with this page: the model's figures only (the desktop app "
           "measures on a GPU)";
#else
  if (sets.empty())
    return "no recorded measurements in " + assets_dir() +
           "/recorded: connect a GPU (the GPU menu, --gpu HOST)";
#endif
  std::string words;
  for (const RecordedSet& set : sets) words += (words.empty() ? "" : "; ") + recorded_label(set);
  return words;
}

void use_recorded(Measurer& m, const std::string& what) {
  auto found = std::make_shared<FoundSource>();
  found->set(what);
  m.set_runner([found, what](const Scenario& s, const MeasureCall& call) {
    found->set(what + " (" + recorded_sets_words() + ")");
    return measure_recorded(s, call);
  });
  m.set_source([found] { return found->get(); });
}

Measurement measure_recorded(const Scenario& s, const MeasureCall& call) {
  Measurement m;
  const std::vector<RecordedSet>& sets = shipped_recorded_sets();
  const std::optional<RecordedRun> ex = find_recorded_run(sets, s, RunMode::Exposed);
  if (!ex) {
    m.error = kNotMeasured;
    return m;
  }
  device_of(ex->result.device, m);
  m.recorded = ex->label;
  m.recorded_note = ex->note;
  figure_of(ex->result, m);
  if (call.figure_only) return m;
  const std::optional<RecordedRun> wr = find_recorded_run(sets, s, RunMode::Written);
  RunResult written;
  if (wr) written = wr->result;
  // Recorded sets hold the runs, not the cubin: the compiled kernel is not shown.
  rest_of(s, ex->result, ex->result, written, "", false, m);
  return m;
}

}  // namespace bankviz::gui
