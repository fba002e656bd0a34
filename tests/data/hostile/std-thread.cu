// A thread started inside a kernel (it was called "an access out of its buffers").
#include <thread>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) {
    std::thread t([] {});
    t.join();
  }
  s[threadIdx.x] = d[threadIdx.x];
}
