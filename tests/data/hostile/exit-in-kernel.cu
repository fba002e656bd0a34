// exit() inside a kernel: the block never finishes.
#include <cstdlib>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 5) exit(0);
  s[threadIdx.x] = d[threadIdx.x];
}
