// A __syncthreads() only half of the block reaches (the others returned): undefined in CUDA.
__global__ void k(int *d)
{
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  if (threadIdx.x < 32) {
    __syncthreads();
    d[threadIdx.x] = s[63 - threadIdx.x];
  }
}
