// sweep.cu: cp.async (LDGSTS) sources anywhere in large global buffers, one single-warp launch
// per case, for Nsight Compute's per-launch counters: where the L1 takes more global passes than
// the four-lines-per-pass model (docs/CPASYNC_SOURCE.md), and whether that follows the absolute
// address, the allocation, the cache's state or the L1's size.
//
// Input lines: NAME S BUF MASK D0..D31 G0..G31   (# starts a comment)
//   S: 4, 8 or 16 (cp.async.ca.shared.global of S bytes); BUF: which buffer (0..NBUF-1);
//   D: shared byte offsets; G: byte offsets into buffer BUF (each buffer 2 MiB aligned).
// Options: --smem BYTES (dynamic shared memory, default the sm_90 opt-in maximum 232448)
//          --carveout PCT (cudaFuncAttributePreferredSharedMemoryCarveout; default: not set)
//          --nbuf N --bufmb M (buffers of M MiB each, default 2 x 32), --reps R (each case R
//          times in a row, default 1).
// Output: "buffer I VA" per buffer, then one line per launch: "case INDEX NAME S BUF REP".
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o sweep sweep.cu
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/cuda_check.h"

template <int S>
__global__ void k_cp(const unsigned* addr, unsigned mask, const unsigned char* gsrc,
                     const unsigned* srcoff, unsigned* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + addr[lane];
  const unsigned char* src = gsrc + srcoff[lane];
  if ((mask >> lane) & 1u) {
    if constexpr (S == 4)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(src) : "memory");
    if constexpr (S == 8)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(src) : "memory");
    if constexpr (S == 16)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(a), "l"(src) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  sink[lane] = a;
}

int main(int argc, char** argv) {
  int smem = 228 * 1024 - 1024, carveout = -1, nbuf = 2, bufmb = 32, reps = 1;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto num = [&](int& v) { v = i + 1 < argc ? std::atoi(argv[++i]) : -1; };
    if (s == "--smem")
      num(smem);
    else if (s == "--carveout")
      num(carveout);
    else if (s == "--nbuf")
      num(nbuf);
    else if (s == "--bufmb")
      num(bufmb);
    else if (s == "--reps")
      num(reps);
    else
      path = argv[i];
  }
  std::ifstream in(path ? path : "");
  if (!in || smem < 128 || nbuf < 1 || bufmb < 1 || reps < 1) {
    std::fprintf(
        stderr,
        "usage: sweep CASES.txt [--smem B] [--carveout P] [--nbuf N] [--bufmb M] [--reps R]\n");
    return 2;
  }
  const size_t bytes = size_t(bufmb) << 20, align = size_t(2) << 20;
  std::vector<unsigned char*> buf(nbuf);
  for (int b = 0; b < nbuf; ++b) {
    unsigned char* raw = nullptr;
    CHECK(cudaMalloc(&raw, bytes + align));
    CHECK(cudaMemset(raw, 0x5a, bytes + align));
    buf[b] = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(raw) + align - 1) &
                                              ~(align - 1));
    std::printf("buffer %d %p (allocation %p)\n", b, static_cast<void*>(buf[b]),
                static_cast<void*>(raw));
  }
  unsigned *d_addr, *d_src, *d_sink;
  CHECK(cudaMalloc(&d_addr, 128));
  CHECK(cudaMalloc(&d_src, 128));
  CHECK(cudaMalloc(&d_sink, 128));
  auto prep = [&](auto k) {
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    if (carveout >= 0)
      CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  };
  prep(k_cp<4>);
  prep(k_cp<8>);
  prep(k_cp<16>);
  CHECK(cudaDeviceSynchronize());
  std::string line;
  int index = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, mask_s;
    int S = 0, b = 0;
    unsigned addr[32], src[32];
    ss >> name >> S >> b >> mask_s;
    for (unsigned& a : addr) ss >> a;
    for (unsigned& g : src) ss >> g;
    if (!ss || (S != 4 && S != 8 && S != 16) || b < 0 || b >= nbuf) {
      std::fprintf(stderr, "line %d: malformed\n", lineno);
      return 1;
    }
    const unsigned mask = static_cast<unsigned>(std::stoul(mask_s, nullptr, 0));
    for (int l = 0; l < 32; ++l)
      if (addr[l] % S || addr[l] + S > unsigned(smem) || src[l] % S || src[l] + S > bytes) {
        std::fprintf(stderr, "line %d: lane %d out of range\n", lineno, l);
        return 1;
      }
    CHECK(cudaMemcpy(d_addr, addr, 128, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_src, src, 128, cudaMemcpyHostToDevice));
    for (int r = 0; r < reps; ++r) {
      if (S == 4) k_cp<4><<<1, 32, smem>>>(d_addr, mask, buf[b], d_src, d_sink);
      if (S == 8) k_cp<8><<<1, 32, smem>>>(d_addr, mask, buf[b], d_src, d_sink);
      if (S == 16) k_cp<16><<<1, 32, smem>>>(d_addr, mask, buf[b], d_src, d_sink);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::printf("case %d %s %d %d %d\n", index++, name.c_str(), S, b, r);
      std::fflush(stdout);
    }
  }
  return 0;
}
