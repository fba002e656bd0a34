// An #include of a device that never ends: refused before the compiler reads it.
#include "/dev/zero"
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
}
