// Issue 30, round 6: kernels written before measuring them (nobody tuned the model to these).
#include <cuda_runtime.h>

// Tiled matrix multiply, 32x32 tiles, the inner loop unrolled (a row of A read by every lane).
__global__ void matmulTile32(const float* a, const float* b, float* c, int n)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 32) {
        As[ty][tx] = a[ty * n + k0 + tx];
        Bs[ty][tx] = b[(k0 + ty) * n + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    c[ty * n + tx] = acc;
}

// One sub-histogram per warp, bins picked from the thread's index.
__global__ void warpPrivateHist(const int* in, unsigned* out)
{
    __shared__ unsigned h[4][64];
    const int t = threadIdx.x, warp = t / 32;
    for (int i = t; i < 4 * 64; i += blockDim.x)
        h[i / 64][i % 64] = 0;
    __syncthreads();
    const int bin = (t * 5 + in[t]) % 64;
    atomicAdd(&h[warp][bin], 1u);
    __syncthreads();
    if (t < 64)
        out[t] = h[0][t] + h[1][t] + h[2][t] + h[3][t];
}

// A double atomicAdd written with atomicCAS on its 64 bits (as code for old GPUs does).
__device__ double casAddDouble(double* address, double val)
{
    unsigned long long* p = (unsigned long long*)address;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
__global__ void casDoubleSum(const double* in, double* out)
{
    __shared__ double sums[16];
    const int t = threadIdx.x;
    if (t < 16) sums[t] = 0.0;
    __syncthreads();
    casAddDouble(&sums[t % 16], in[t] + 1.0);
    __syncthreads();
    if (t < 16) out[t] = sums[t];
}

// A 5-point stencil on a 16x16 block with a one-element halo.
__global__ void stencil2D(const float* in, float* out)
{
    __shared__ float s[18][18];
    const int tx = threadIdx.x, ty = threadIdx.y;
    s[ty + 1][tx + 1] = in[ty * 16 + tx];
    if (tx == 0) s[ty + 1][0] = 0.0f;
    if (tx == 15) s[ty + 1][17] = 0.0f;
    if (ty == 0) s[0][tx + 1] = 0.0f;
    if (ty == 15) s[17][tx + 1] = 0.0f;
    __syncthreads();
    out[ty * 16 + tx] = s[ty + 1][tx + 1] * 4.0f - s[ty][tx + 1] - s[ty + 2][tx + 1] -
                        s[ty + 1][tx] - s[ty + 1][tx + 2];
}

// A float2 transpose, 32x8 threads each moving four rows; the tile padded by one float2.
__global__ void transposeFloat2(const float2* in, float2* out)
{
    __shared__ float2 tile[32][33];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[y + j][x] = in[(y + j) * 32 + x];
    __syncthreads();
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * 32 + x] = tile[x][y + j];
}

// A block sum: shuffles within each warp, the warps' sums through shared memory, warp 0 adds them.
__global__ void warpSumTwoStage(const float* in, float* out)
{
    __shared__ float partial[8];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float v = in[t] + 1.0f;
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        for (int o = 4; o > 0; o /= 2)
            w += __shfl_down_sync(0xffffffffu, w, o);
        if (lane == 0) out[0] = w;
    }
}

// char4 stored whole, read back one byte at a time with a stride.
__global__ void char4Pack(const char4* in, char* out)
{
    __shared__ char4 c[128];
    const int t = threadIdx.x;
    c[t] = in[t];
    __syncthreads();
    const char* bytes = reinterpret_cast<const char*>(c);
    out[t] = bytes[(t * 4) % 512] + bytes[t];
}

// A ring buffer whose head thread 0 moves: a shared scalar in every index.
__global__ void ringHead(const int* in, int* out)
{
    __shared__ int ring[64];
    __shared__ int head;
    const int t = threadIdx.x;
    if (t == 0) head = 5;
    ring[t % 64] = in[t];
    __syncthreads();
    const int v = ring[(head + t) & 63];
    __syncthreads();
    if (t == 0) head = head + 7;
    __syncthreads();
    out[t] = v + ring[(head + 2 * t) & 63];
}

// A per-warp tree in shared memory, __syncwarp() between its levels.
__global__ void syncwarpTree(const float* in, float* out)
{
    __shared__ float s[128];
    const int t = threadIdx.x, lane = t % 32;
    s[t] = in[t];
    __syncwarp();
    for (int d = 16; d > 0; d /= 2) {
        if (lane < d) s[t] += s[t + d];
        __syncwarp();
    }
    if (lane == 0) out[t / 32] = s[t];
}

// long long tile read down a column (8-byte elements, 16 rows of 16).
__global__ void llColumn(const long long* in, long long* out)
{
    __shared__ long long m[16][16];
    const int t = threadIdx.x;
    m[t / 16][t % 16] = in[t];
    __syncthreads();
    out[t] = m[t % 16][t / 16] + m[t % 16][(t / 16 + 1) % 16];
}
