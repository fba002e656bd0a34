// Kernels of bankviz's own for the recording (issue 20, item 1): indexes read from memory the
// kernel itself wrote (what only running it can know), vector widths, a padded table. One block
// each (--grid 1), buffers zeroed by bankviz. warp.cu holds the kernels the CPU cannot record.
// bankviz-cli profile recorded.cu --kernel gatherPermuted --block 256 --arg buffer:1K --arg buffer:1K --record-gpu
// bankviz-cli profile recorded.cu --kernel histogramHashed --block 256 --arg buffer:1K --arg buffer:1K --record-gpu
// bankviz-cli profile recorded.cu --kernel vectorRows --block 128 --arg buffer:8K --record-gpu
// bankviz-cli profile recorded.cu --kernel lookupTable --block 128 --arg buffer:1K --arg buffer:1K --record-gpu
__global__ void gatherPermuted(int *perm, int *out)
{
  __shared__ int s[256];
  int t = threadIdx.x;
  perm[t] = (t * 8) & 255;
  s[t] = t;
  __syncthreads();
  out[t] = s[perm[(t * 9) & 255]];
}

__global__ void histogramHashed(unsigned *data, unsigned *out)
{
  __shared__ unsigned hist[64];
  int t = threadIdx.x;
  data[t] = ((unsigned)t * 2654435761u) >> 26;
  if (t < 64)
    hist[t] = 0;
  __syncthreads();
  atomicAdd(&hist[data[t]], 1u);
  __syncthreads();
  if (t < 64)
    out[t] = hist[t];
}

__global__ void vectorRows(float4 *d)
{
  __shared__ float4 rows[128];
  __shared__ double wide[256];
  int t = threadIdx.x;
  rows[t] = d[t];
  wide[2 * t] = t;
  __syncthreads();
  float4 a = rows[(t * 4) & 127];
  d[t] = make_float4(a.x, a.y, a.z, (float)wide[(2 * t) & 255]);
}

__global__ void lookupTable(const int *keys, int *out)
{
  __shared__ int table[32][33];
  int t = threadIdx.x;
  for (int i = t; i < 32 * 33; i += blockDim.x)
    table[i / 33][i % 33] = i;
  __syncthreads();
  int k = keys[t] + t % 32;
  out[t] = table[k][t / 32] + table[t % 32][k];
}

// A __shared__ scalar as the whole index (s[n]): every lane reads n, then s[n] (a broadcast).
// n comes from memory (out is zeroed: 5): with `n = 5` the compiler folded n to its one stored
// constant (an H200: no shared instruction on the store, one LDS on s[n]).
__global__ void scalarIndex(int *out)
{
  __shared__ int n;
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t == 0)
    n = out[0] + 5;
  s[t] = t;
  __syncthreads();
  out[t] = s[n];
}

// A __shared__ scalar's every read on its own line (in arithmetic, a condition, an index), and an
// index read from another shared array (s[perm[t]]): each access on the line it is written on.
__global__ void scalarUses(int *out)
{
  __shared__ int n;
  __shared__ int perm[64];
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t == 0)
    n = out[0] + 2;
  perm[t] = (t * 5) & 63;
  __syncthreads();
  s[t] = n + t;
  __syncthreads();
  if (n)
    out[t] = s[perm[t]] + s[(n + t) & 63];
}
