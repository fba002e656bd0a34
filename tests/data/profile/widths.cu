// bankviz's own: 8- and 16-byte shared accesses, a stride from an argument, a loop.
// bankviz-cli profile widths.cu --kernel widths --grid 8 --block 128 --arg buffer:64K --arg int:3
__global__ void widths(float* out, int stride) {
  __shared__ float2 pairs[32][33];
  __shared__ float4 quads[128];
  __shared__ double wide[32 * 32];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  pairs[warp][lane] = make_float2(t, -t);
  quads[t] = make_float4(t, t, t, t);
  wide[(lane * stride) % 1024] = t;
  __syncthreads();
  float acc = 0;
  for (int i = 0; i < 4; ++i) {
    const float2 p = pairs[lane][(warp + i) % 32];  // column of float2: 64-bit, padded by one
    const float4 q = quads[(lane * 4 + i) % 128];   // 16-byte elements, stride 4
    acc += p.x + q.y + static_cast<float>(wide[(lane * 32 + i) % 1024]);  // double column
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
