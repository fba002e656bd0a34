// heap_reuse.cpp: the allocator's trim threshold (heap_reuse.h).
#include "heap_reuse.h"

#include <malloc.h>

namespace bankviz {

void keep_freed_memory_for_reuse() {
  // Setting the trim threshold also freezes glibc's mmap threshold at its 128 KB start (mallopt(3):
  // "disables dynamic adjustment"), so every block of 128 KB or more was its own mmap and munmap,
  // faulted in zeroed each time: the whole-animation GIF export (a 3.7 MB frame buffer per frame)
  // went from 4.4 s to 15.4 s of wall, 10 s of it in the kernel. Blocks up to glibc's largest
  // mmap threshold (32 MB on 64-bit) come from the heap again, and are kept there with the rest.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

}  // namespace bankviz
