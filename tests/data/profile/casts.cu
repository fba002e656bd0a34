// Vector casts of shared pointers inside expressions, and a plain `*p` of a pointer into shared
// memory: both recordings follow them (docs/RECORD.md, "Shared memory through pointers").
__global__ void vectorCasts(float *out)
{
    __shared__ float tile[32][36];
    __shared__ int s[256];
    const int r = threadIdx.x / 8, c = (threadIdx.x % 8) * 4;
    tile[r][c] = threadIdx.x;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float4 v = reinterpret_cast<float4 *>(&tile[r][c])[0];
    int2 w = *(int2 *)&s[2 * (threadIdx.x % 64)];
    const float2 h = ((float2 *)tile[r])[c / 2];
    int *p = s + threadIdx.x;
    *p = w.x + 1;
    out[threadIdx.x] = v.x + v.w + w.y + h.y + reinterpret_cast<float2 *>(tile[r])[1].x + 2 * *p;
}
