// heap_reuse.h: how both programs' allocator keeps freed memory (app/shared, called first by
// bankviz-cli and the app).
#pragma once

namespace bankviz {

// The model's large analyses (a sweep's points, a lesson's scenes, advise's candidates) each
// allocate and free tens of MB, one after another. glibc hands the freed top of the heap back
// to the kernel every time and the next analysis faults it in again: a third of a 257-point
// sweep's CPU time (BENCHMARKS.md, "Legal but slow"). Up to 64 MB of freed memory is kept for
// reuse instead (mallopt M_TRIM_THRESHOLD), and blocks up to 32 MB come from the heap, not each
// from its own mmap (M_MMAP_THRESHOLD: setting the first freezes the second at 128 KB); the rest
// still goes back.
void keep_freed_memory_for_reuse();

}  // namespace bankviz
