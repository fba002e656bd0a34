// cuda_check.h: CHECK(call) for the standalone probe programs under tools/ (each built alone with
// nvcc): a CUDA runtime call that fails prints the file, the line, the call and CUDA's message,
// and ends the program with exit status 1.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
