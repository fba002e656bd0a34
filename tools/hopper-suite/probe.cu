// probe.cu: runs each recorded warp access pattern as one warp-wide shared load and one
// warp-wide shared store, one kernel launch per case, so that Nsight Compute's per-launch
// counters give the hardware's wavefront count for that exact pattern.
//
// Input: the address-record format of `bankviz-cli wavefronts`:
//   NAME WIDTH MASK A0 ... A31      (# starts a comment line)
// Output (stdout): one line per launched case, in launch order: "case INDEX NAME".
// Build: nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o probe probe.cu
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/cuda_check.h"

constexpr int kSmemBytes = 228 * 1024 - 1024;  // the block's opt-in maximum on sm_90

// One shared load and one shared store per active lane, at the recorded byte offset.
// volatile keeps ptxas from merging or dropping them; ncu confirms 1 instruction each.
template <int W>
__global__ void probe(const unsigned* addr, unsigned mask, unsigned* sink, unsigned* base_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned a = base + addr[lane];
  unsigned v0 = lane, v1 = 0, v2 = 0, v3 = 0;
  const bool active = (mask >> lane) & 1u;
  if (active) {
    if constexpr (W == 1) asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(v0) : "r"(a));
    if constexpr (W == 2) asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=r"(v0) : "r"(a));
    if constexpr (W == 4) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v0) : "r"(a));
    if constexpr (W == 8)
      asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a));
    if constexpr (W == 16)
      asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                   : "r"(a));
  }
  __syncwarp();
  if (active) {
    const unsigned s = lane + 1;
    if constexpr (W == 1) asm volatile("st.volatile.shared.u8 [%0], %1;" ::"r"(a), "r"(s));
    if constexpr (W == 2) asm volatile("st.volatile.shared.u16 [%0], %1;" ::"r"(a), "r"(s));
    if constexpr (W == 4) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(s));
    if constexpr (W == 8)
      asm volatile("st.volatile.shared.v2.u32 [%0], {%1,%2};" ::"r"(a), "r"(s), "r"(s));
    if constexpr (W == 16)
      asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(s), "r"(s),
                   "r"(s), "r"(s));
  }
  sink[lane] = v0 ^ v1 ^ v2 ^ v3;
  if (lane == 0) *base_out = base;
}

// One shared atomicAdd (atom.shared.add.u32) per active lane: ncu's op_atom counters.
__global__ void probe_atom(const unsigned* addr, unsigned mask, unsigned* sink,
                           unsigned* base_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned a = base + addr[lane];
  unsigned old = 0;
  if ((mask >> lane) & 1u) asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(a));
  sink[lane] = old;
  if (lane == 0) *base_out = base;
}

template <int W>
static void launch(const unsigned* d_addr, unsigned mask, unsigned* d_sink, unsigned* d_base) {
  CHECK(cudaFuncSetAttribute(probe<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  probe<W><<<1, 32, kSmemBytes>>>(d_addr, mask, d_sink, d_base);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  const bool atomics = argc == 3 && std::string(argv[2]) == "--atomic";
  if (argc != 2 && !atomics) {
    std::fprintf(stderr, "usage: probe CASES.txt [--atomic]   (--atomic: 4-byte cases only)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 2;
  }
  unsigned *d_addr, *d_sink, *d_base;
  CHECK(cudaMalloc(&d_addr, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_sink, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_base, sizeof(unsigned)));
  std::string line;
  int index = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, mask_s;
    int width;
    ss >> name >> width >> mask_s;
    unsigned mask = static_cast<unsigned>(std::stoul(mask_s, nullptr, 0));
    unsigned addr[32];
    for (int i = 0; i < 32; ++i) ss >> addr[i];
    if (!ss) {
      std::fprintf(stderr, "line %d: malformed\n", lineno);
      return 1;
    }
    CHECK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    if (atomics) {
      if (width != 4) continue;
      CHECK(cudaFuncSetAttribute(probe_atom, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 kSmemBytes));
      probe_atom<<<1, 32, kSmemBytes>>>(d_addr, mask, d_sink, d_base);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::printf("case %d %s\n", index++, name.c_str());
      continue;
    }
    switch (width) {
      case 1:
        launch<1>(d_addr, mask, d_sink, d_base);
        break;
      case 2:
        launch<2>(d_addr, mask, d_sink, d_base);
        break;
      case 4:
        launch<4>(d_addr, mask, d_sink, d_base);
        break;
      case 8:
        launch<8>(d_addr, mask, d_sink, d_base);
        break;
      case 16:
        launch<16>(d_addr, mask, d_sink, d_base);
        break;
      default:
        std::fprintf(stderr, "line %d: bad width\n", lineno);
        return 1;
    }
    unsigned base = 0;
    CHECK(cudaMemcpy(&base, d_base, sizeof base, cudaMemcpyDeviceToHost));
    if (base % 128 != 0) {
      std::fprintf(stderr, "dynamic shared base %u is not 128-byte aligned\n", base);
      return 1;
    }
    std::printf("case %d %s\n", index++, name.c_str());
  }
  return 0;
}
