// Where static and extern __shared__ arrays land (issue 30, round 2): an unused static array,
// a static declared after use, file-scope arrays, a block-scope array, and __align__.
// nvcc -arch=sm_90 dynbase2.cu -o dynbase2 && ./dynbase2
#include <cstdio>
#include <cuda_runtime.h>

__shared__ int g_file[5];

#define SH(p) (unsigned int)__cvta_generic_to_shared(p)
__global__ void unused_first(unsigned int* out) {
  __shared__ int never[64];
  __shared__ float used[7];
  extern __shared__ char dyn_a[];
  used[threadIdx.x % 7] = 1;
  dyn_a[threadIdx.x] = 2;
  out[0] = SH(used); out[1] = SH(dyn_a); out[2] = 2; (void)never;
}
__global__ void used_in_reverse(unsigned int* out) {
  __shared__ int first[3];
  __shared__ int second[9];
  extern __shared__ int dyn_b[];
  second[threadIdx.x % 9] = 1;
  first[threadIdx.x % 3] = second[(threadIdx.x + 1) % 9];
  dyn_b[threadIdx.x] = first[0];
  out[0] = SH(first); out[1] = SH(second); out[2] = SH(dyn_b); out[3] = 3;
}
__global__ void file_and_block(unsigned int* out, int k) {
  __shared__ short loc[3];
  extern __shared__ double dyn_c[];
  loc[threadIdx.x % 3] = 1;
  g_file[threadIdx.x % 5] = loc[0];
  if (k > 0) {
    __shared__ char inner[11];
    inner[threadIdx.x % 11] = 1;
    out[3] = SH(inner);
  }
  dyn_c[threadIdx.x] = g_file[1];
  out[0] = SH(g_file); out[1] = SH(loc); out[2] = SH(dyn_c); out[4] = 5;
}
__global__ void aligned(unsigned int* out) {
  __shared__ char c[3];
  __shared__ __align__(64) float a[5];
  extern __shared__ __align__(8) short dyn_d[];
  c[threadIdx.x % 3] = 1;
  a[threadIdx.x % 5] = c[1];
  dyn_d[threadIdx.x] = 1;
  out[0] = SH(c); out[1] = SH(a); out[2] = SH(dyn_d); out[3] = 3;
}

int main() {
  unsigned int* d;
  cudaMalloc(&d, 64 * 4);
  unsigned int h[64];
  const char* names[] = {"unused int[64], float used[7] + extern char", "first[3], second[9] used second-first + extern int",
                         "file int g[5]; short loc[3]; block char inner[11] + extern double", "char c[3]; __align__(64) float a[5] + extern short"};
  for (int k = 0; k < 4; ++k) {
    cudaMemset(d, 0, 64 * 4);
    if (k == 0) unused_first<<<1, 32, 256>>>(d);
    if (k == 1) used_in_reverse<<<1, 32, 256>>>(d);
    if (k == 2) file_and_block<<<1, 32, 512>>>(d, 1);
    if (k == 3) aligned<<<1, 32, 256>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 64 * 4, cudaMemcpyDeviceToHost);
    std::printf("%-70s %s:", names[k], cudaGetErrorString(e));
    for (int i = 0; i < 5; ++i) std::printf(" %u", h[i]);
    std::printf("\n");
  }
  return 0;
}
