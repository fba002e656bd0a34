// A second set of bankviz's own kernels of the kinds people write (issue 20), for what the first
// set does not stress: several arrays carved from one extern buffer, volatile warp-synchronous
// reductions, blockDim in the index of 2-D and 3-D blocks, char/short/double/struct shared
// arrays, __restrict__ and const parameters, #pragma unroll, a shared array in a helper
// __device__ function, warp shuffles and cooperative groups, early returns, atomicCAS/atomicExch
// on shared memory. Many kernels in one file: each is picked by --kernel (cases.txt), and one of
// them holds inline asm that the others' recordings never run. One block each, buffers zeroed.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define WARP 32

// Harris's reduction #5: the last warp unrolled through a volatile pointer in a helper.
__device__ void warpReduce(volatile float *sdata, unsigned tid)
{
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void reduceUnrolledHelper(float *out, const float *in)
{
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[tid] + in[tid + 256];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warpReduce(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The same last warp unrolled inline on a volatile __shared__ array (no pointer).
__global__ void reduceUnrolledInline(float *out, const float *in)
{
  volatile __shared__ float sdata[128];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[tid];
  __syncthreads();
  if (tid < 64)
    sdata[tid] += sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
  }
  if (tid == 0) out[0] = sdata[0];
}

// Three arrays carved from one extern buffer by pointer offsets.
__global__ void carvedExtern(float *out)
{
  extern __shared__ unsigned char smem[];
  float *a = reinterpret_cast<float *>(smem);
  int *b = reinterpret_cast<int *>(smem + 128 * sizeof(float));
  double *c = reinterpret_cast<double *>(smem + 128 * sizeof(float) + 128 * sizeof(int));
  unsigned t = threadIdx.x;
  a[t] = t;
  b[(t * 2) % 128] = t;
  c[t] = t;
  __syncthreads();
  out[t] = a[127 - t] + b[t] + (float)c[(t * 4) % 128];
}

// A 2-D block: blockDim in the index, a row read and a column read.
__global__ void blockDimIndex(float *out)
{
  __shared__ float s[256];
  unsigned row = threadIdx.y * blockDim.x + threadIdx.x;
  unsigned col = threadIdx.x * blockDim.y + threadIdx.y;
  s[row] = row;
  __syncthreads();
  out[row] = s[col];
}

// A 3-D block flattened with blockDim, read back across z.
__global__ void blockDim3d(int *out)
{
  __shared__ int v[256];
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  v[t] = t;
  __syncthreads();
  unsigned u = (threadIdx.x * blockDim.y + threadIdx.y) * blockDim.z + threadIdx.z;
  out[t] = v[u];
}

// Narrow and wide element types: char, short, double, each with its own stride.
__global__ void smallTypes(int *out)
{
  __shared__ char c[1024];
  __shared__ short h[1024];
  __shared__ double d[512];
  unsigned t = threadIdx.x;
  c[t] = (char)t;
  c[t * 4 + 128] = 1;
  h[t * 2] = (short)t;
  d[t * 2] = t;
  __syncthreads();
  out[t] = c[t * 8 % 1024] + h[(t * 32) % 1024] + (int)d[(t * 16) % 512];
}

// An array of structures: a particle's fields, 12 bytes apart.
struct Particle {
  float x, y, z;
};

__global__ void aosParticles(float *out)
{
  __shared__ Particle p[128];
  unsigned t = threadIdx.x;
  p[t].x = t;
  p[t].y = 2 * t;
  p[t].z = 3 * t;
  __syncthreads();
  out[t] = p[(t * 2) % 128].x + p[t].z;
}

// __restrict__ and const parameters, #pragma unroll over a strided row and a contiguous run.
__global__ void restrictUnroll(float *__restrict__ out, const float *__restrict__ in, const int k)
{
  __shared__ float s[1024];
  const unsigned t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    s[t + i * 256] = in[t + i * 256];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    acc += s[(t * 4 + i * k) % 1024];
  out[t] = acc;
}

// A shared array declared in a helper __device__ function: a block sum through one word a warp.
__device__ float blockSum(float v)
{
  __shared__ float partial[WARP];
  unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  float s = 0.0f;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < blockDim.x / WARP; ++w)
      s += partial[w];
  return s;
}

__global__ void helperShared(float *out, const float *in)
{
  __shared__ float stage[256];
  unsigned t = threadIdx.x;
  stage[t] = in[t];
  __syncthreads();
  float total = blockSum(stage[(t + 1) % 256]);
  if (t == 0) out[0] = total;
}

// A warp shuffle reading shared memory on its line, then a cooperative-groups tile.
__global__ void shuffleAndGroups(float *out)
{
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  float v = __shfl_xor_sync(0xffffffffu, s[(t * 2) % 256], 1);
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  for (int o = 16; o > 0; o /= 2)
    v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0)
    s[t / 32] = v;
  __syncthreads();
  out[t] = s[t % 8];
}

// Early returns of some threads (a partial last warp), then no barrier after them.
__global__ void earlyReturn(int *out)
{
  __shared__ int s[8][33];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  s[ty][tx] = tx;
  __syncthreads();
  if (ty * blockDim.x + tx >= 200) return;
  if (tx >= 20) return;
  s[tx % 8][ty * 4] += 1;
  out[ty * blockDim.x + tx] = s[ty][tx];
}

// atomicCAS and atomicExch on shared words: a lock per bank group, a slot per lane.
__global__ void sharedAtomics(int *out)
{
  __shared__ int lock[4];
  __shared__ int slot[64];
  __shared__ unsigned best[32];
  unsigned t = threadIdx.x;
  if (t < 4) lock[t] = 0;
  if (t < 64) slot[t] = 0;
  if (t < 32) best[t] = 0;
  __syncthreads();
  int old = atomicCAS(&lock[t % 4], 0, (int)t + 1);
  int prev = atomicExch(&slot[(t * 2) % 64], (int)t);
  atomicMax(&best[t % 32], t);
  __syncthreads();
  out[t] = old + prev + (int)best[t % 32];
}

// Two arrays in one declaration, a row and a padded column.
__global__ void twoDeclarators(float *out)
{
  __shared__ float a[32][32], b[32][33];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  a[ty][tx] = tx;
  b[ty][tx] = ty;
  __syncthreads();
  out[ty * 32 + tx] = a[tx][ty] + b[tx][ty];
}

// Templates: the block size a template argument (Harris's #6 shape, the last warp with
// __syncwarp), picked as reduceBlock<128>; a tile's size and element type, transposeT<16,double>.
template <unsigned blockSize>
__global__ void reduceBlock(float *out, const float *in)
{
  __shared__ float sdata[blockSize];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[tid];
  __syncthreads();
  if (blockSize >= 128) {
    if (tid < 64)
      sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncwarp();
  }
  if (tid == 0) out[0] = sdata[0];
}

template <int TILE, typename T>
__global__ void transposeT(T *out)
{
  __shared__ T tile[TILE][TILE + 1];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = x + y * TILE;
  __syncthreads();
  out[y * TILE + x] = tile[x][y];
}

// One array read twice on a loop line (a row times a row of the same tile): two accesses of the
// line each iteration, "load s" and "load s, access 2" in its picture.
__global__ void selfDot(float *out)
{
  __shared__ float s[32 * 33];
  unsigned t = threadIdx.x;
  for (unsigned i = t; i < 32 * 33; i += blockDim.x)
    s[i] = i;
  __syncthreads();
  unsigned a = (t % 32) * 33, b = ((t * 5) % 32) * 33;
  float acc = 0.0f;
  for (int k = 0; k < 32; ++k)
    acc += s[a + k] * s[b + k];
  out[t] = acc;
}

// Inline asm in another kernel of the file: the kernels above are recorded without it.
__global__ void asmElsewhere(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
  asm volatile("membar.cta;");
  d[threadIdx.x] = s[31 - threadIdx.x];
}

// Shared memory through pointers (issue 20's fourth session): a row of a tile through a local
// pointer to its first element, and a column through a pointer into the tile.
__global__ void tileRowPointer(float *out)
{
  __shared__ float tile[32][33];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  float *row = &tile[ty][0];
  row[tx] = tx + ty;
  __syncthreads();
  const float *col = &tile[0][tx];
  out[ty * 32 + tx] = row[(tx + 1) % 32] + col[ty * 33];
}

// Two arrays carved from one extern buffer by C-style casts, the second after the first's n
// elements (n a parameter).
__global__ void carvedCasts(float *out, int n)
{
  extern __shared__ float buf[];
  float *a = (float *)buf;
  int *b = (int *)&a[n];
  unsigned t = threadIdx.x;
  a[t] = t;
  b[(t * 2) % 64] = t;
  __syncthreads();
  out[t] = a[(t * 8) % 64] + b[t % 64];
}

// Block barriers through cooperative groups (a thread_block's sync(), cg::sync() in a loop whose
// guard lets more threads in each round, the group made and synced at once) and a tile's sync(),
// a warp's barrier. Without the barriers counted, thread 1's first read of line 328 would be
// taken for the same instruction as thread 0's first (a round earlier).
__global__ void groupBarriers(float *out)
{
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
  __shared__ float s[512];
  unsigned t = block.thread_rank();
  s[t] = t;
  s[t + 256] = t;
  block.sync();
  float v = 0.0f;
  for (unsigned d = 1; d < 256; d *= 2) {
    if (t < d)
      v += s[(t * 2) % 512];
    cg::sync(block);
  }
  s[t] = v;
  tile32.sync();
  v += s[t ^ 1];
  cg::this_thread_block().sync();
  out[t] = v + s[(t * 32) % 512];
}
