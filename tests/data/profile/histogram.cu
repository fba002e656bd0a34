// The histogram lesson's shared-memory histogram (lesson-shared-memory-histogram), as written.
// With bankviz's zeroed input every item is 0: every lane adds to one shared word.
// bankviz-cli profile histogram.cu --kernel histogram --grid 64 --block 256 \
//   --arg buffer:64K --arg buffer:1K
extern "C"
__global__ void histogram(const int * input, int * output)
{
    int item = (blockIdx.x * blockDim.x) + threadIdx.x;
    __shared__ int temp_histogram[256];
 
    // Initialize shared memory and synchronize
    temp_histogram[threadIdx.x] = 0;
    __syncthreads();

    // Compute shared memory histogram and synchronize
    atomicAdd(&(temp_histogram[input[item]]), 1);
    __syncthreads();

    // Update global histogram
    atomicAdd(&(output[threadIdx.x]), temp_histogram[threadIdx.x]);
}
