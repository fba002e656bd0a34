// An #include whose name a macro builds: no check before the preprocessor can see it; the
// contained compiler cannot open /dev/zero (it read it until 2 GB before).
#define Z(a, b) a##b
#define N(x) #x
#define M(x) N(x)
#include M(/dev/Z(ze, ro))
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = d[threadIdx.x];
}
