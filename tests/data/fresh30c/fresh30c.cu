// Issue 30, round 3: kernels written before measuring them (nobody tuned the model to these).
#include <cuda_fp16.h>

// A 32x32 tile padded by 4 floats, read back as float4 through a cast (vector loads of a row).
__global__ void vecRowsF4(const float* in, float* out)
{
    __shared__ float tile[32][36];
    const int t = threadIdx.x;
    for (int r = t / 32; r < 32; r += blockDim.x / 32) tile[r][t % 32] = in[r * 32 + t % 32];
    __syncthreads();
    const int r = t / 8, c = (t % 8) * 4;
    float4 v = reinterpret_cast<float4*>(&tile[r][c])[0];
    out[t] = v.x + v.y + v.z + v.w;
}

// Pairs of ints read through an int2 cast, and written back through one, with a stride.
__global__ void int2Stride(const int* in, int* out)
{
    __shared__ int s[512];
    const int t = threadIdx.x;
    s[t] = in[t];
    s[t + 128] = in[t + 128];
    s[t + 256] = in[t + 256];
    s[t + 384] = in[t + 384];
    __syncthreads();
    int2 p = *(int2*)&s[(t * 4) % 512];
    *(int2*)&s[(t * 2 + 256) % 512] = make_int2(p.y, p.x);
    __syncthreads();
    out[t] = s[t] + s[511 - t];
}

// One step loop of a bitonic sort in shared memory.
__global__ void bitonicShared(const int* in, int* out)
{
    __shared__ int key[256];
    const unsigned t = threadIdx.x;
    key[t] = in[t];
    __syncthreads();
    for (unsigned k = 2; k <= 256; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            const unsigned ixj = t ^ j;
            if (ixj > t) {
                const int a = key[t], b = key[ixj];
                const bool up = (t & k) == 0;
                if ((a > b) == up) {
                    key[t] = b;
                    key[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    out[t] = key[t];
}

// Hillis-Steele scan over doubles, double-buffered.
__global__ void scanDouble(const double* in, double* out)
{
    __shared__ double buf[2][128];
    const int t = threadIdx.x;
    int cur = 0;
    buf[0][t] = in[t];
    __syncthreads();
    for (int off = 1; off < 128; off *= 2) {
        const double v = buf[cur][t] + (t >= off ? buf[cur][t - off] : 0.0);
        buf[1 - cur][t] = v;
        cur = 1 - cur;
        __syncthreads();
    }
    out[t] = buf[cur][t];
}

// A byte histogram with the bins in shared memory; the input is zeroed (every byte 0).
__global__ void byteBins(const unsigned char* in, unsigned* out)
{
    __shared__ unsigned bins[256];
    const int t = threadIdx.x;
    bins[t] = 0;
    __syncthreads();
    for (int i = t; i < 1024; i += blockDim.x) atomicAdd(&bins[in[i]], 1u);
    __syncthreads();
    out[t] = bins[t];
}

// 1D convolution, radius 3, with its halo loaded by the first threads.
__global__ void conv1dHalo(const float* in, float* out)
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
    for (int k = -3; k <= 3; ++k) acc += s[t + 3 + k] * (1.0f + k);
    out[t] = acc;
}

// n-body style: every thread reads the same float4 body in turn (a broadcast).
__global__ void bodiesBroadcast(const float4* in, float* out)
{
    __shared__ float4 body[64];
    const int t = threadIdx.x;
    body[t] = in[t];
    __syncthreads();
    float f = 0.0f;
    for (int j = 0; j < 64; ++j) {
        const float4 b = body[j];
        f += b.x * b.w + b.y - b.z;
    }
    out[t] = f;
}

struct Vec3 {
    float x, y, z;
};

// An array of 12-byte structs: each thread its own, then its neighbour's y.
__global__ void vec3Neighbours(const float* in, float* out)
{
    __shared__ Vec3 v[96];
    const int t = threadIdx.x;
    v[t].x = in[t];
    v[t].y = in[t] * 2.0f;
    v[t].z = 0.0f;
    __syncthreads();
    const Vec3 mine = v[t];
    out[t] = mine.x + mine.z + v[(t + 1) % 96].y;
}

// Half tile, read along a column (16-bit elements, two to a bank).
__global__ void halfColumns(const __half* in, float* out)
{
    __shared__ __half h[32][32];
    const int t = threadIdx.x;
    for (int r = 0; r < 32; ++r) h[r][t] = in[r * 32 + t];
    __syncthreads();
    float acc = 0.0f;
    for (int c = 0; c < 4; ++c) acc += __half2float(h[t][c]);
    out[t] = acc;
}

// XOR-swizzled transpose: stored at column c ^ r, read the same way along a column.
__global__ void xorTranspose(const float* in, float* out)
{
    __shared__ float tile[32][32];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int r = y; r < 32; r += 4) tile[r][x ^ r] = in[r * 32 + x];
    __syncthreads();
    for (int r = y; r < 32; r += 4) out[r * 32 + x] = tile[x][r ^ x];
}

// A block of 48 threads (one and a half warps), stride-2 shorts.
__global__ void partialShorts(const short* in, short* out)
{
    __shared__ short s[96];
    const int t = threadIdx.x;
    s[2 * t] = in[t];
    s[2 * t + 1] = in[t] + 1;
    __syncthreads();
    out[t] = s[(t * 3) % 96];
}

// A dynamic buffer carved into a float part and a float2 part read through a pointer.
__global__ void carvedFloat2(const float* in, float* out)
{
    extern __shared__ float dyn[];
    float* a = dyn;
    float2* b = reinterpret_cast<float2*>(dyn + 128);
    const int t = threadIdx.x;
    a[t] = in[t];
    b[t] = make_float2(in[t], 1.0f);
    __syncthreads();
    const float2 q = b[(t * 2) % 128];
    out[t] = a[127 - t] + q.x + q.y;
}
