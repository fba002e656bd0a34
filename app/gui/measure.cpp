// measure.cpp: the measurement worker (see measure.h).
#include "measure.h"

#include <chrono>
#include <cstdio>

namespace bankviz::gui {

Measurer::~Measurer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Measurer::set_runner(RunFn fn) {
  std::lock_guard<std::mutex> lock(mu_);
  run_ = std::move(fn);
  state_ = State::Idle;
  if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
}

void Measurer::set_unavailable(std::string reason) {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = State::Unavailable;
  reason_ = std::move(reason);
}

void Measurer::request(const Scenario& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::Unavailable || !run_) return;
    queued_ = s;
    ++requested_;
    state_ = State::Running;
  }
  cv_.notify_all();
}

void Measurer::wait(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait_for(lock, std::chrono::duration<double>(seconds),
                 [&] { return state_ != State::Running; });
}

Measurer::State Measurer::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

std::string Measurer::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

std::optional<Measurement> Measurer::last() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

std::optional<Measurement> Measurer::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ && last_->request == requested_) return last_;
  return std::nullopt;
}

std::string stage_line(const Measurement& m, int step) {
  if (!m.ok) return {};
  for (const Measurement::StepFigure& f : m.steps) {
    if (f.step != step || f.cycles <= 0) continue;
    // "NVIDIA H100 80GB HBM3" -> "H100": what a room calls the card.
    std::string card = m.device_name;
    if (card.rfind("NVIDIA ", 0) == 0) card = card.substr(7);
    if (size_t sp = card.find(' '); sp != std::string::npos) card.resize(sp);
    char buf[160];
    std::snprintf(buf, sizeof buf, "measured on %s: %.2f cycles per instruction, model %.4g",
                  card.empty() ? "the GPU" : card.c_str(), f.cycles, f.model);
    return buf;
  }
  return {};
}

std::vector<Measurement> Measurer::history() const {
  std::lock_guard<std::mutex> lock(mu_);
  return history_;
}

void Measurer::worker() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || queued_.has_value(); });
    if (stop_) return;
    Scenario s = std::move(*queued_);
    queued_.reset();
    const uint64_t request = requested_;
    RunFn fn = run_;
    lock.unlock();
    Measurement m = fn(s);  // the slow part: compile, launch, verify, time
    m.request = request;
    lock.lock();
    last_ = m;
    if (m.ok) {
      history_.push_back(m);
      if (history_.size() > 64) history_.erase(history_.begin());
    }
    if (!queued_) state_ = m.ok || m.error.empty() ? State::Done : State::Unavailable;
    if (!m.ok && !m.error.empty()) reason_ = m.error;
    done_.notify_all();
  }
}

}  // namespace bankviz::gui

// [SECTION] The kernels runner (called on the worker thread only)

#include <cstdio>

#include "bankviz/runner.h"

namespace bankviz::gui {

Measurement measure_with_runner(const Scenario& s) {
  // One Runner for the worker thread's life: it owns the CUDA context and the module cache.
  thread_local Runner runner;
  Measurement m;
  std::string reason;
  DeviceInfo dev = runner.device(&reason);
  if (!dev.present) {
    m.error = "no CUDA device: the model still works, timing unavailable (" + reason + ")";
    return m;
  }
  m.device = dev.name + " (" + dev.sm + ", " + std::to_string(dev.sm_count) + " SMs)";
  m.device_name = dev.name;
  m.sm = dev.sm;
  m.model_arch = dev.model_arch;
  RunOptions o;
  o.mode = RunMode::Exposed;
  RunResult ex = runner.run(s, o);
  if (ex.status != RunStatus::Ok) {
    m.error = std::string(run_status_name(ex.status)) + ": " + ex.message;
    return m;
  }
  o.mode = RunMode::Written;
  RunResult wr = runner.run(s, o);
  m.ok = true;
  m.mode = "exposed + as written";
  double cycles = 0, model = 0;
  for (const StepTiming& st : ex.exposed.steps) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: %.2f cycles/instr (model %.2f wavefronts)",
                  st.label.c_str(), st.cycles_per_instruction, st.scenario_wavefronts);
    m.lines.push_back(buf);
    m.steps.push_back({st.step, st.cycles_per_instruction, st.scenario_wavefronts});
    cycles += st.cycles_per_instruction;
    model += st.scenario_wavefronts;
  }
  m.cycles_per_instruction = cycles;
  m.predicted = model;
  if (wr.status == RunStatus::Ok) m.microseconds = wr.written.us_per_launch;
  // The same words as `bankviz-cli run`: what each mode measures, why the lesson's launch hides
  // most of the conflict, and (for a simulated architecture) why the GPU disagrees with it.
  m.explanation = explain_result(s, ex);
  if (wr.status == RunStatus::Ok) m.explanation += "\n\n" + explain_result(s, wr);
  for (const StepTiming& st : ex.exposed.steps)
    if (st.hw.read)
      m.counters.push_back({"step " + std::to_string(st.step) + ": " + st.label, st.hw});
  if (wr.status == RunStatus::Ok && wr.written.hw.read)
    m.counters.push_back({"as written: the whole kernel", wr.written.hw});
  if (ex.counters != CounterStatus::Ok && ex.counters != CounterStatus::Off)
    m.counters_problem = ex.counters_message;
  if (!ex.arch_note.empty()) m.lines.push_back(ex.arch_note);
  if (!ex.verification.summary.empty()) m.lines.push_back(ex.verification.summary);
  return m;
}

}  // namespace bankviz::gui
