// The Kepler bank-width seed's 21-point filter (kepler-bank-width-filter): each thread one output
// (filter), then two outputs packed as float2 (filter2), the filter lines as the seed wrote them.
// bankviz-cli profile kepler_filter.cu --kernel filter --grid 64 --block 256 --arg buffer:72K --arg buffer:72K --arg buffer:128
// bankviz-cli profile kepler_filter.cu --kernel filter2 --grid 32 --block 256 --arg buffer:72K --arg buffer:72K --arg buffer:128
#define RADIUS 10
#define BLOCK 256
__global__ void filter(float *filtered, const float *input, const float *FilterCoeffs)
{
  __shared__ float inputS[BLOCK + 2 * RADIUS];
  int gIdx = blockIdx.x * blockDim.x + threadIdx.x;
  int sIdx = threadIdx.x + RADIUS;
  inputS[sIdx] = input[gIdx + RADIUS];
  if (threadIdx.x < 2 * RADIUS)
    inputS[threadIdx.x + (threadIdx.x < RADIUS ? 0 : BLOCK)] = input[gIdx];
  __syncthreads();
  filtered[gIdx] = inputS[sIdx - 10] * FilterCoeffs[ 0] +
       inputS[sIdx - 9] * FilterCoeffs[ 1] +
       inputS[sIdx - 8] * FilterCoeffs[ 2] +
       inputS[sIdx - 1] * FilterCoeffs[ 9] +
       inputS[sIdx] * FilterCoeffs[10] +
       inputS[sIdx + 1] * FilterCoeffs[11] +
       inputS[sIdx + 10] * FilterCoeffs[20]  ;
}

__global__ void filter2(float *filtered, const float *input, const float *FilterCoeffs)
{
  __shared__ float2 inputS[BLOCK + 2 * RADIUS];
  int gIdx = blockIdx.x * blockDim.x + threadIdx.x;
  int sIdxShift = threadIdx.x + RADIUS;
  inputS[sIdxShift] = make_float2(input[gIdx], input[gIdx + blockDim.x * gridDim.x]);
  if (threadIdx.x < 2 * RADIUS)
    inputS[threadIdx.x + (threadIdx.x < RADIUS ? 0 : BLOCK)] = make_float2(0.0f, 0.0f);
  __syncthreads();
  float2 sum = {0.0f, 0.0f};
#pragma unroll
  for(int i = 0; i < 21; i++) {
       float2 temp = inputS[sIdxShift - 10 + i];
       sum.x += temp.x*FilterCoeffs[i];
       sum.y += temp.y*FilterCoeffs[i];
  }
  filtered[gIdx] = sum.x;
  filtered[gIdx + blockDim.x*gridDim.x] = sum.y  ;
}
