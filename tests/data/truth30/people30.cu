// Kernels of the kinds people bring (issue 30), written before any measurement: each is measured
// on the device by its per-line counters against the GPU recording, the CPU recording and the
// model. cases.txt gives each one's launch.
#include <cuda_runtime.h>

#define N 256

__global__ void bitonicSort(unsigned int* keys) {
  __shared__ unsigned int s[N];
  unsigned int tid = threadIdx.x;
  s[tid] = keys[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned int k = 2; k <= N; k <<= 1) {
    for (unsigned int j = k >> 1; j > 0; j >>= 1) {
      unsigned int partner = tid ^ j;
      if (partner > tid) {
        unsigned int a = s[tid];
        unsigned int b = s[partner];
        bool up = (tid & k) == 0;
        if ((a > b) == up) {
          s[tid] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * N + tid] = s[tid];
}

__global__ void hillisSteele(const float* in, float* out) {
  __shared__ float buf[2][N];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  buf[pout][tid] = in[tid];
  __syncthreads();
  for (int offset = 1; offset < N; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
    else
      buf[pout][tid] = buf[pin][tid];
    __syncthreads();
  }
  out[tid] = buf[pout][tid];
}

__global__ void shuffleReduce(const float* in, float* out) {
  __shared__ float partial[32];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

struct Particle {
  float x, y, z;
};

__global__ void structArray(const float* in, float* out) {
  __shared__ Particle p[128];
  int t = threadIdx.x;
  p[t].x = in[t];
  p[t].y = in[t] * 2.0f;
  p[t].z = in[t] * 3.0f;
  __syncthreads();
  out[t] = p[(t + 1) % 128].y + p[t].z;
}

__global__ void narrowTiles(const char* c, const short* h, int* out) {
  __shared__ char cs[32][33];
  __shared__ short hs[32][32];
  __shared__ double ds[32][32];
  int x = threadIdx.x, y = threadIdx.y;
  cs[y][x] = c[y * 32 + x];
  hs[y][x] = h[y * 32 + x];
  ds[x][y] = (double)x;
  __syncthreads();
  out[y * 32 + x] = cs[x][y] + hs[x][y] + (int)ds[y][x];
}

__global__ void vectorLoads(const float4* in, float* out) {
  __shared__ float4 v4[128];
  __shared__ int2 v2[128];
  int t = threadIdx.x;
  v4[t] = in[t];
  v2[t] = make_int2(t, 2 * t);
  __syncthreads();
  float4 a = v4[(t * 2) % 128];
  int2 b = v2[127 - t];
  out[t] = a.x + a.w + b.x + b.y;
}

#define R 3
__global__ void convHalo(const float* in, float* out) {
  __shared__ float tile[128 + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  tile[l] = in[g + R];
  if (threadIdx.x < R) {
    tile[l - R] = in[g];
    tile[l + blockDim.x] = in[g + R + blockDim.x];
  }
  __syncthreads();
  float sum = 0.0f;
  for (int k = -R; k <= R; ++k) sum += tile[l + k];
  out[g] = sum;
}

__global__ void nbody(const float4* pos, float3* acc) {
  __shared__ float4 sh[128];
  int i = threadIdx.x;
  float4 me = pos[i];
  float3 a = {0.0f, 0.0f, 0.0f};
  sh[i] = pos[i];
  __syncthreads();
  for (int j = 0; j < 128; ++j) {
    float4 o = sh[j];
    float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
    a.x += dx * inv * o.w;
    a.y += dy * inv * o.w;
    a.z += dz * inv * o.w;
  }
  acc[i] = a;
}

__global__ void triangular(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  float sum = 0.0f;
  for (int j = 0; j <= t; ++j) sum += s[j];
  out[t] = sum;
}

__global__ void atomicQueue(const int* in, int* out) {
  __shared__ int count;
  __shared__ int queue[256];
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int v = in[threadIdx.x];
  if (v % 3 == 0) {
    int at = atomicAdd(&count, 1);
    queue[at] = v;
  }
  __syncthreads();
  if (threadIdx.x < count) out[threadIdx.x] = queue[threadIdx.x];
}

template <int TILE>
__global__ void templateTile(const float* in, float* out) {
  __shared__ float t[TILE][TILE + 1];
  int x = threadIdx.x, y = threadIdx.y;
  t[y][x] = in[y * TILE + x];
  __syncthreads();
  out[y * TILE + x] = t[x][y];
}
template __global__ void templateTile<16>(const float*, float*);

__global__ void carvedExtern(const float* in, float* out, int n) {
  extern __shared__ unsigned char raw[];
  float* a = reinterpret_cast<float*>(raw);
  int* b = reinterpret_cast<int*>(a + n);
  int t = threadIdx.x;
  a[t] = in[t];
  b[t] = t * 2;
  __syncthreads();
  out[t] = a[(t * 4) % n] + (float)b[n - 1 - t];
}

__global__ void xorSwizzleT(const float* in, float* out) {
  __shared__ float t[32][32];
  int x = threadIdx.x, y = threadIdx.y;
  t[y][x ^ y] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = t[x][y ^ x];
}

__global__ void partialWarps(const float* in, float* out) {
  __shared__ float s[48][33];
  int t = threadIdx.x;
  for (int k = 0; k < 32; ++k) s[t][k] = in[k];
  __syncthreads();
  out[t] = s[t % 32][t / 32] + s[0][t % 32];
}

__global__ void volatileWarpReduce(const int* in, int* out) {
  __shared__ int sdata[64];
  int tid = threadIdx.x;
  sdata[tid] = in[tid];
  __syncthreads();
  if (tid < 32) {
    volatile int* v = sdata;
    v[tid] += v[tid + 32];
    __syncwarp();
    v[tid] += v[tid + 16];
    __syncwarp();
    v[tid] += v[tid + 8];
    __syncwarp();
    v[tid] += v[tid + 4];
    __syncwarp();
    v[tid] += v[tid + 2];
    __syncwarp();
    v[tid] += v[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void unrolledRuns(const int* in, int* out) {
  __shared__ int s[128 * 4];
  int t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) s[t * 4 + k] = in[t * 4 + k];
  __syncthreads();
  int sum = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) sum += s[t * 4 + k];
  out[t] = sum;
}

__global__ void floatAtomics(const float* in, float* out) {
  __shared__ float bins[16];
  if (threadIdx.x < 16) bins[threadIdx.x] = 0.0f;
  __syncthreads();
  atomicAdd(&bins[threadIdx.x % 16], in[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x < 16) out[threadIdx.x] = bins[threadIdx.x];
}

__global__ void histogramScan(const unsigned int* keys, unsigned int* out) {
  __shared__ unsigned int hist[16];
  __shared__ unsigned int scan[16];
  if (threadIdx.x < 16) hist[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&hist[keys[threadIdx.x] & 15u], 1u);
  __syncthreads();
  if (threadIdx.x < 16) {
    unsigned int s = 0;
    for (int i = 0; i < threadIdx.x; ++i) s += hist[i];
    scan[threadIdx.x] = s;
  }
  __syncthreads();
  out[threadIdx.x] = scan[keys[threadIdx.x] & 15u];
}
