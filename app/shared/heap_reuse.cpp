// heap_reuse.cpp: the allocator's trim threshold (heap_reuse.h).
#include "heap_reuse.h"

#include <malloc.h>

namespace bankviz {

void keep_freed_memory_for_reuse() {
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

}  // namespace bankviz
