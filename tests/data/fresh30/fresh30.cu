// Issue 30, round 2: kernels of the kinds people bring, written on 2026-11-29 before any
// measurement of them and never tuned to (tools/truth30/measure.sh measures them; cases.txt gives
// each one's launch).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TILE 32
#define BINS 16

__global__ void radixCountScan(const unsigned int* keys, unsigned int* out, int shift) {
  __shared__ unsigned int counts[BINS];
  __shared__ unsigned int scan[2 * BINS];
  int tid = threadIdx.x;
  if (tid < BINS) counts[tid] = 0;
  __syncthreads();
  unsigned int digit = (keys[blockIdx.x * blockDim.x + tid] >> shift) & (BINS - 1);
  atomicAdd(&counts[digit], 1u);
  __syncthreads();
  if (tid < BINS) scan[tid] = counts[tid];
  __syncthreads();
  for (int off = 1; off < BINS; off *= 2) {
    unsigned int v = 0;
    if (tid < BINS && tid >= off) v = scan[tid - off];
    __syncthreads();
    if (tid < BINS) scan[tid] += v;
    __syncthreads();
  }
  if (tid < BINS) out[blockIdx.x * BINS + tid] = scan[tid];
}

__global__ void fftRadix2(float2* data) {
  __shared__ float2 s[256];
  int tid = threadIdx.x;
  s[tid] = data[tid];
  s[tid + 128] = data[tid + 128];
  __syncthreads();
  for (int half = 1; half < 256; half <<= 1) {
    int group = tid / half;
    int pos = tid % half;
    int i = group * 2 * half + pos;
    int j = i + half;
    float2 a = s[i];
    float2 b = s[j];
    __syncthreads();
    s[i] = make_float2(a.x + b.x, a.y + b.y);
    s[j] = make_float2(a.x - b.x, a.y - b.y);
    __syncthreads();
  }
  data[tid] = s[tid];
  data[tid + 128] = s[tid + 128];
}

__global__ void transposeNoPad(const float* in, float* out) {
  __shared__ float tile[TILE][TILE];
  int x = threadIdx.x, y = threadIdx.y;
  for (int j = 0; j < TILE; j += 8) tile[y + j][x] = in[(y + j) * TILE + x];
  __syncthreads();
  for (int j = 0; j < TILE; j += 8) out[(y + j) * TILE + x] = tile[x][y + j];
}

__global__ void matmulTile16(const float* A, const float* B, float* C) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  As[ty][tx] = A[ty * 16 + tx];
  Bs[ty][tx] = B[ty * 16 + tx];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
  C[ty * 16 + tx] = acc;
}

__global__ void reduceInterleaved(const int* in, int* out) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduceStrided(const int* in, int* out) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void byteTranspose(const unsigned char* in, unsigned char* out) {
  __shared__ unsigned char t[64][65];
  int x = threadIdx.x, y = threadIdx.y;
  for (int j = 0; j < 64; j += 4) t[y + j][x] = in[(y + j) * 64 + x];
  __syncthreads();
  for (int j = 0; j < 64; j += 4) out[(y + j) * 64 + x] = t[x][y + j];
}

__global__ void shortStencil(const short* in, short* out) {
  __shared__ short s[128 + 4];
  int tid = threadIdx.x;
  s[tid + 2] = in[tid];
  if (tid < 2) {
    s[tid] = 0;
    s[tid + 130] = 0;
  }
  __syncthreads();
  int acc = s[tid] + s[tid + 1] + s[tid + 2] + s[tid + 3] + s[tid + 4];
  out[tid] = (short)acc;
}

__global__ void doubleStencil(const double* in, double* out) {
  __shared__ double s[64 + 6];
  int tid = threadIdx.x;
  s[tid + 3] = in[tid];
  if (tid < 3) s[tid] = 0.0;
  if (tid >= 61) s[tid + 6] = 0.0;
  __syncthreads();
  double acc = 0.0;
  for (int r = -3; r <= 3; ++r) acc += s[tid + 3 + r];
  out[tid] = acc;
}

struct Particle {
  float x, y, z;
};

__global__ void particleAos(const float* in, float* out) {
  __shared__ Particle p[96];
  int tid = threadIdx.x;
  p[tid].x = in[tid];
  p[tid].y = in[tid + 96];
  p[tid].z = in[tid + 192];
  __syncthreads();
  int o = (tid + 1) % 96;
  out[tid] = p[o].x * p[o].x + p[o].y * p[o].y + p[o].z * p[o].z;
}

__global__ void dynamicAfterStatic(const float* in, float* out, int n) {
  __shared__ int flags[6];
  extern __shared__ float dyn[];
  int tid = threadIdx.x;
  if (tid < 6) flags[tid] = tid;
  dyn[tid * 2] = in[tid];
  dyn[tid * 2 + 1] = 0.0f;
  __syncthreads();
  float v = dyn[(tid * 33) % n];
  out[tid] = v + flags[tid % 6];
}

__global__ void cgTileSum(const int* in, int* out) {
  __shared__ int vals[128];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int tid = threadIdx.x;
  vals[tid] = in[tid];
  block.sync();
  int base = tid - tile.thread_rank();
  for (int off = 8; off > 0; off /= 2) {
    if (tile.thread_rank() < off) vals[tid] += vals[tid + off];
    tile.sync();
  }
  if (tile.thread_rank() == 0) out[base / 16] = vals[base];
}

__global__ void floatBinsUsed(const float* in, float* out) {
  __shared__ float bins[8];
  int tid = threadIdx.x;
  if (tid < 8) bins[tid] = 0.0f;
  __syncthreads();
  float old = atomicAdd(&bins[tid % 8], in[tid]);
  out[tid] = old;
}

__global__ void xorSwizzleCopy(const float* in, float* out) {
  __shared__ float t[32][32];
  int x = threadIdx.x, y = threadIdx.y;
  for (int j = 0; j < 32; j += 4) t[y + j][x ^ (y + j)] = in[(y + j) * 32 + x];
  __syncthreads();
  for (int j = 0; j < 32; j += 4) out[(y + j) * 32 + x] = t[x][(y + j) ^ x];
}

__global__ void partial100(const int* in, int* out) {
  __shared__ int s[200];
  int tid = threadIdx.x;
  s[tid * 2] = in[tid];
  s[tid * 2 + 1] = -in[tid];
  __syncthreads();
  out[tid] = s[(tid * 2 + 2) % 200] + s[199 - tid];
}

__global__ void unrolledQuad(const float* in, float* out) {
  __shared__ float s[512];
  int tid = threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) s[tid * 4 + k] = in[tid * 4 + k];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) acc += s[(tid * 4 + k * 128) % 512];
  out[tid] = acc;
}

template <typename T, int N>
__global__ void templateReverse(const T* in, T* out) {
  __shared__ T buf[N];
  int tid = threadIdx.x;
  buf[tid] = in[tid];
  __syncthreads();
  out[tid] = buf[N - 1 - tid];
}
template __global__ void templateReverse<int, 128>(const int*, int*);

__global__ void warpExchange(const int* in, int* out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  int lane = tid % 32;
  s[tid] = in[tid];
  __syncwarp();
  int v = s[(tid & ~31) + (lane + 1) % 32];
  __syncwarp();
  s[tid] = v * 2;
  __syncwarp();
  out[tid] = s[tid ^ 16];
}

__global__ void casQueue(int* out) {
  __shared__ int head;
  __shared__ int items[64];
  int tid = threadIdx.x;
  if (tid == 0) head = 0;
  __syncthreads();
  if (tid % 2 == 0) {
    int slot = atomicAdd(&head, 1);
    items[slot] = tid;
  }
  __syncthreads();
  if (tid < 32) out[tid] = items[tid];
}

__global__ void int2Pairs(const int2* in, int2* out) {
  __shared__ int2 s[128];
  int tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  int2 a = s[(tid * 2) % 128];
  int2 b = s[127 - tid];
  out[tid] = make_int2(a.x + b.y, a.y + b.x);
}

__global__ void float4Rows(const float4* in, float* out) {
  __shared__ float4 rows[64];
  int tid = threadIdx.x;
  rows[tid] = in[tid];
  __syncthreads();
  float4 r = rows[(tid * 4) % 64];
  out[tid] = r.x + r.w;
}
