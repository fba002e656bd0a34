// bankviz's own kernels of the kinds people write, for the model against the hardware line by
// line (kernels/tools/model_vs_hardware.py runs each with --grid 1 and compares every
// shared-memory line's wavefronts). Every buffer is zeroed by bankviz-cli profile.
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
#define SCAN_N 512
#define RADIUS 3
#define TS 16
#define GEMM_N 64

// The CUDA samples' tiled transpose: 32x8 threads, each four rows (loop lines).
__global__ void transposeCoalesced(float *odata, const float *idata)
{
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The same with a padded column: no conflicts.
__global__ void transposeNoBankConflicts(float *odata, const float *idata)
{
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// In place: tile[tx][ty] = tile[ty][tx], a load and a store on one line.
__global__ void transposeInPlace(float *out)
{
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = tx;
  __syncthreads();
  float v = tile[ty][tx];
  __syncthreads();
  tile[tx][ty] = v;
  __syncthreads();
  out[ty * 32 + tx] = tile[ty][tx];
}

// Interleaved addressing with a divergent modulo (Harris's reduction #1).
__global__ void reduceInterleavedModulo(int *g_odata, const int *g_idata)
{
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = g_idata[tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Interleaved addressing, strided index (Harris's reduction #2): bank conflicts.
__global__ void reduceInterleavedStrided(int *g_odata, const int *g_idata)
{
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = g_idata[tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing (Harris's reduction #3).
__global__ void reduceSequential(int *g_odata, const int *g_idata)
{
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = g_idata[tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// GPU Gems 3's work-efficient scan (39.2.3) with its conflict-free offsets; 256 threads, 512
// elements.
__global__ void prescan(float *g_odata, const float *g_idata)
{
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int offset = 1;
  int ai = thid;
  int bi = thid + (SCAN_N / 2);
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = g_idata[ai];
  temp[bi + bankOffsetB] = g_idata[bi];
  for (int d = SCAN_N >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai2 = offset * (2 * thid + 1) - 1;
      int bi2 = offset * (2 * thid + 2) - 1;
      ai2 += CONFLICT_FREE_OFFSET(ai2);
      bi2 += CONFLICT_FREE_OFFSET(bi2);
      temp[bi2] += temp[ai2];
    }
    offset *= 2;
  }
  if (thid == 0) { temp[SCAN_N - 1 + CONFLICT_FREE_OFFSET(SCAN_N - 1)] = 0; }
  for (int d = 1; d < SCAN_N; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai2 = offset * (2 * thid + 1) - 1;
      int bi2 = offset * (2 * thid + 2) - 1;
      ai2 += CONFLICT_FREE_OFFSET(ai2);
      bi2 += CONFLICT_FREE_OFFSET(bi2);
      float t = temp[ai2];
      temp[ai2] = temp[bi2];
      temp[bi2] += t;
    }
  }
  __syncthreads();
  g_odata[ai] = temp[ai + bankOffsetA];
  g_odata[bi] = temp[bi + bankOffsetB];
}

// A histogram: bins indexed by data (the hardware's figures only) and a fixed increment pattern.
__global__ void histogramBins(int *out, const int *data)
{
  __shared__ int h[256];
  int tx = threadIdx.x;
  h[tx] = 0;
  __syncthreads();
  atomicAdd(&h[data[tx] & 255], 1);
  atomicAdd(&h[tx % 8], 1);
  __syncthreads();
  out[tx] = h[tx];
}

// A 1-D stencil with a halo loaded by the first threads, then a loop over the offsets.
__global__ void stencil1d(int *out, const int *in)
{
  __shared__ int temp[128 + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex + RADIUS];
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = in[gindex];
    temp[lindex + blockDim.x] = in[gindex + blockDim.x + RADIUS];
  }
  __syncthreads();
  int result = 0;
  for (int o = -RADIUS; o <= RADIUS; o++)
    result += temp[lindex + o];
  out[gindex] = result;
}

// An XOR swizzle: a column read without conflicts.
__global__ void xorSwizzle(float *out)
{
  __shared__ float tile[32][32];
  int r = threadIdx.y, c = threadIdx.x;
  tile[r][c ^ r] = r * 32 + c;
  __syncthreads();
  out[r * 32 + c] = tile[c][r ^ c];
}

// A 3-D block reading across its y and x.
__global__ void block3d(int *out)
{
  __shared__ int v[4][8][9];
  int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  v[tz][ty][tx] = tx + ty + tz;
  __syncthreads();
  out[(tz * 8 + ty) * 8 + tx] = v[tz][tx][ty];
}

// An SGEMM tile: A's row broadcast, B's row across the warp.
__global__ void sgemmTile(float *C, const float *A, const float *B)
{
  __shared__ float As[TS][TS];
  __shared__ float Bs[TS][TS];
  int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0.0f;
  for (int t = 0; t < GEMM_N / TS; ++t) {
    As[ty][tx] = A[ty * GEMM_N + t * TS + tx];
    Bs[ty][tx] = B[(t * TS + ty) * GEMM_N + tx];
    __syncthreads();
    for (int k = 0; k < TS; ++k)
      sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[ty * GEMM_N + tx] = sum;
}

// Dynamic shared memory past the block's first elements; doubles down a column.
__global__ void dynamicAndDouble(float *out)
{
  extern __shared__ float dyn[];
  __shared__ double wide[32 * 32];
  unsigned t = threadIdx.x;
  dyn[t + blockDim.x] = t;
  wide[(t % 32) * 32 + t / 32] = t;
  __syncthreads();
  out[t] = dyn[t + blockDim.x] + (float)wide[t];
}

// Guards, an early return and compound assignments.
__global__ void guardsAndReturns(int *out)
{
  __shared__ int s[128];
  int tid = threadIdx.x;
  s[tid] = 0;
  s[tid + 64] = 0;
  __syncthreads();
  if (tid >= 48) return;
  if (tid % 2 == 0) s[tid * 2] += 1; else s[tid] -= 1;
  s[(tid * 4) % 128]++;
  __syncthreads();
  out[tid] = s[tid];
}
