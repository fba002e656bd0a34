// Issue 30, round 5: kernels written before measuring them (nobody tuned the model to these).
#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

// GPU Gems 3's work-efficient scan with the conflict-free padding (256 elements, 128 threads).
__global__ void gemsScan(const float* in, float* out)
{
    __shared__ float temp[256 + 256 / NUM_BANKS];
    const int thid = threadIdx.x;
    const int n = 256;
    int ai = thid, bi = thid + n / 2;
    temp[ai + CONFLICT_FREE_OFFSET(ai)] = in[ai];
    temp[bi + CONFLICT_FREE_OFFSET(bi)] = in[bi];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    __syncthreads();
    out[ai] = temp[ai + CONFLICT_FREE_OFFSET(ai)];
    out[bi] = temp[bi + CONFLICT_FREE_OFFSET(bi)];
}

// Odd-even transposition sort: each thread compares a pair, even then odd phases.
__global__ void oddEvenSort(const int* in, int* out)
{
    __shared__ int v[128];
    const int t = threadIdx.x;
    v[t] = in[t];
    v[t + 64] = in[t + 64];
    __syncthreads();
    for (int phase = 0; phase < 4; ++phase) {
        const int i = 2 * t + (phase & 1);
        if (i + 1 < 128) {
            const int a = v[i], b = v[i + 1];
            if (a > b) {
                v[i] = b;
                v[i + 1] = a;
            }
        }
        __syncthreads();
    }
    out[t] = v[t];
}

// Matrix-vector: the matrix tile read one row per thread (a column walk across threads).
__global__ void matVecRows(const float* a, const float* x, float* y)
{
    __shared__ float A[64][32];
    __shared__ float xs[32];
    const int t = threadIdx.x;
    for (int r = 0; r < 64; ++r) A[r][t % 32] = a[r * 32 + t % 32];
    if (t < 32) xs[t] = x[t];
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < 32; ++j) acc += A[t][j] * xs[j];
    y[t] = acc;
}

// Aggregated atomics: lanes with equal bins elect a leader (__match_any_sync); only it adds.
__global__ void matchedBins(const int* keys, unsigned* out)
{
    __shared__ unsigned bins[32];
    const int t = threadIdx.x;
    if (t < 32) bins[t] = 0;
    __syncthreads();
    const int bin = keys[t] & 31;
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    const int leader = __ffs(peers) - 1;
    if ((t & 31) == leader) atomicAdd(&bins[bin], __popc(peers));
    __syncthreads();
    if (t < 32) out[t] = bins[t];
}

// Register blocking: each thread reads four floats of a row at once through a float4 cast.
__global__ void regBlockF4(const float* in, float* out)
{
    __shared__ float As[16][64];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int c = tx; c < 64; c += 16) As[ty][c] = in[ty * 64 + c];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k) {
        const float4 a = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
        acc += a.x + a.y + a.z + a.w * tx;
    }
    out[ty * 16 + tx] = acc;
}

// Bytes with a stride of four (every thread its own bank word), then packed byte reads.
__global__ void byteStride(const unsigned char* in, unsigned char* out)
{
    __shared__ unsigned char b[512];
    const int t = threadIdx.x;
    b[t * 4] = in[t];
    b[t * 4 + 1] = in[t] + 1;
    __syncthreads();
    out[t] = b[t] + b[(t * 4 + 1) % 512];
}

// 64-bit integers with a stride of three, and a reversed read.
__global__ void longStride(const long long* in, long long* out)
{
    __shared__ long long q[192];
    const int t = threadIdx.x;
    q[t * 3] = in[t];
    q[t * 3 + 1] = 1;
    __syncthreads();
    out[t] = q[(t * 3) % 192] + q[191 - t];
}

// A 3D block storing a tile in z-y-x order and reading it back transposed.
__global__ void block3dTranspose(const float* in, float* out)
{
    __shared__ float t3[4][4][8];
    const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    t3[z][y][x] = in[(z * 4 + y) * 8 + x];
    __syncthreads();
    out[(z * 4 + y) * 8 + x] = t3[x % 4][y][z * 2];
}

// A value swapped within a warp through its own region of shared memory, __syncwarp only.
__global__ void warpSwapSyncwarp(const int* in, int* out)
{
    __shared__ int w[4][32];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    w[warp][lane] = in[t];
    __syncwarp();
    out[t] = w[warp][31 - lane];
}

// __half2 pairs: stored per thread, read with a stride of two pairs.
__global__ void half2Stride(const __half2* in, float* out)
{
    __shared__ __half2 h[256];
    const int t = threadIdx.x;
    h[t] = in[t];
    h[t + 64] = in[t + 64];
    __syncthreads();
    const __half2 p = h[t * 2];
    out[t] = __low2float(p) + __high2float(p);
}

// A user-written compare-and-swap loop keeping a float maximum per bucket.
__global__ void casFloatMax(const float* in, float* out)
{
    __shared__ float best[8];
    const int t = threadIdx.x;
    if (t < 8) best[t] = -1.0f;
    __syncthreads();
    float* slot = &best[t % 8];
    const float v = in[t];
    int old = __float_as_int(*slot);
    while (__int_as_float(old) < v) {
        const int seen = atomicCAS(reinterpret_cast<int*>(slot), old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
    __syncthreads();
    if (t < 8) out[t] = best[t];
}

// A block of 40 threads (a warp and a quarter): a guarded store, an unguarded padded read.
__global__ void partial40(const int* in, int* out)
{
    __shared__ int s[41 * 2];
    const int t = threadIdx.x;
    if (t < 36) s[t * 2] = in[t];
    __syncthreads();
    out[t] = s[(t * 41) % 82];
}

// Cooperative groups: a tile of 8 threads sums its values through shared memory.
__global__ void cgTile8Sum(const int* in, int* out)
{
    __shared__ int part[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    const int t = threadIdx.x;
    part[t] = in[t];
    tile.sync();
    int sum = 0;
    for (int i = 0; i < 8; ++i) sum += part[(t / 8) * 8 + i];
    out[t] = sum;
}
