// probe.cu: runs each recorded warp pattern as exactly one ldmatrix, stmatrix or cp.async
// instruction, one single-warp kernel launch per case, so that Nsight Compute's per-launch
// counters give the hardware's count for that exact pattern.
//
// Input lines:  NAME OP MASK A0 ... A31      (# starts a comment line)
//   OP: ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans], cp.async.4|8|16
//   MASK: hex (0x...) or decimal. Must be full (0xffffffff) for ldmatrix/stmatrix, which are
//   .sync.aligned; for cp.async the lanes outside MASK branch around the instruction.
//   A0..A31: shared byte offsets (into the dynamic buffer, whose base is 128-byte aligned).
//   ldmatrix/stmatrix .xN take row addresses from lanes 0..8N-1 (lane 8m+r: row r of matrix m);
//   the other lanes' values are passed to the instruction too, and the PTX ISA says they are
//   ignored (the suites check that the counters agree).
// Options:
//   --src contig|mirror|same   cp.async global source per lane: lane*size (default, one
//                              coalesced read), the same offset as the destination, or one
//                              address for all lanes
//   --cg                       16-byte cp.async uses .cg (L2 only) instead of .ca
// A cp.async line may carry 32 more numbers, S0..S31: each lane's global source offset (into a
// 256-byte aligned 1 MiB buffer), overriding --src; used to explore the source's effect.
// Output (stdout): one line per launched case, in launch order: "case INDEX NAME OP".
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o probe probe.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/cuda_check.h"

constexpr int kSmemBytes = 228 * 1024 - 1024;  // the block's opt-in maximum on sm_90
constexpr int kGlobalBytes = 1 << 20;          // cp.async source buffer

// One ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 per warp.
template <int N, bool T>
__global__ void k_ldsm(const unsigned* addr, unsigned* sink, unsigned* base_out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned a = base + addr[lane];
  unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if constexpr (N == 1 && !T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
  if constexpr (N == 1 && T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
  if constexpr (N == 2 && !T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r0), "=r"(r1)
                 : "r"(a));
  if constexpr (N == 2 && T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r0), "=r"(r1)
                 : "r"(a));
  if constexpr (N == 4 && !T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(a));
  if constexpr (N == 4 && T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(a));
  sink[lane] = r0 ^ r1 ^ r2 ^ r3;
  if (lane == 0) *base_out = base;
}

// One stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 per warp (sm_90).
template <int N, bool T>
__global__ void k_stsm(const unsigned* addr, unsigned* sink, unsigned* base_out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned a = base + addr[lane];
  const unsigned v0 = lane, v1 = lane + 32, v2 = lane + 64, v3 = lane + 96;
  if constexpr (N == 1 && !T)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a), "r"(v0));
  if constexpr (N == 1 && T)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(a), "r"(v0));
  if constexpr (N == 2 && !T)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" ::"r"(a), "r"(v0),
                 "r"(v1));
  if constexpr (N == 2 && T)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" ::"r"(a), "r"(v0),
                 "r"(v1));
  if constexpr (N == 4 && !T)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(v0),
                 "r"(v1), "r"(v2), "r"(v3));
  if constexpr (N == 4 && T)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(a),
                 "r"(v0), "r"(v1), "r"(v2), "r"(v3));
  sink[lane] = a;
  if (lane == 0) *base_out = base;
}

// One cp.async of S bytes per active lane, then commit and wait for it.
template <int S, bool CG>
__global__ void k_cp(const unsigned* addr, unsigned mask, const unsigned char* gsrc,
                     const unsigned* srcoff, unsigned* sink, unsigned* base_out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned a = base + addr[lane];
  const unsigned char* src = gsrc + srcoff[lane];
  if ((mask >> lane) & 1u) {
    if constexpr (S == 4)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(src) : "memory");
    if constexpr (S == 8)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(src) : "memory");
    if constexpr (S == 16 && !CG)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(a), "l"(src) : "memory");
    if constexpr (S == 16 && CG)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(src) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  sink[lane] = a;
  if (lane == 0) *base_out = base;
}

template <typename K>
static void prepare(K kernel) {
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
}

int main(int argc, char** argv) {
  std::string src_mode = "contig";
  bool cg = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--src" && i + 1 < argc) {
      src_mode = argv[++i];
    } else if (s == "--cg") {
      cg = true;
    } else if (!path) {
      path = argv[i];
    } else {
      path = nullptr;
      break;
    }
  }
  if (!path || (src_mode != "contig" && src_mode != "mirror" && src_mode != "same")) {
    std::fprintf(stderr, "usage: probe CASES.txt [--src contig|mirror|same] [--cg]\n");
    return 2;
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path);
    return 2;
  }
  unsigned *d_addr, *d_sink, *d_base, *d_srcoff;
  unsigned char* d_g;
  CHECK(cudaMalloc(&d_addr, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_srcoff, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_sink, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_base, sizeof(unsigned)));
  CHECK(cudaMalloc(&d_g, kGlobalBytes));
  {
    std::string fill(kGlobalBytes, '\x5a');  // plain copy: no memset kernel for ncu to profile
    CHECK(cudaMemcpy(d_g, fill.data(), kGlobalBytes, cudaMemcpyHostToDevice));
  }
  prepare(k_ldsm<1, false>);
  prepare(k_ldsm<1, true>);
  prepare(k_ldsm<2, false>);
  prepare(k_ldsm<2, true>);
  prepare(k_ldsm<4, false>);
  prepare(k_ldsm<4, true>);
  prepare(k_stsm<1, false>);
  prepare(k_stsm<1, true>);
  prepare(k_stsm<2, false>);
  prepare(k_stsm<2, true>);
  prepare(k_stsm<4, false>);
  prepare(k_stsm<4, true>);
  prepare(k_cp<4, false>);
  prepare(k_cp<8, false>);
  prepare(k_cp<16, false>);
  prepare(k_cp<16, true>);
  std::string line;
  int index = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, op, mask_s;
    ss >> name >> op >> mask_s;
    const unsigned mask = static_cast<unsigned>(std::stoul(mask_s, nullptr, 0));
    unsigned addr[32], src[32];
    for (int i = 0; i < 32; ++i) ss >> addr[i];
    if (!ss) {
      std::fprintf(stderr, "line %d: malformed\n", lineno);
      return 1;
    }
    // Optional S0..S31: explicit global source offsets per lane (cp.async only; exploration).
    int nsrc = 0;
    while (nsrc < 32 && (ss >> src[nsrc])) ++nsrc;
    std::string extra;
    ss.clear();
    if ((nsrc != 0 && nsrc != 32) || (ss >> extra)) {
      std::fprintf(stderr, "line %d: malformed\n", lineno);
      return 1;
    }
    const bool matrix = op.rfind("ldmatrix.", 0) == 0 || op.rfind("stmatrix.", 0) == 0;
    int size = 0;
    if (op == "cp.async.4") size = 4;
    if (op == "cp.async.8") size = 8;
    if (op == "cp.async.16") size = 16;
    if (!matrix && size == 0) {
      std::fprintf(stderr, "line %d: bad op %s\n", lineno, op.c_str());
      return 1;
    }
    if (matrix && mask != 0xffffffffu) {
      std::fprintf(stderr, "line %d: %s needs a full mask\n", lineno, op.c_str());
      return 1;
    }
    const unsigned align = matrix ? 16 : static_cast<unsigned>(size);
    for (int i = 0; i < 32; ++i) {
      if (addr[i] % align != 0 || addr[i] + align > static_cast<unsigned>(kSmemBytes)) {
        std::fprintf(stderr, "line %d: lane %d address %u misaligned or out of range\n", lineno, i,
                     addr[i]);
        return 1;
      }
    }
    CHECK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    if (size) {
      unsigned srcoff[32];
      for (int i = 0; i < 32; ++i) {
        if (src_mode == "contig") srcoff[i] = i * size;
        if (src_mode == "mirror") srcoff[i] = addr[i];
        if (src_mode == "same") srcoff[i] = 0;
        if (nsrc) srcoff[i] = src[i];
        if (srcoff[i] % size || srcoff[i] + size > static_cast<unsigned>(kGlobalBytes)) {
          std::fprintf(stderr, "line %d: lane %d source %u misaligned or out of range\n", lineno, i,
                       srcoff[i]);
          return 1;
        }
      }
      CHECK(cudaMemcpy(d_srcoff, srcoff, sizeof srcoff, cudaMemcpyHostToDevice));
    }
    dim3 g(1), b(32);
    if (op == "ldmatrix.x1")
      k_ldsm<1, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "ldmatrix.x1.trans")
      k_ldsm<1, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "ldmatrix.x2")
      k_ldsm<2, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "ldmatrix.x2.trans")
      k_ldsm<2, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "ldmatrix.x4")
      k_ldsm<4, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "ldmatrix.x4.trans")
      k_ldsm<4, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x1")
      k_stsm<1, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x1.trans")
      k_stsm<1, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x2")
      k_stsm<2, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x2.trans")
      k_stsm<2, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x4")
      k_stsm<4, false><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (op == "stmatrix.x4.trans")
      k_stsm<4, true><<<g, b, kSmemBytes>>>(d_addr, d_sink, d_base);
    else if (size == 4)
      k_cp<4, false><<<g, b, kSmemBytes>>>(d_addr, mask, d_g, d_srcoff, d_sink, d_base);
    else if (size == 8)
      k_cp<8, false><<<g, b, kSmemBytes>>>(d_addr, mask, d_g, d_srcoff, d_sink, d_base);
    else if (size == 16 && !cg)
      k_cp<16, false><<<g, b, kSmemBytes>>>(d_addr, mask, d_g, d_srcoff, d_sink, d_base);
    else if (size == 16 && cg)
      k_cp<16, true><<<g, b, kSmemBytes>>>(d_addr, mask, d_g, d_srcoff, d_sink, d_base);
    else {
      std::fprintf(stderr, "line %d: bad op %s\n", lineno, op.c_str());
      return 1;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned base = 0;
    CHECK(cudaMemcpy(&base, d_base, sizeof base, cudaMemcpyDeviceToHost));
    if (base % 128 != 0) {
      std::fprintf(stderr, "dynamic shared base %u is not 128-byte aligned\n", base);
      return 1;
    }
    std::printf("case %d %s %s\n", index++, name.c_str(), op.c_str());
  }
  return 0;
}
