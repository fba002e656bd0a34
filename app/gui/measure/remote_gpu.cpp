// remote_gpu.cpp: RemoteGpu and its runner (remote_gpu.h).
#include "measure/remote_gpu.h"

#include "data_dir.h"
#include "recorded.h"
#include "remote_run.h"

namespace bankviz::gui {

RemoteGpu::RemoteGpu(GpuTarget target) : target_(target), client_(std::move(target)) {
  status_ = "connecting to " + target_.where();
}

void RemoteGpu::set(State s, std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = s;
  status_ = std::move(text);
}

DeviceInfo RemoteGpu::device(std::string* reason) {
  DeviceInfo d;
  if (!client_.connected()) {
    set(State::Connecting, "connecting to " + target_.where());
    if (std::string why = client_.connect(); !why.empty()) {
      set(State::Failed, why);
      if (reason) *reason = why;
      return d;
    }
  }
  if (std::string why = client_.require_gpu(); !why.empty()) {
    set(State::NoGpu, why);
    if (reason) *reason = why;
    return d;
  }
  const GpuDevice& g = client_.greeting().device;
  d.present = true;
  d.name = g.name;
  d.sm = g.sm;
  set(State::Connected, short_gpu_name(g.name) + " on " + target_.where());
  return d;
}

RunResult RemoteGpu::run(const Scenario& s, const RunOptions& o) {
  bool dropped = false;
  RunResult r = run_remote(client_, s, o, &dropped);
  if (dropped) set(State::Lost, "lost: " + r.message);
  return r;
}

RemoteGpu::State RemoteGpu::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

std::string RemoteGpu::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

bool RemoteGpu::lost() const {
  return state() == State::Lost;
}

std::function<Measurement(const Scenario&, const MeasureCall&)> remote_runner(
    std::shared_ptr<RemoteGpu> gpu) {
  auto last = std::make_shared<std::optional<Measurement>>();
  return [gpu, last](const Scenario& s, const MeasureCall& call) {
    Measurement m = measure_on(*gpu, s, call);
    if (m.ok) {
      m.remote = gpu->status();
      *last = m;
      return m;
    }
    const RemoteGpu::State st = gpu->state();
    // Not reaching the GPU is not "no GPU": the next edit tries again.
    if (st == RemoteGpu::State::Failed || st == RemoteGpu::State::Lost) m.no_device = false;
    if (st == RemoteGpu::State::Lost && *last) {
      Measurement stale = **last;
      stale.stale = gpu->status();
      return stale;
    }
    return m;
  };
}

void use_gpu(Measurer& m, const GpuTarget& target) {
  if (target.empty()) {
    auto found = std::make_shared<FoundSource>();
    found->set("this machine's GPU");
    m.set_runner([found](const Scenario& s, const MeasureCall& call) {
      Measurement r = measure_here_or_recorded(s, call);
      if (r.recorded.empty() && r.error != kNotMeasured) return r;  // this machine's GPU
      found->set("none on this machine: the recorded figures (" + recorded_sets_words() + ")");
      return r;
    });
    m.set_source([found] { return found->get(); });
    return;
  }
  auto gpu = std::make_shared<RemoteGpu>(target);
  m.set_runner(remote_runner(gpu));
  m.set_source([gpu] { return gpu->status(); });
  // A request that hangs there ends when another GPU is chosen or the app ends, not at its
  // deadline (the worker is then free for the next runner at once).
  m.set_cancel([gpu] { gpu->cancel(); });
}

std::string use_gpu_setting(Measurer& m, Settings::GpuSource source, const std::string& host,
                            const std::string& command) {
  GpuTarget t;
  switch (source) {
    case Settings::GpuSource::Here:
      use_gpu(m, t);
      return {};
    case Settings::GpuSource::Recorded:
      use_recorded(m);
      return {};
    case Settings::GpuSource::Ssh:
      if (host.empty()) return "the GPU menu: give an ssh destination (user@host)";
      t.host = host;
      break;
    case Settings::GpuSource::Command:
      if (command.empty()) return "the GPU menu: give a command (bankviz-cli serve)";
      t.command = command;
      break;
  }
  if (std::string why = t.problem(); !why.empty()) return why;
  use_gpu(m, t);
  return {};
}

}  // namespace bankviz::gui
