// The dot-product lecture's kernel (lecture-shared-memory-dot-product, S&K Ch5), as written.
// bankviz-cli profile dot.cu --kernel dot --grid 32 --block 256 --arg buffer:132K --arg buffer:132K --arg buffer:1K
#define N (33 * 1024)
#define threadsPerBlock 256
__global__ void dot( float *a, float *b, float *c ) {
// buffer of shared memory - store sum
__shared__ float cache[threadsPerBlock];
int tid = threadIdx.x + blockIdx.x * blockDim.x;
int cacheIndex = threadIdx.x;

// each thread computes running sum of product
float temp = 0;
while (tid < N) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
}
// set the cache values in the shared buffer
cache[cacheIndex] = temp;

// synchronize threads in this BLOCK
__syncthreads();

// for reductions, threadsPerBlock must be a power of 2
// because of the following code
int i = blockDim.x/2;
while (i != 0) {
    if (cacheIndex < i)
        cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
}

if (cacheIndex == 0)
    c[blockIdx.x] = cache[0];
}
