// .incbin through a macro-built token (no `asm` for the name check to see): the assembler would
// embed secret.txt of the working directory and the recording carry its bytes out as the values
// stored into shared memory. The host compiler runs contained (docs/RECORD.md): it cannot read it.
#define GLUE(a, b) a##b
GLUE(__as, m__)(".section .rodata\n.globl bv_bytes\nbv_bytes: .incbin \"secret.txt\"\n.byte 0\n.text");
extern "C" const char bv_bytes[];
__global__ void k(int *d)
{
  __shared__ int s[32];
  s[threadIdx.x] = bv_bytes[threadIdx.x % 8];
  d[threadIdx.x] = s[threadIdx.x];
}
