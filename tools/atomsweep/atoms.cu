// atoms.cu: shared-memory atomics (ATOMS.CAS, .EXCH, .ADD, .MAX; 32- and 64-bit), one single-warp
// launch per case, for Nsight Compute's per-launch counters (issue 19: what a CAS costs in
// wavefronts, docs/COUNTERS.md "Compare-and-swap").
//
// Input lines: NAME OP MASK W0..W31   (# starts a comment)
//   OP: cas (compare 0, swap lane+1: per word the first lane succeeds, the others fail),
//       casfail (compare -1: every lane fails), cassame (compare 0, swap 0: every lane succeeds,
//       nothing changes), exch, add (atomicAdd of lane+1), max, and cas64 / cas64fail / exch64
//       on 8-byte words; MASK: the active lanes; W: each lane's word index (4- or 8-byte words).
// Output: one line per launch: "case INDEX NAME OP".
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o atoms atoms.cu
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/cuda_check.h"

enum Kind { CAS, CASFAIL, CASSAME, EXCH, ADD, MAX, CAS64, CAS64FAIL, EXCH64 };

template <int K>
__global__ void k_atom(const unsigned* word, unsigned mask, unsigned* sink) {
  __shared__ unsigned long long s64[2048];
  unsigned* const s32 = reinterpret_cast<unsigned*>(s64);
  const unsigned lane = threadIdx.x;
  for (int i = lane; i < 4096; i += 32) s32[i] = 0;
  __syncwarp();
  const unsigned w = word[lane];
  unsigned r = 0;
  if ((mask >> lane) & 1u) {
    if constexpr (K == CAS) r = atomicCAS(&s32[w], 0u, lane + 1);
    if constexpr (K == CASFAIL) r = atomicCAS(&s32[w], 0xFFFFFFFFu, lane + 1);
    if constexpr (K == CASSAME) r = atomicCAS(&s32[w], 0u, 0u);
    if constexpr (K == EXCH) r = atomicExch(&s32[w], lane + 1);
    if constexpr (K == ADD) r = atomicAdd(&s32[w], lane + 1);
    if constexpr (K == MAX) r = atomicMax(&s32[w], lane + 1);
    if constexpr (K == CAS64) r = static_cast<unsigned>(atomicCAS(&s64[w], 0ull, lane + 1ull));
    if constexpr (K == CAS64FAIL) r = static_cast<unsigned>(atomicCAS(&s64[w], ~0ull, lane + 1ull));
    if constexpr (K == EXCH64) r = static_cast<unsigned>(atomicExch(&s64[w], lane + 1ull));
  }
  sink[lane] = r;
}

int main(int argc, char** argv) {
  std::ifstream in(argc > 1 ? argv[1] : "");
  if (!in) {
    std::fprintf(stderr, "usage: atoms CASES.txt\n");
    return 2;
  }
  unsigned *d_word, *d_sink;
  CHECK(cudaMalloc(&d_word, 128));
  CHECK(cudaMalloc(&d_sink, 128));
  const char* names[] = {"cas", "casfail", "cassame", "exch", "add", "max", "cas64", "cas64fail", "exch64"};
  std::string line;
  int index = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, op, mask_s;
    unsigned w[32];
    ss >> name >> op >> mask_s;
    for (unsigned& x : w) ss >> x;
    int k = -1;
    for (int i = 0; i < 9; ++i)
      if (op == names[i]) k = i;
    const unsigned limit = k >= CAS64 ? 2048 : 4096;
    bool ok = ss && k >= 0;
    for (unsigned x : w) ok = ok && x < limit;
    if (!ok) {
      std::fprintf(stderr, "line %d: malformed\n", lineno);
      return 1;
    }
    const unsigned mask = static_cast<unsigned>(std::stoul(mask_s, nullptr, 0));
    CHECK(cudaMemcpy(d_word, w, 128, cudaMemcpyHostToDevice));
    switch (k) {
      case CAS: k_atom<CAS><<<1, 32>>>(d_word, mask, d_sink); break;
      case CASFAIL: k_atom<CASFAIL><<<1, 32>>>(d_word, mask, d_sink); break;
      case CASSAME: k_atom<CASSAME><<<1, 32>>>(d_word, mask, d_sink); break;
      case EXCH: k_atom<EXCH><<<1, 32>>>(d_word, mask, d_sink); break;
      case ADD: k_atom<ADD><<<1, 32>>>(d_word, mask, d_sink); break;
      case MAX: k_atom<MAX><<<1, 32>>>(d_word, mask, d_sink); break;
      case CAS64: k_atom<CAS64><<<1, 32>>>(d_word, mask, d_sink); break;
      case CAS64FAIL: k_atom<CAS64FAIL><<<1, 32>>>(d_word, mask, d_sink); break;
      case EXCH64: k_atom<EXCH64><<<1, 32>>>(d_word, mask, d_sink); break;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("case %d %s %s\n", index++, name.c_str(), op.c_str());
    std::fflush(stdout);
  }
  return 0;
}
