// A kernel that closes its output and sleeps: no output to wait for, no CPU time used, so
// neither the end of its output nor the CPU-time limit ends it; the wall-clock limit must.
#include <unistd.h>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) { close(1); close(2); sleep(100); }
  s[threadIdx.x] = d[threadIdx.x];
}
