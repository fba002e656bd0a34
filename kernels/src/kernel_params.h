// kernel_params.h: a user kernel's parameters for cuLaunchKernel, from its --arg values
// (profile.h KernelArg): each buffer fresh device memory, zeroed; each value its bits. One home for
// the profile's launch (profile_run.cpp) and the GPU recording's (record_gpu.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/profile.h"
#include "driver.h"

namespace bankviz::detail {

struct KernelParams {
  std::vector<DeviceMemory> buffers;  // the buffers' memory (abandon() them after a timeout)
  std::vector<uint64_t> storage;      // each parameter's value (a buffer's device address)
  std::vector<void*> params;          // cuLaunchKernel's kernelParams: &storage[i]
  void** data() { return params.empty() ? nullptr : params.data(); }
};

// Fills `out` for `args`; false when a buffer cannot be allocated or zeroed: `st` holds the
// failed call and *which the argument's text.
bool make_kernel_params(DriverStatus& st, const std::vector<KernelArg>& args, KernelParams& out,
                        std::string* which);

}  // namespace bankviz::detail
