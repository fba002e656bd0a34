// measure.h: real-kernel timing on a worker thread, so the UI never blocks.
//
// The measurement panel is a view over a Measurer: it asks for the current scenario to be
// measured and shows the state (idle, running, done, unavailable) and the history of results as
// parameters change. The run itself is a function given at start-up (the kernels runner); without
// one, or without a CUDA device, the state says why and the model keeps working.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/counters.h"
#include "bankviz/run_types.h"
#include "bankviz/scenario.h"
#include "jobs/latest_job.h"

namespace bankviz::gui {

struct Measurement {
  bool ok = false;
  std::string error;                  // why there is no timing ("no CUDA device ...")
  bool no_device = false;             // the error is that there is no GPU (Measurer: unavailable)
  std::string device;                 // "NVIDIA H200 (sm_90)"
  std::string device_name, sm;        // "NVIDIA H200", "sm_90"
  std::string model_arch;             // the rule set of this GPU ("hopper")
  std::string mode;                   // "as written" / "exposed"
  double microseconds = 0;            // kernel time
  double cycles_per_instruction = 0;  // per warp-wide shared instruction
  double predicted = 0;               // model's wavefronts per instruction
  std::string label;                  // what changed, for the history plot ("tile[32][33]")
  std::vector<std::string> lines;  // per step: "load tile[tx][ty]: 32.02 cycles/instr (model 32)"
  std::string explanation;         // what the two run modes measure and why they differ, in words
  // The GPU's own counters beside the model (CUPTI, counters.h), per lesson block: each exposed
  // step, then the written kernel as a whole. counters_problem: why none were read, with the fix.
  struct CounterRow {
    std::string what;  // "step 2: load tile[tx][ty]" / "as written: the whole kernel"
    CounterComparison hw;
  };
  std::vector<CounterRow> counters;
  std::string counters_problem;
  // The written kernel as the compiler made it (kernels/compiled.h: the cubin's SASS served with
  // the trace's addresses), per lesson block: the steps where it differs from the model as written
  // and why ("one LDS.128 per thread covers 4 ..."); the written kernel's counters equal this
  // model. compiled_read: the SASS was read (no rows then: every step as written);
  // compiled_problem: why not (no nvdisasm).
  struct CompiledRow {
    std::string what;  // "step 3: load tile[ty][k]"
    int64_t written_instructions = 0, written_wavefronts = 0;
    int64_t instructions = 0, wavefronts = 0;
    std::string reason;
  };
  std::vector<CompiledRow> compiled;
  bool compiled_read = false;
  std::string compiled_problem;
  // Per memory step of the scenario (exposed mode): measured cycles per warp instruction beside
  // the model's wavefronts, for the figure on stage at the verdict (stage_line).
  struct StepFigure {
    int step = 0;  // index into Scenario::steps
    double cycles = 0, model = 0;
  };
  std::vector<StepFigure> steps;
  uint64_t request = 0;  // which Measurer::request() this answers (Measurer::current())
  // The figure alone (exposed timing, no counters): handed over first so that the figure on stage
  // follows an edit within a second; the counters, the lesson's launch and the compiled kernel
  // come with the whole measurement. A figure-only request (a comparison's sides, a sweep's points)
  // ends here.
  bool partial = false;
  // Where the figures come from when not this machine's GPU: "measured on H200, recorded
  // 2026-11-29" (a recorded set, recorded.h; `recorded_note` says when its rules are older) or
  // "H200 on gpu1" (a GPU elsewhere, gpu_client.h).
  std::string recorded, recorded_note;
  std::string remote;
  // The connection to the GPU elsewhere was lost: this is the last figure measured, kept and
  // marked stale ("stale: the connection to gpu1 was lost ...").
  std::string stale;
};

// What a measurement is asked for: `figure_only` stops after the exposed timing (the comparison's
// ratio, a sweep point); `figure` (may be empty) receives the figure before the rest is measured.
struct MeasureCall {
  bool figure_only = false;
  std::function<void(const Measurement&)> figure;
};

// The measured figure a room sees at the verdict, for the scenario step `step` (index into
// Scenario::steps): "measured on H100: 32.83 cycles per instruction, model 32". Empty when `m`
// has no figure for that step.
std::string stage_line(const Measurement& m, int step);

// Where a measurement's runs are made: this machine's GPU (the kernels library's Runner), one
// elsewhere (RemoteGpu, remote_gpu.h) or none.
class RunBackend {
 public:
  virtual ~RunBackend() = default;
  // The GPU, or present=false with the reason.
  virtual DeviceInfo device(std::string* reason) = 0;
  virtual RunResult run(const Scenario& s, const RunOptions& o) = 0;
};

// A measurement made through `gpu`: the exposed figure first (to call.figure), then unless
// call.figure_only the counters, the lesson's launch and the compiled kernel.
Measurement measure_on(RunBackend& gpu, const Scenario& s, const MeasureCall& call);

// A measurement from the recorded sets (recorded.h) where exactly this scenario was recorded,
// labelled (Measurement::recorded); else ok=false with "not measured: connect a GPU (--gpu
// HOST)" (not no_device: the next edit is looked up again).
Measurement measure_recorded(const Scenario& s, const MeasureCall& call);

// This machine's GPU (measure_with_runner) while it has one; without one, the recorded sets
// (measure_recorded): the app's runner when no GPU elsewhere is set.
Measurement measure_here_or_recorded(const Scenario& s, const MeasureCall& call);

// The kernels library's Runner on this thread's behalf: the exposed timing without counters first
// (the figure, handed to call.figure), then unless call.figure_only the counters, the lesson's
// launch and the compiled kernel. Builds a Measurement with ok=false and the reason when there is
// no device.
Measurement measure_with_runner(const Scenario& s, const MeasureCall& call);

// Where a runner's figures come from, in words, for Measurer::source() on the UI thread: the
// worker fills it in (the recorded sets are read there, never on the UI thread).
struct FoundSource {
  void set(std::string s) {
    std::lock_guard<std::mutex> lock(mu);
    text = std::move(s);
  }
  std::string get() {
    std::lock_guard<std::mutex> lock(mu);
    return text;
  }

 private:
  std::mutex mu;
  std::string text;
};

// The recorded sets' labels ("measured on H200, recorded 2026-11-29"), or that there are none
// and what to do.
std::string recorded_sets_words();

// The GPU measurement as a LatestJob (jobs/latest_job.h): the newest scenario asked for is
// measured, and the panels read the state, the last measurement and the history.
class Measurer {
 public:
  using RunFn = std::function<Measurement(const Scenario&, const MeasureCall&)>;
  // Unavailable: no runner, or it reported no GPU; Idle: nothing measured yet; Running: the
  // newest request is being measured; Done: it was (ok, or with the failure in its error).
  enum class State { Idle, Running, Done, Unavailable };

  Measurer();
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  // A runner (the kernels library's, or a test's): measurements can be asked for. The second form
  // is a runner that hands over no figure first.
  void set_runner(RunFn fn);
  void set_runner(std::function<Measurement(const Scenario&)> fn);
  // Where the figures come from, in words, asked by the panels each frame ("H200 on gpu1",
  // "connecting to gpu1", "recorded on H200"); empty: this machine's GPU.
  void set_source(std::function<std::string()> source);
  std::string source() const;
  // No GPU: the panels show `reason`, requests are ignored.
  void set_unavailable(std::string reason);
  // How to end the current runner's run in flight at once (a GPU elsewhere that does not
  // answer: RemoteGpu::cancel). Called, from the calling thread, when the runner is replaced
  // (set_runner, set_unavailable) and when the Measurer ends, so that neither waits for a hung
  // request's deadline; a runner set after this has none until it sets its own.
  void set_cancel(std::function<void()> cancel);
  // Queues the scenario; a newer request replaces a queued one. No-op when unavailable.
  // figure_only: the exposed timing only (MeasureCall).
  void request(const Scenario& s, bool figure_only = false);

  // Blocks until no run is queued or running, at most `seconds` (headless screenshots, tests).
  void wait(double seconds) { job_.wait(seconds); }

  State state() const;
  // Why there is no measurement: no GPU, or the last run's failure.
  std::string reason() const;
  std::optional<Measurement> last() const;
  // The last measurement when it answers the newest request (the scenario on screen), else none.
  std::optional<Measurement> current() const;
  std::vector<Measurement> history() const;  // ok results, oldest first, at most 64

 private:
  void finished(const Measurement& m);  // on the worker: history, availability
  void cancel_running();                // the replaced runner's cancel, if any
  mutable std::mutex mu_;               // guards what follows, up to job_
  bool unavailable_ = true;
  std::string reason_ = "no CUDA device: the model still works, timing unavailable";
  std::vector<Measurement> history_;
  std::function<std::string()> source_;
  std::function<void()> cancel_;
  // Last, so it is destroyed first: its destructor waits for a running measurement, whose
  // finished() still uses the members above.
  struct Request {
    Scenario scenario;
    bool figure_only = false;
  };
  LatestJob<Request, Measurement> job_;
};

// The recorded sets alone: the GPU setting "recorded" (`what`: "the recorded figures only"),
// and the browser, which runs no kernel ("no GPU in a browser: the recorded figures"). The
// source says which sets, or that there are none.
void use_recorded(Measurer& m, const std::string& what = "the recorded figures only");

#ifdef __EMSCRIPTEN__
// The page was opened from `bankviz-cli serve --http` (browser_gpu.cpp): true when it measures
// there (the server's GPU), or shows the recorded figures with the reason the server has no GPU
// (the page said which in the environment); false: no server (a static site).
bool use_served_gpu(Measurer& m);
#endif

}  // namespace bankviz::gui
