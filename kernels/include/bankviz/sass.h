// sass.h: the machine code the compiler made of a generated kernel (its cubin), for the model of
// the kernel as compiled.
#pragma once

#include <string>
#include <vector>

#include "bankviz/codegen.h"

namespace bankviz {

// The kernel compiled as `run` compiles it (NVRTC for `sm`, with line info: the cubin it loads),
// without a GPU. Empty with *error set when NVRTC fails or the build has no CUDA toolkit.
// *lowered (if given) gets the kernel's mangled name, the function nvdisasm names it by.
std::vector<char> compiled_cubin(const KernelSource& k, const std::string& sm, std::string* error,
                                 std::string* lowered = nullptr);

}  // namespace bankviz
