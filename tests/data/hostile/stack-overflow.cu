// An 8 MB local array on a thread's 128 KB stack (it wrote into other memory, and the recording
// ended normally).
__global__ void k(int *d)
{
  __shared__ int s[32];
  volatile char big[8 << 20];
  big[threadIdx.x] = 1;
  s[threadIdx.x] = big[threadIdx.x];
  d[threadIdx.x] = s[threadIdx.x];
}
