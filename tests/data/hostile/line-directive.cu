#line 4000000000
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
}
