// 90 MB on stderr without a newline, then exit(1): the message was 94 MB.
#include <cstdio>
#include <cstdlib>
#include <cstring>
static char bv_x[1 << 20];
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) {
    memset(bv_x, 'x', sizeof bv_x);
    for (int i = 0; i < 90; ++i) fwrite(bv_x, 1, sizeof bv_x, stderr);
    exit(1);
  }
  s[threadIdx.x] = d[threadIdx.x];
}
