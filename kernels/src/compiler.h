// compiler.h (internal, CUDA builds only): NVRTC, and the two bounded caches between a kernel's
// source and a function the driver can launch.
//
//   (sm, source) -> cubin     compile(): NVRTC, cached for the whole process (compiled code
//                             outlives contexts: a sticky error resets the context, not the
//                             compiler's work); at most kCubinCacheEntries / kCubinCacheBytes
//   (sm, source) -> CUmodule  ModuleCache: loaded into one context; at most kModuleCacheEntries /
//                             kModuleCacheBytes between runs, least recently used unloaded first
//
// Both forget the least recently used entries first (lru_cache.h). compile() hands out shared
// pointers, so an evicted cubin stays valid for whoever still holds it; the module cache is
// trimmed only after a run, so a run never loses a module it is launching.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "bankviz/codegen.h"
#include "driver.h"
#include "lru_cache.h"

namespace bankviz::detail {

// The bounds. Exposed mode with replicas loads up to a handful of modules per scenario (one per
// replica count, codegen.h), a cubin of the generated kernels is 5-50 KB: the bounds keep the
// last few dozen scenarios, far more than an interactive session revisits.
inline constexpr size_t kCubinCacheEntries = 256;
inline constexpr size_t kCubinCacheBytes = size_t{64} << 20;
inline constexpr size_t kModuleCacheEntries = 64;
inline constexpr size_t kModuleCacheBytes = size_t{32} << 20;

// The key of both caches.
std::string cache_key(const std::string& sm, const KernelSource& k);

struct Compiled {
  std::vector<char> cubin;
  std::string lowered;  // the kernel's mangled name
  std::string log;
};

struct CompileOutcome {
  std::shared_ptr<const Compiled> compiled;  // nullptr on error
  bool cache_hit = false;
  double ms = 0;      // NVRTC's time (0 when cached)
  std::string error;  // "NVRTC: ..." with the generated line quoted
  std::string log;
};

// Thread-safe.
CompileOutcome compile(const KernelSource& k, const std::string& sm);

// The cubin cache's bounds (kCubinCache*; tests lower them), applied at once, and its size.
void set_cubin_cache_bounds(size_t max_entries, size_t max_bytes);
size_t cubin_cache_size();

// The modules loaded into one context. Not thread-safe (one per Runner).
class ModuleCache {
 public:
  ModuleCache() = default;
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // The module of `c` (compiled for `key`): cached (hit = true) or loaded now.
  [[nodiscard]] CUresult get(const std::string& key, const Compiled& c, CUmodule* out, bool* hit);
  // Unloads the least recently used modules beyond the bounds; failures go to st.
  void trim(DriverStatus& st);
  // Unloads every module (the context is being released); failures go to st.
  void unload_all(DriverStatus& st);
  // Forgets every module without a call: the context is being reset, which unloads them.
  void forget_all();
  size_t size() const { return lru_.size(); }

 private:
  LruCache<std::string, Module> lru_{kModuleCacheEntries, kModuleCacheBytes};
};

}  // namespace bankviz::detail
