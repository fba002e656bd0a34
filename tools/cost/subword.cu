// subword.cu: why a 1-byte load's exposed step costs 1.024 cycles per instruction (issue 19).
// The exposed kernel's loop (kernels/src/codegen.cpp: 16 ld.volatile.shared per iteration, their
// values summed) in variants that differ only in what is done with the loaded value, timed with
// cudaEvents over 64 warps per SM; prints cycles per warp instruction at the clock given (MHz).
// Usage: subword [MHZ]. Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o subword subword.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "../common/cuda_check.h"

// V: 0 u32 summed; 1 u8 as bankviz (signed char, sign-extended); 2 u8 raw; 3 u16 as bankviz
// (signed short); 4 u16 raw; 5 u8 xor-folded 16-bit (no widening)
template <int V, int STRIDE>
__global__ void k_sub(unsigned* out, int reps) {
  __shared__ __align__(128) unsigned char t[32 * 128 * 4];
  for (int i = threadIdx.x; i < int(sizeof t); i += blockDim.x) t[i] = static_cast<unsigned char>(i);
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  const unsigned size = V == 0 ? 4 : (V == 3 || V == 4) ? 2 : 1;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(t)) + lane * size * STRIDE;
  unsigned sum = 0;
  unsigned short hsum = 0;
  for (int rep = 0; rep < reps; rep += 16) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      if constexpr (V == 0) {
        unsigned r;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
        sum += r;
      } else if constexpr (V == 1 || V == 2 || V == 5) {
        unsigned short r;
        asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=h"(r) : "r"(a) : "memory");
        if constexpr (V == 1) sum += static_cast<signed char>(static_cast<unsigned char>(r));
        if constexpr (V == 2) sum += r;
        if constexpr (V == 5) hsum ^= r;
      } else {
        unsigned short r;
        asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=h"(r) : "r"(a) : "memory");
        if constexpr (V == 3) sum += static_cast<short>(r);
        if constexpr (V == 4) sum += r;
      }
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum + hsum;
}

template <int V, int STRIDE>
void time_it(const char* name, double mhz, int sms, unsigned* d_out) {
  const int blocks = sms * 8, threads = 256, reps = 1 << 15;
  k_sub<V, STRIDE><<<blocks, threads>>>(d_out, 256);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    CHECK(cudaEventRecord(e0));
    k_sub<V, STRIDE><<<blocks, threads>>>(d_out, reps);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    best = ms < best ? ms : best;
  }
  // warp instructions per SM: 64 warps x reps
  const double cycles = best * 1e-3 * mhz * 1e6 / (64.0 * reps);
  std::printf("%-28s stride %3d  %.4f cycles per warp instruction (%.3f ms)\n", name, STRIDE, cycles,
              best);
}

int main(int argc, char** argv) {
  int clock_khz = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double mhz = argc > 1 ? std::atof(argv[1]) : clock_khz / 1000.0;
  std::printf("clock %.0f MHz, %d SMs\n", mhz, sms);
  unsigned* d_out;
  CHECK(cudaMalloc(&d_out, size_t(sms) * 8 * 256 * 4));
  time_it<0, 1>("u32 summed", mhz, sms, d_out);
  time_it<1, 1>("u8 signed char (bankviz)", mhz, sms, d_out);
  time_it<2, 1>("u8 raw", mhz, sms, d_out);
  time_it<5, 1>("u8 xor 16-bit", mhz, sms, d_out);
  time_it<3, 1>("u16 signed short (bankviz)", mhz, sms, d_out);
  time_it<4, 1>("u16 raw", mhz, sms, d_out);
  time_it<0, 32>("u32 summed", mhz, sms, d_out);
  time_it<1, 128>("u8 signed char (bankviz)", mhz, sms, d_out);
  time_it<2, 128>("u8 raw", mhz, sms, d_out);
  time_it<0, 1>("u32 summed (again)", mhz, sms, d_out);
  time_it<1, 1>("u8 signed char (again)", mhz, sms, d_out);
  return 0;
}
