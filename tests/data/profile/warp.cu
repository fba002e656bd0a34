// Warp intrinsics, which the GPU recording runs as written and the CPU recording cannot, and inline
// asm, which neither records (refused by name: its lines keep the hardware's figures only).
// bankviz-cli profile warp.cu --kernel shuffleReduce --block 256 --arg buffer:1K --arg buffer:16 --record-gpu
// bankviz-cli profile warp.cu --kernel withInlineAsm --block 64 --arg buffer:256 --record-gpu
__global__ void shuffleReduce(const float *in, float *out)
{
  __shared__ float warpSums[8];
  int t = threadIdx.x;
  float v = in[t];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((t & 31) == 0)
    warpSums[t / 32] = v;
  __syncthreads();
  if (t < 8)
    v = warpSums[t];
  if (t < 32)
    for (int o = 4; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffffu, v, o);
  if (t == 0)
    out[0] = v;
}

__global__ void withInlineAsm(int *d)
{
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  asm volatile("membar.cta;");
  d[t] = s[63 - t];
}

