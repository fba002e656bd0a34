// The shared-memory reversal (cuda-fortran-shared-memory; its CUDA C form), as written.
// bankviz-cli profile reverse.cu --kernel staticReverse --block 64 --arg buffer:256 --arg int:64
// bankviz-cli profile reverse.cu --kernel dynamicReverse --block 64 --shared 256 --arg buffer:256 --arg int:64
__global__ void staticReverse(int *d, int n)
{
  __shared__ int s[64];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

__global__ void dynamicReverse(int *d, int n)
{
  extern __shared__ int s[];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}
