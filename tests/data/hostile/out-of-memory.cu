// A kernel that asks for 3 GB with new: it said "an access out of its buffers"; now the recording
// names the cause.
#include <new>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) { char *p = new char[size_t{3} << 30]; p[0] = 1; d[1] = p[0]; }
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[31 - threadIdx.x];
}
