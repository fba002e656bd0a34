// record_gpu.h (internal, CUDA builds only): one block of a user's kernel recorded on the GPU
// (docs/RECORD.md), for Runner::profile() when ProfileRequest::record is set.
//
// The source is prepared by core's recording_source() for the GPU (each __shared__ declarator's
// storage renamed, a recording proxy in its name), compiled by NVRTC behind the device header
// kernels/record/bankviz_record_gpu.h (built into this library), and launched as the profile
// launches the kernel: the same grid, block, dynamic shared memory and arguments, on fresh zeroed
// buffers. Block (0,0,0) appends every shared access to a device buffer; the records are read
// back, written in the one recording format (recording.h) and parsed by core.
#pragma once

#include <optional>
#include <string>

#include "bankviz/profile.h"
#include "bankviz/record.h"
#include "bankviz/recording.h"
#include "driver.h"

namespace bankviz::detail {

struct GpuRecording {
  std::optional<Recording> recording;
  std::string why;  // when there is none: a refusal, NVRTC's message, a limit, an out-of-bounds
  bool timed_out = false;  // the launch did not finish: the caller abandons the context
};

// The context is current. A driver failure goes to st (the caller decides whether the context
// survives it: a sticky error or a timeout do not); objects are abandoned then, not released.
GpuRecording record_block_on_gpu(const ProfileRequest& req, const std::string& sm,
                                 DriverStatus& st);

}  // namespace bankviz::detail
