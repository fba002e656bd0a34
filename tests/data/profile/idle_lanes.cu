// A store every warp issues with no active lane (its predicate false for every thread): the
// hardware counts its executions at 0 wavefronts, and profile's table lists its line (issue 30).
__global__ void idleLanes(int* out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x % 64]));
    asm volatile("{ .reg .pred p; setp.ge.u32 p, %0, 1000; @p st.shared.u32 [%1], %0; }" ::"r"(threadIdx.x), "r"(addr) : "memory");
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
