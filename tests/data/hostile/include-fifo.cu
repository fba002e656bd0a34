// An #include of a FIFO beside the kernel (the row links fifo.h to one): refused before the
// compiler opens it (it would wait for a writer that never comes).
#include "fifo.h"
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
}
