// A loop whose condition differs between threads: refused, never shown as one iteration.
__global__ void k(int* o) {
  __shared__ int s[256];
  for (int i = threadIdx.x; i < 256; i += 7)
    s[i] = 0;
}
