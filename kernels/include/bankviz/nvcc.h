// nvcc.h: a user's kernel compiled as the user compiles it (issue 30 item 2): nvcc with the user's
// flags where nvcc is installed, NVRTC otherwise, and which of the two said. `profile` counts the
// code this makes, and its SASS is the lines as compiled.
#pragma once

#include <string>
#include <vector>

#include "bankviz/profile.h"

namespace bankviz {

struct UserBuild {
  std::vector<char> cubin;  // empty when not compiled (error says why)
  std::string lowered;      // the kernel's mangled name in the cubin
  std::string compiled_by;  // "nvcc (PATH -cubin -arch=sm_90 -O3 -lineinfo)" or "NVRTC (...)"
  std::string log;          // the compiler's messages
  std::string error;
  double ms = 0;
  bool by_nvcc = false;
};

// The nvcc `profile` compiles q with: its path, or "" with *why where NVRTC compiles it instead
// (--compiler nvrtc; no nvcc in $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin or PATH; or
// no way to contain it here: Linux Landlock is missing and BANKVIZ_RECORD_UNCONTAINED is not 1).
std::string profile_nvcc(const ProfileRequest& q, std::string* why);

// q's source compiled by `nvcc` into a cubin for `sm` (q.nvcc_arch where given: it must be sm or
// sm with an "a"), with q.nvcc_flags (kDefaultNvccFlags when none; -lineinfo added where neither
// it nor -G is given: the per-line table needs a line table). Contained as the CPU recording's
// compile is (sandbox.h compile_confinement: it reads the system, the toolkit, the kernel's folder
// and the -I folders, writes only its temporary folder; 120 s, 8 GB of address space), the line
// table naming q.file_name. The kernel is found among the cubin's functions (kernel_symbol()).
UserBuild nvcc_build(const ProfileRequest& q, const std::string& nvcc, const std::string& sm);

// Whether NVRTC may compile q where nvcc cannot (nvcc missing, or failing: a host compiler it
// refuses, say), or with --compiler nvrtc: unless --compiler nvcc or --nvcc-flags asked for nvcc.
// Then compiled_by says "NVRTC (...; nvcc failed: WHY)", and a kernel neither compiles gets nvcc's
// words.
bool nvrtc_may_stand_in(const ProfileRequest& q);
// "nvcc failed: " and the first two lines of nvcc_build()'s error.
std::string nvcc_failed(const std::string& error);

// q compiled as `profile` compiles it: nvcc_build() where profile_nvcc() finds nvcc, else NVRTC
// (the cubin `run` loads for a kernel of bankviz's own, line info included) where
// nvrtc_may_stand_in().
UserBuild user_build(const ProfileRequest& q, const std::string& sm);

// The mangled name of `kernel` (its C++ name, "ns::k" or "k<float, 4>" for an instance) among the
// functions of a cubin (an ELF file): extern "C" names as they are, C++ names demangled and
// compared without spaces; a template named without its arguments matches its one instance.
// "" with *why when the cubin holds no such function, or several.
std::string kernel_symbol(const std::vector<char>& cubin, const std::string& kernel,
                          std::string* why);

}  // namespace bankviz
