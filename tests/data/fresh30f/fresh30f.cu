// Issue 30, round 7: kernels written before measuring them (nobody tuned the model to these).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// Reduction with the first add during the load, a tree to 64, then a volatile warp's unrolled tail.
__global__ void reduceFirstAdd(const float* in, float* out)
{
    __shared__ float sdata[256];
    const unsigned t = threadIdx.x;
    sdata[t] = in[t] + in[t + 256];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float* v = sdata;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[0] = sdata[0];
}

// The classic padded transpose: a 32x33 tile, 32x8 threads each moving four rows.
__global__ void transposePadRows(const float* in, float* out)
{
    __shared__ float tile[32][33];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[y + j][x] = in[(y + j) * 32 + x];
    __syncthreads();
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * 32 + x] = tile[x][y + j];
}

// Per-thread byte counters, one column per thread (CUDA's histogram64 layout).
__global__ void byteCounters(const unsigned char* data, unsigned* out)
{
    __shared__ unsigned char counts[16 * 128];
    const int t = threadIdx.x;
    for (int b = 0; b < 16; ++b)
        counts[b * 128 + t] = 0;
    __syncthreads();
    for (int i = 0; i < 4; ++i) {
        const int bin = (data[t * 4 + i] + t) & 15;
        counts[bin * 128 + t] += 1;
    }
    __syncthreads();
    if (t < 16) {
        unsigned sum = 0;
        for (int k = 0; k < 128; ++k)
            sum += counts[t * 128 + (k + t) % 128];
        out[t] = sum;
    }
}

// A block-wide inclusive scan: shuffles within each warp, the warps' totals through shared memory.
__global__ void blockScanShfl(const int* in, int* out)
{
    __shared__ int warpTotals[16];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int v = in[t];
    for (int d = 1; d < 32; d <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
    }
    if (lane == 31) warpTotals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < 16 ? warpTotals[lane] : 0;
        for (int d = 1; d < 16; d <<= 1) {
            const int u = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += u;
        }
        if (lane < 16) warpTotals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += warpTotals[warp - 1];
    out[t] = v;
}

// Bitonic sort of 64 key/value pairs, keys and values in two arrays.
__global__ void bitonicPairs(const int* keys, const float* vals, int* outKeys, float* outVals)
{
    __shared__ int k[64];
    __shared__ float v[64];
    const int i = threadIdx.x;
    k[i] = keys[i];
    v[i] = vals[i];
    __syncthreads();
    for (int size = 2; size <= 64; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            const int j = i ^ stride;
            if (j > i) {
                const bool up = (i & size) == 0;
                const int ki = k[i], kj = k[j];
                if ((ki > kj) == up) {
                    k[i] = kj;
                    k[j] = ki;
                    const float t = v[i];
                    v[i] = v[j];
                    v[j] = t;
                }
            }
            __syncthreads();
        }
    }
    outKeys[i] = k[i];
    outVals[i] = v[i];
}

// Row convolution, radius 4: a 4x(32+8) tile with its halo, nine taps unrolled.
__global__ void convRows9(const float* in, const float* w, float* out)
{
    __shared__ float row[4][40];
    const int x = threadIdx.x, y = threadIdx.y;
    row[y][x + 4] = in[y * 32 + x];
    if (x < 4) {
        row[y][x] = 0.0f;
        row[y][x + 36] = 0.0f;
    }
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = -4; k <= 4; ++k)
        acc += w[k + 4] * row[y][x + 4 + k];
    out[y * 32 + x] = acc;
}

// A struct of a 16-bit count, a byte kind and a float weight (8 bytes), members read apart.
struct Cell {
    unsigned short count;
    unsigned char kind;
    unsigned char spare;
    float weight;
};
__global__ void cellMembers(const float* in, float* out)
{
    __shared__ Cell cells[128];
    const int t = threadIdx.x;
    cells[t].count = (unsigned short)t;
    cells[t].kind = (unsigned char)(t & 3);
    cells[t].weight = in[t];
    __syncthreads();
    const Cell& c = cells[(t * 5) % 128];
    out[t] = c.weight * c.count + cells[t ^ 1].kind;
}

// Doubles in a 16x17 tile, written by rows and read by columns.
__global__ void doubleColumns(const double* in, double* out)
{
    __shared__ double d[16][17];
    const int x = threadIdx.x, y = threadIdx.y;
    d[y][x] = in[y * 16 + x];
    __syncthreads();
    out[y * 16 + x] = d[x][y] + d[x][(y + 1) % 16];
}

// int4 reads where four lanes read the same 16 bytes (a broadcast within each quarter warp).
__global__ void int4Quads(const int4* in, int4* out)
{
    __shared__ int4 q[64];
    const int t = threadIdx.x;
    if (t < 64) q[t] = in[t];
    __syncthreads();
    const int4 a = q[t / 4];
    const int4 b = q[(t / 4 + 8 * (t % 4)) % 64];
    out[t] = make_int4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// Stream compaction: a warp's survivors at a base taken with one shared atomic per warp.
__global__ void ballotCompact(const int* in, int* out)
{
    __shared__ int queue[256];
    __shared__ int tail;
    const int t = threadIdx.x, lane = t & 31;
    if (t == 0) tail = 0;
    __syncthreads();
    const int x = in[t];
    const bool keep = ((x + t) % 3) != 0;
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    int base = 0;
    if (lane == 0) base = atomicAdd(&tail, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) queue[base + __popc(mask & ((1u << lane) - 1u))] = x;
    __syncthreads();
    if (t < tail) out[t] = queue[t];
}

// A half tile: each thread writes its row, then reads a column (16-bit elements).
__global__ void halfColumnRead(const __half* in, float* out)
{
    __shared__ __half h[32][32];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int r = y; r < 32; r += 4)
        h[r][x] = in[r * 32 + x];
    __syncthreads();
    float s = 0.0f;
    for (int r = y; r < 32; r += 4)
        s += __half2float(h[x][r]);
    out[y * 32 + x] = s;
}

// Max per segment with atomicMax, then each thread swaps its value into a ring with atomicExch.
__global__ void segMaxExch(const int* in, int* out)
{
    __shared__ int segMax[8];
    __shared__ int ring[64];
    const int t = threadIdx.x;
    if (t < 8) segMax[t] = -2147483647;
    if (t < 64) ring[t] = 0;
    __syncthreads();
    atomicMax(&segMax[t / 16], in[t]);
    const int old = atomicExch(&ring[(t * 3) % 64], t);
    __syncthreads();
    out[t] = old + segMax[t % 8];
}

// A 1D stencil of radius 3, the seven loads unrolled (neighbouring but unaligned addresses).
__global__ void stencil1D7(const float* in, float* out)
{
    __shared__ float s[128 + 6];
    const int t = threadIdx.x;
    s[t + 3] = in[t];
    if (t < 3) {
        s[t] = 0.0f;
        s[t + 131] = 0.0f;
    }
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 7; ++k)
        acc += s[t + k];
    out[t] = acc;
}
