// A float4 read through a cast at a float's offset: CUDA faults ("misaligned address").
__global__ void k(float *o) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float4 v = *reinterpret_cast<float4 *>(&s[threadIdx.x % 8 + 1]);
  o[threadIdx.x] = v.x;
}
