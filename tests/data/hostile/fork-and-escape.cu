// A kernel that tries to leave a process behind: a child in a session of its own (out of the
// recording's process group) that would outlive the time limit and hold the output open.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) {
    const pid_t p = fork();
    if (p == 0) { setsid(); sleep(60); _exit(0); }
    if (p > 0) { fprintf(stderr, "forked %d\n", (int)p); exit(3); }
  }
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[31 - threadIdx.x];
}
