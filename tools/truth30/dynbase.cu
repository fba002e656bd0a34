// Where the kernel puts extern __shared__ memory after static __shared__ arrays (issue 30): the
// shared-window offsets of each array, for static arrays of several sizes and alignments and
// extern arrays of several element types. nvcc -arch=sm_90 dynbase.cu -o dynbase && ./dynbase
#include <cstdio>
#include <cuda_runtime.h>

#define PROBE(NAME, STATIC_DECLS, STATIC_PTRS, EXT_T)                                     \
  __global__ void NAME(unsigned int* out) {                                              \
    STATIC_DECLS;                                                                        \
    extern __shared__ EXT_T NAME##_dyn[];                                                \
    const void* p[] = {STATIC_PTRS, NAME##_dyn};                                         \
    const int n = sizeof p / sizeof p[0];                                                \
    if (threadIdx.x == 0)                                                                \
      for (int i = 0; i < n; ++i)                                                        \
        out[i] = (unsigned int)__cvta_generic_to_shared(p[i]);                          \
    if (threadIdx.x < 4) ((volatile char*)p[threadIdx.x % (n - 1)])[0] = 1;             \
    NAME##_dyn[0] = EXT_T();                                                             \
    out[16] = n;                                                                         \
  }
#define C ,
PROBE(p_int100_int, __shared__ int a[100], a, int)
PROBE(p_char5_double, __shared__ char a[5], a, double)
PROBE(p_char5_char, __shared__ char a[5], a, char)
PROBE(p_float33_char3_float4, __shared__ float a[33]; __shared__ char b[3], a C b, float4)
PROBE(p_int3_short, __shared__ int a[3], a, short)
PROBE(p_char130_int, __shared__ char a[130], a, int)
PROBE(p_two_static, __shared__ int a[10]; __shared__ double b[3]; __shared__ char c[7], a C b C c, int)

int main() {
  unsigned int* d;
  cudaMalloc(&d, 64 * 4);
  unsigned int h[64];
  const char* names[] = {"int a[100] + extern int", "char a[5] + extern double", "char a[5] + extern char",
                         "float a[33], char b[3] + extern float4", "int a[3] + extern short",
                         "char a[130] + extern int", "int a[10], double b[3], char c[7] + extern int"};
  void (*ks[])(unsigned int*) = {p_int100_int, p_char5_double, p_char5_char, p_float33_char3_float4,
                                 p_int3_short, p_char130_int, p_two_static};
  for (int k = 0; k < 7; ++k) {
    cudaMemset(d, 0, 64 * 4);
    ks[k]<<<1, 32, 256>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 64 * 4, cudaMemcpyDeviceToHost);
    std::printf("%-48s %s:", names[k], cudaGetErrorString(e));
    for (unsigned i = 0; i < h[16] && i < 16; ++i) std::printf(" %u", h[i]);
    std::printf("\n");
  }
  return 0;
}
