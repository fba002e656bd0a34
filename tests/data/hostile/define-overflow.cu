// A #define whose value overflows 64 bits (issue 20: it wrapped silently, undefined behaviour).
#define BIG 9223372036854775807
#define N (BIG + 1)
__global__ void k(int* o) {
  __shared__ int a[N];
  a[threadIdx.x] = 0;
}
