// lru_cache.h (internal): a bounded key -> value cache that forgets the least recently used
// entries first. The policy only: no CUDA, no locking. The caller owns what an entry stands for
// (a cubin in host memory, a module loaded into a context) and gets every evicted value back, so
// it can release it and check that release (compiler.h's caches unload modules that way).
//
//   find(key)          -> the value, now the most recent entry; nullptr when absent
//   insert(key, v, n)  -> adds v as the most recent entry, counted as n bytes
//   trim()             -> the values evicted, oldest first, until at most max_entries entries and
//                         max_bytes bytes are left (an entry larger than max_bytes goes too)
//   take_all()         -> every value, oldest first; the cache is then empty
//
// insert() never evicts by itself: the caller chooses when the bound applies (the runner trims
// after each run, so a run never loses a module it is still using).
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bankviz::detail {

template <class Key, class Value>
class LruCache {
 public:
  LruCache(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  Value* find(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    entries_.splice(entries_.begin(), entries_, it->second);  // now the most recent
    return &it->second->value;
  }

  bool contains(const Key& key) const { return index_.count(key) != 0; }

  // The key must not be present (find() first).
  Value& insert(Key key, Value value, size_t bytes) {
    entries_.push_front(Entry{key, std::move(value), bytes});
    index_.emplace(std::move(key), entries_.begin());
    bytes_ += bytes;
    return entries_.front().value;
  }

  std::vector<Value> trim() {
    std::vector<Value> evicted;
    while (!entries_.empty() && (entries_.size() > max_entries_ || bytes_ > max_bytes_))
      evicted.push_back(pop_oldest());
    return evicted;
  }

  std::vector<Value> take_all() {
    std::vector<Value> all;
    while (!entries_.empty()) all.push_back(pop_oldest());
    return all;
  }

  // New bounds; they apply at the next trim().
  void set_bounds(size_t max_entries, size_t max_bytes) {
    max_entries_ = max_entries;
    max_bytes_ = max_bytes;
  }

  size_t size() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }
  size_t max_entries() const { return max_entries_; }
  size_t max_bytes() const { return max_bytes_; }

 private:
  struct Entry {
    Key key;
    Value value;
    size_t bytes = 0;
  };

  Value pop_oldest() {
    Entry& e = entries_.back();
    Value v = std::move(e.value);
    bytes_ -= e.bytes;
    index_.erase(e.key);
    entries_.pop_back();
    return v;
  }

  size_t max_entries_, max_bytes_;
  size_t bytes_ = 0;
  std::list<Entry> entries_;  // most recent first
  std::unordered_map<Key, typename std::list<Entry>::iterator> index_;
};

}  // namespace bankviz::detail
