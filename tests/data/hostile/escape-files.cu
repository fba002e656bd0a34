// A kernel that reaches for the user's files, the network and other programs: under the CPU
// recording's seccomp allow-list each call fails, the kernel goes on, the file is kept. Any call
// that works is named on stderr and ends the recording (exit 3).
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>
__global__ void k(int *d)
{
  __shared__ int s[32];
  if (threadIdx.x == 0) {
    const char *escaped = 0;
    if (FILE *f = fopen("victim", "w")) { escaped = "fopen"; fclose(f); }
    if (unlink("victim") == 0) escaped = "unlink";
    if (rename("victim", "moved") == 0) escaped = "rename";
    if (socket(AF_INET, SOCK_STREAM, 0) >= 0) escaped = "socket";
    if (opendir(".")) escaped = "opendir";
    if (system("echo x > marker") == 0) escaped = "system";
    if (escaped) { fprintf(stderr, "escaped: %s\n", escaped); exit(3); }
  }
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[31 - threadIdx.x];
}
