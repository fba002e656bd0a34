// The bounded caches' policy (kernels/src/lru_cache.h) without a GPU: the least recently used
// entries go first, within a count and a byte budget, and every evicted value is handed back so
// that its module can be unloaded. With the CUDA toolkit (NVRTC, no GPU needed), the runner's
// cubin cache is held to its bound.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "helpers.h"
#include "lru_cache.h"
#if BANKVIZ_HAVE_CUDA
#include "bankviz/codegen.h"
#include "compiler.h"
#endif

using bankviz::detail::LruCache;

namespace {

// A move-only handle that counts how many are alive, as a loaded module would.
struct Handle {
  static inline int alive = 0;
  int id = 0;
  bool owns = false;
  explicit Handle(int i) : id(i), owns(true) { ++alive; }
  Handle(Handle&& o) noexcept : id(o.id), owns(o.owns) { o.owns = false; }
  Handle& operator=(Handle&& o) noexcept {
    if (owns) --alive;
    id = o.id;
    owns = o.owns;
    o.owns = false;
    return *this;
  }
  Handle(const Handle&) = delete;
  ~Handle() {
    if (owns) --alive;
  }
};

std::vector<int> ids(const std::vector<Handle>& v) {
  std::vector<int> out;
  for (const Handle& h : v) out.push_back(h.id);
  return out;
}

}  // namespace

TEST(LruCache, BeyondTheCountTheLeastRecentlyUsedAreEvictedOldestFirst) {
  LruCache<std::string, Handle> c(3, 1 << 20);
  for (int i = 0; i < 5; ++i) c.insert(std::string(1, 'k') + std::to_string(i), Handle(i), 10);
  EXPECT_EQ(c.size(), 5u);  // insert alone never evicts: the caller decides when
  EXPECT_EQ(ids(c.trim()), (std::vector<int>{0, 1}));
  EXPECT_EQ(c.size(), 3u);
  EXPECT_FALSE(c.find("k0"));
  EXPECT_FALSE(c.find("k1"));
  ASSERT_TRUE(c.find("k4"));
  EXPECT_EQ(c.find("k4")->id, 4);
}

TEST(LruCache, FindMakesAnEntryTheMostRecent) {
  LruCache<std::string, Handle> c(2, 1 << 20);
  c.insert("a", Handle(1), 1);
  c.insert("b", Handle(2), 1);
  ASSERT_TRUE(c.find("a"));  // a is now newer than b
  c.insert("c", Handle(3), 1);
  EXPECT_EQ(ids(c.trim()), (std::vector<int>{2}));
  EXPECT_TRUE(c.contains("a"));
  EXPECT_TRUE(c.contains("c"));
}

TEST(LruCache, ByteBudgetEvictsUntilTheRestFits) {
  LruCache<std::string, Handle> c(100, 1000);
  c.insert("a", Handle(1), 400);
  c.insert("b", Handle(2), 400);
  c.insert("c", Handle(3), 400);
  EXPECT_EQ(c.bytes(), 1200u);
  EXPECT_EQ(ids(c.trim()), (std::vector<int>{1}));
  EXPECT_EQ(c.bytes(), 800u);
  // One entry larger than the whole budget does not stay either.
  c.insert("huge", Handle(4), 5000);
  EXPECT_EQ(ids(c.trim()), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.bytes(), 0u);
}

TEST(LruCache, EveryValueIsHandedBackExactlyOnce) {
  Handle::alive = 0;
  {
    LruCache<int, Handle> c(2, 1 << 20);
    for (int i = 0; i < 6; ++i) c.insert(i, Handle(i), 1);
    EXPECT_EQ(Handle::alive, 6);
    std::vector<Handle> evicted = c.trim();
    EXPECT_EQ(evicted.size(), 4u);
    EXPECT_EQ(Handle::alive, 6);  // handed back, not dropped: the caller releases them
    evicted.clear();
    EXPECT_EQ(Handle::alive, 2);
    EXPECT_EQ(ids(c.take_all()), (std::vector<int>{4, 5}));
    EXPECT_EQ(c.size(), 0u);
    EXPECT_EQ(Handle::alive, 0);
  }
  EXPECT_EQ(Handle::alive, 0);
}

TEST(LruCache, SharedValuesStayValidForTheirHoldersAfterEviction) {
  // The cubin cache hands out shared pointers: an evicted cubin lives on where it is in use.
  LruCache<std::string, std::shared_ptr<const std::string>> c(1, 1 << 20);
  c.insert("a", std::make_shared<const std::string>("cubin a"), 7);
  const std::shared_ptr<const std::string> held = *c.find("a");
  c.insert("b", std::make_shared<const std::string>("cubin b"), 7);
  c.trim();
  EXPECT_FALSE(c.contains("a"));
  EXPECT_EQ(*held, "cubin a");
}

#if BANKVIZ_HAVE_CUDA
// NVRTC without a GPU: the process-wide cubin cache keeps only its most recent entries.
TEST(CubinCache, KeepsOnlyTheMostRecentCubinsWithinItsBound) {
  using namespace bankviz;
  using namespace bankviz::detail;
  std::vector<KernelSource> kernels;
  for (int pad = 5; pad <= 7; ++pad) {  // paddings no other test compiles
    Scenario s = test::preset("row-write-column-read-padded");
    s.tiles[0].pad = pad;
    GenerateResult g = generate_kernel(s, RunMode::Written);
    ASSERT_TRUE(g.kernel);
    kernels.push_back(*g.kernel);
  }
  set_cubin_cache_bounds(2, kCubinCacheBytes);
  for (const KernelSource& k : kernels) ASSERT_TRUE(compile(k, "sm_90").compiled);
  EXPECT_LE(cubin_cache_size(), 2u);
  EXPECT_TRUE(compile(kernels[2], "sm_90").cache_hit);
  EXPECT_TRUE(compile(kernels[1], "sm_90").cache_hit);
  const CompileOutcome again = compile(kernels[0], "sm_90");  // evicted: compiled anew
  EXPECT_FALSE(again.cache_hit);
  EXPECT_TRUE(again.compiled);
  EXPECT_FALSE(compile(kernels[2], "sm_90").cache_hit);  // the least recent when 0 came back
  set_cubin_cache_bounds(kCubinCacheEntries, kCubinCacheBytes);
}
#endif
