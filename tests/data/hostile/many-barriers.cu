// 1024 threads meeting at 5000 barriers: legal, heavy (it took 46 s, past the 20 s default limit).
__global__ void k(int *d)
{
  __shared__ int s[1024];
  s[threadIdx.x] = threadIdx.x;
  for (int i = 0; i < 5000; ++i) __syncthreads();
  d[threadIdx.x] = s[1023 - threadIdx.x];
}
