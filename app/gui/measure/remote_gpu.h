// remote_gpu.h: the app's measurements on a GPU elsewhere (--gpu HOST, --gpu-command CMD, the
// GPU setting): app/remote/gpu_client.h's one connection, kept open and opened again after a
// drop, behind the Measurer's RunBackend, with its state in words for the toolbar ("connecting to
// gpu1", "H200 on gpu1", "lost: ..."). Used from the Measurer's worker; status() from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "gpu_client.h"
#include "measure/measure.h"
#include "shell/settings.h"

namespace bankviz::gui {

class RemoteGpu : public RunBackend {
 public:
  enum class State { Connecting, Connected, NoGpu, Lost, Failed };
  explicit RemoteGpu(GpuTarget target);

  DeviceInfo device(std::string* reason) override;
  RunResult run(const Scenario& s, const RunOptions& o) override;

  State state() const;
  // "connecting to gpu1", "H200 on gpu1", "gpu1 has no usable GPU: ...", "lost: ..."
  std::string status() const;
  // The last run failed because the connection did (not the kernel).
  bool lost() const;
  // From any thread: the request in flight ends now and none is made again (GpuClient::cancel):
  // the GPU menu's switch away from this GPU, and the app's end.
  void cancel() { client_.cancel(); }
  const GpuTarget& target() const { return target_; }

 private:
  void set(State s, std::string text);

  GpuTarget target_;
  GpuClient client_;
  mutable std::mutex mu_;
  State state_ = State::Connecting;
  std::string status_;
};

// The Measurer's runner through `gpu`: a failed connection leaves the Measurer available (the
// next edit tries again); after a lost connection the last figure is kept, marked stale
// (Measurement::stale).
std::function<Measurement(const Scenario&, const MeasureCall&)> remote_runner(
    std::shared_ptr<RemoteGpu> gpu);

// The app's measurements: through `target` when it names a GPU elsewhere (--gpu, --gpu-command,
// the GPU setting), else this machine's GPU and, without one, the recorded sets; the Measurer's
// source() says which ("H200 on gpu1", "this machine's GPU", "none on this machine: ...").
void use_gpu(Measurer& m, const GpuTarget& target);

// The GPU setting (settings.h: the toolbar's GPU menu): this machine's GPU (without one the
// recorded sets), ssh to `host`, `command`, or the recorded sets.
// Empty when the Measurer now measures there; else why not (a host that starts with '-' or
// holds a space, a blank command), the Measurer left as it was.
std::string use_gpu_setting(Measurer& m, Settings::GpuSource source, const std::string& host,
                            const std::string& command);

}  // namespace bankviz::gui
