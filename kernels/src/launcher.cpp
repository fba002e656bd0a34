// launcher.cpp: launches, events and the watchdog's wait on the GPU (launcher.h).
#include "launcher.h"

#include <algorithm>

#include "bankviz/run_types.h"

namespace bankviz::detail {

bool Launcher::prepare(size_t out_values, const std::vector<uint32_t>& input) {
  if (!input.empty() &&
      !(status_.check(alloc_source(in_, input.size() * sizeof(uint32_t), &in_at_), "cuMemAlloc") &&
        status_.check(driver().cuMemcpyHtoD_(in_at_, input.data(), input.size() * sizeof(uint32_t)),
                      "cuMemcpyHtoD")))
    return false;
  return status_.check(alloc_device(out_, out_values * sizeof(uint32_t)), "cuMemAlloc") &&
         status_.check(create_event(e0_), "cuEventCreate") &&
         status_.check(create_event(e1_), "cuEventCreate");
}

int Launcher::blocks_per_sm(CUfunction fn, int64_t block_threads, int64_t dyn_bytes) {
  int per_sm = 0;
  status_.check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor_(
                    &per_sm, fn, static_cast<int>(block_threads), static_cast<size_t>(dyn_bytes)),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::max(per_sm, 1);
}

bool Launcher::launch(int64_t grid, int measure, int reps) {
  CUdeviceptr out = out_.get(), in = in_.get() ? in_at_ : 0;
  uint32_t warps = shape_.warps;
  // Written mode's kernel takes only `out` (and `in`); the driver reads as many arguments as it
  // declares.
  void* with_input[] = {&out, &in, &measure, &reps, &warps};
  void* without[] = {&out, &measure, &reps, &warps};
  void** args = in ? with_input : without;
  ++launches_;
  return status_.check(driver().cuLaunchKernel_(shape_.fn, static_cast<unsigned>(grid), 1, 1,
                                                static_cast<unsigned>(shape_.block[0]),
                                                static_cast<unsigned>(shape_.block[1]),
                                                static_cast<unsigned>(shape_.block[2]),
                                                shape_.dyn_bytes, nullptr, args, nullptr),
                       "cuLaunchKernel");
}

bool wait_for_event(DriverStatus& st, const Event& e, double timeout_ms, bool* timed_out) {
  CUresult failed = CUDA_SUCCESS;
  const WaitOutcome w = wait_with_timeout(
      [&] {
        const CUresult r = driver().cuEventQuery_(e.get());
        if (r == CUDA_SUCCESS) return 0;
        if (r == CUDA_ERROR_NOT_READY) return 1;
        failed = r;
        return 2;
      },
      timeout_ms);
  if (w == WaitOutcome::TimedOut) {
    if (timed_out) *timed_out = true;
    return st.check(CUDA_ERROR_LAUNCH_TIMEOUT, "the kernel");
  }
  return w == WaitOutcome::Done || st.check(failed, "the kernel");
}

bool Launcher::wait(const Event& e) {
  return wait_for_event(status_, e, timeout_ms_, &timed_out_);
}

double Launcher::timed(int64_t grid, int measure, int reps, int count) {
  const Driver& d = driver();
  if (!status_.check(d.cuEventRecord_(e0_.get(), nullptr), "cuEventRecord")) return -1;
  for (int i = 0; i < count; ++i)
    if (!launch(grid, measure, reps)) return -1;
  if (!status_.check(d.cuEventRecord_(e1_.get(), nullptr), "cuEventRecord")) return -1;
  if (!wait(e1_)) return -1;
  float ms = 0;
  if (!status_.check(d.cuEventElapsedTime_(&ms, e0_.get(), e1_.get()), "cuEventElapsedTime"))
    return -1;
  return ms;
}

bool Launcher::run_once(int64_t grid, int measure, int reps, std::vector<uint32_t>& host) {
  const Driver& d = driver();
  const size_t n = host.size();
  if (!status_.check(d.cuMemsetD32_(out_.get(), 0xDEADBEEFu, n), "cuMemsetD32")) return false;
  if (!launch(grid, measure, reps)) return false;
  if (!status_.check(d.cuEventRecord_(e1_.get(), nullptr), "cuEventRecord") || !wait(e1_))
    return false;
  return status_.check(d.cuMemcpyDtoH_(host.data(), out_.get(), n * sizeof(uint32_t)),
                       "cuMemcpyDtoH");
}

void Launcher::release() {
  status_.check(e0_.release(), "cuEventDestroy");
  status_.check(e1_.release(), "cuEventDestroy");
  status_.check(out_.release(), "cuMemFree");
  status_.check(in_.release(), "cuMemFree");
}

void Launcher::abandon() {
  e0_.abandon();
  e1_.abandon();
  out_.abandon();
  in_.abandon();
}

}  // namespace bankviz::detail
