// driver_version.h: the CUDA version the installed driver supports (cuDriverGetVersion: 12080 is
// 12.8), 0 without a driver or in a build without CUDA. A recorded measurement's metadata and the
// greeting of `bankviz-cli serve` carry it.
#pragma once

namespace bankviz {

int cuda_driver_version();

}  // namespace bankviz
