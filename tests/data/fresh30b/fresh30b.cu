// Issue 30, round 2, second set: kernels written on 2026-11-29 after the recording-as-compiled
// work and before measuring them (tools/truth30/measure.sh KERN=tests/data/fresh30b).
#include <cuda_runtime.h>

#define CONFLICT_FREE(n) ((n) >> 5)

__global__ void stencil2d(const float* in, float* out) {
  __shared__ float t[18][18];
  int x = threadIdx.x, y = threadIdx.y;
  t[y + 1][x + 1] = in[y * 16 + x];
  if (x == 0) t[y + 1][0] = 0.0f;
  if (x == 15) t[y + 1][17] = 0.0f;
  if (y == 0) t[0][x + 1] = 0.0f;
  if (y == 15) t[17][x + 1] = 0.0f;
  __syncthreads();
  out[y * 16 + x] = t[y][x + 1] + t[y + 2][x + 1] + t[y + 1][x] + t[y + 1][x + 2] - 4.0f * t[y + 1][x + 1];
}

__global__ void blellochScan(const int* in, int* out) {
  __shared__ int temp[256 + 8];
  int tid = threadIdx.x;
  int ai = tid, bi = tid + 128;
  temp[ai + CONFLICT_FREE(ai)] = in[ai];
  temp[bi + CONFLICT_FREE(bi)] = in[bi];
  int offset = 1;
  for (int d = 128; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      temp[b + CONFLICT_FREE(b)] += temp[a + CONFLICT_FREE(a)];
    }
    offset *= 2;
  }
  if (tid == 0) temp[255 + CONFLICT_FREE(255)] = 0;
  __syncthreads();
  out[ai] = temp[ai + CONFLICT_FREE(ai)];
  out[bi] = temp[bi + CONFLICT_FREE(bi)];
}

__global__ void byteHistogram(const unsigned char* data, unsigned int* bins_out) {
  __shared__ unsigned int bins[256];
  int tid = threadIdx.x;
  bins[tid] = 0;
  __syncthreads();
  for (int i = tid; i < 1024; i += blockDim.x) atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  bins_out[tid] = bins[tid];
}

__global__ void transposeDouble(const double* in, double* out) {
  __shared__ double t[16][17];
  int x = threadIdx.x, y = threadIdx.y;
  t[y][x] = in[y * 16 + x];
  __syncthreads();
  out[y * 16 + x] = t[x][y];
}

__global__ void int4Copy(const int4* in, int4* out) {
  __shared__ int s[512];
  int tid = threadIdx.x;
  reinterpret_cast<int4*>(s)[tid] = in[tid];
  __syncthreads();
  out[tid] = reinterpret_cast<int4*>(s)[(tid + 1) % 128];
}

__global__ void shortUnroll8(const short* in, int* out) {
  __shared__ short s[1024];
  int tid = threadIdx.x;
  for (int k = 0; k < 8; ++k) s[tid * 8 + k] = in[tid * 8 + k];
  __syncthreads();
  int acc = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += s[tid * 8 + k];
  out[tid] = acc;
}

__global__ void invariantCoeff(const float* x, float* out) {
  __shared__ float coeff[4];
  __shared__ float xs[128];
  int tid = threadIdx.x;
  if (tid < 4) coeff[tid] = 0.5f * tid;
  xs[tid] = x[tid];
  __syncthreads();
  float acc = 0.0f;
  for (int i = 0; i < 16; ++i) acc += coeff[i % 4] * xs[(tid + i) % 128];
  out[tid] = acc;
}

__global__ void maxAtomic(const int* in, int* out) {
  __shared__ int best[4];
  int tid = threadIdx.x;
  if (tid < 4) best[tid] = -1;
  __syncthreads();
  atomicMax(&best[tid % 4], in[tid] + tid);
  __syncthreads();
  if (tid < 4) out[tid] = best[tid];
}

__global__ void double2Pairs(const double2* in, double* out) {
  __shared__ double2 p[64];
  int tid = threadIdx.x;
  p[tid] = in[tid];
  __syncthreads();
  double2 a = p[(tid * 3) % 64];
  out[tid] = a.x - a.y;
}

__global__ void rowSums(const float* in, float* out) {
  __shared__ float rows[32][8];
  int tid = threadIdx.x;
  for (int k = 0; k < 8; ++k) rows[tid][k] = in[tid * 8 + k];
  __syncthreads();
  float s = 0.0f;
  for (int k = 0; k < 8; ++k) s += rows[tid][k];
  out[tid] = s;
}
