// bankviz_record.h: a small CUDA emulation for recording one block of a user's kernel on the CPU
// (docs/RECORD.md). Compiled by the host C++ compiler together with the user's kernel, in a
// process of its own (kernels/record.h runs it with time and memory limits).
//
// - Every `__shared__` declaration of the kernel is rewritten (core's recording.h, nothing else of
//   the text changes) into a bv::Shared<T[...]> proxy: indexing it checks the bounds, and reading,
//   writing or an atomic on an element prints one record: thread, source line, kind, width, byte
//   address and value. The line is the subscript's (std::source_location).
// - The block's threads are fibers (ucontext) that meet at __syncthreads(). Warps run one after
//   another in CUDA's thread order (x fastest); the lanes of a warp take turns after every shared
//   access, so a warp's lanes all load before any of them stores, as a warp instruction does.
// - Kernel parameters: pointers get zeroed buffers, integers the values given.
// - Warp intrinsics (shuffles, votes, match, reduce, __syncwarp) as CUDA defines them: the lanes
//   of the mask meet (bv::collective()); stand-ins for CUDA's headers (cuda_runtime.h, cuda_fp16.h,
//   cuda_bf16.h, cooperative_groups.h: record_standin_headers()) are written beside the kernel.
// What this header does not provide (inline asm, textures, grid-wide groups) fails to compile;
// core's recording.h refuses those kernels first with a message naming them.
#pragma once

#include <sys/mman.h>
#include <ucontext.h>

#include <csignal>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <source_location>
#include <type_traits>
#include <vector>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

// CUDA's vector types, with CUDA's alignment (float2: 8 bytes, float4: 16).
#define BV_VEC(T, N)                            \
  struct alignas(sizeof(T) * 2) N##2 {          \
    T x, y;                                     \
  };                                            \
  struct N##3 {                                 \
    T x = 0, y = 0, z = 0;                      \
  };                                            \
  struct alignas(sizeof(T) * 4) N##4 {          \
    T x, y, z, w;                               \
  };                                            \
  inline N##2 make_##N##2(T x, T y) {           \
    return {x, y};                              \
  }                                             \
  inline N##3 make_##N##3(T x, T y, T z) {      \
    return {x, y, z};                           \
  }                                             \
  inline N##4 make_##N##4(T x, T y, T z, T w) { \
    return {x, y, z, w};                        \
  }
BV_VEC(float, float)
BV_VEC(int, int)
BV_VEC(unsigned, uint)
BV_VEC(short, short)
BV_VEC(unsigned short, ushort)
BV_VEC(char, char)
BV_VEC(unsigned char, uchar)
#undef BV_VEC
struct alignas(16) double2 {
  double x, y;
};
inline double2 make_double2(double x, double y) {
  return {x, y};
}
struct alignas(16) longlong2 {
  long long x, y;
};

namespace bv {

enum State { kRun, kBarrier, kDone };
struct Thread {
  uint3 idx;
  unsigned tid = 0;
  State state = kRun;
  ucontext_t ctx{};
  char* stack = nullptr;  // kStack bytes above kGuard bytes that no access may touch
  void* jump[5] = {};     // where it yielded (__builtin_setjmp: no system call per switch)
  bool started = false;
  unsigned barrier_line = 0;  // the line of the __syncthreads() it waits at
};
inline constexpr size_t kStack = 128 * 1024, kGuard = 64 * 1024;

inline std::vector<Thread> threads;
inline Thread* cur = nullptr;
inline ucontext_t scheduler{};
inline dim3 block_dim, grid_dim;
inline uint3 block_idx;
inline unsigned long long records = 0, max_records = 0;
inline size_t dynamic_bytes = 0;
inline void (*kernel_call)() = nullptr;

// Shared memory: the static arrays in the order their declarations first run, then the dynamic
// (extern) arrays, which all start at the same place.
alignas(16) inline unsigned char arena[256 * 1024];
inline size_t static_end = 0;
inline long long dynamic_base = -1;
inline int arrays_listed = 0;

[[noreturn]] inline void fail(const char* what) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", what);
  std::fflush(stderr);
  std::_Exit(3);  // not exit(): the fibers' stacks, one of them in use, must not be destroyed
}

// Switching fibers: ucontext starts each one (swapcontext, which also saves the signal mask: a
// system call), then __builtin_setjmp/__builtin_longjmp switch between a fiber and the scheduler
// without one: 1024 threads meeting at 5000 barriers switch 10 million times in a fraction of a
// second instead of spending the time limit in rt_sigprocmask.
inline void* scheduler_jump[5];
[[gnu::noinline]] inline void jump_to(void** where) {
  __builtin_longjmp(where, 1);
}
inline void yield() {
  if (__builtin_setjmp(cur->jump) == 0) jump_to(scheduler_jump);
}

inline void emit(unsigned line, char kind, size_t width, size_t addr, const void* value, int array,
                 unsigned site) {
  if (++records > max_records) {
    char m[160];
    std::snprintf(m, sizeof m, "the block makes more than %llu shared-memory accesses",
                  max_records);
    fail(m);
  }
  unsigned long long bits = 0;
  std::memcpy(&bits, value, std::min<size_t>(width, sizeof bits));
  if (array >= 0)
    std::printf("%u %u %c %zu %zu %llu %d %u\n", cur->tid, line, kind, width, addr, bits, array,
                site);
  else  // through a raw pointer into shared memory: the array is the one holding the byte
    std::printf("%u %u %c %zu %zu %llu\n", cur->tid, line, kind, width, addr, bits);
}

// What an access through a pointer names as its array: an `array` line's index, or one of these.
constexpr int kUnsaid = -1;  // shared memory, its array not said (a raw pointer into it)
constexpr int kPlain = -2;   // not shared memory: nothing recorded

inline bool in_arena(const void* p) {
  const auto* c = static_cast<const unsigned char*>(p);
  return c >= arena && c < arena + sizeof arena;
}

template <class T>
class Ptr;

// One element of a shared array: reading it, writing it or an atomic on it is recorded.
template <class T>
class Ref {
 public:
  using V = std::remove_cv_t<T>;
  Ref(T* p, size_t addr, unsigned line, int array, unsigned site = 0,
      unsigned char* region = nullptr, size_t region_bytes = 0, const char* name = "")
      : p_(p),
        addr_(addr),
        line_(line),
        array_(array),
        site_(site),
        rb_(region),
        rbytes_(region_bytes),
        name_(name) {}
  V load() const {
    V v;
    std::memcpy(static_cast<void*>(&v), const_cast<const V*>(p_), sizeof(T));
    if (array_ == kPlain) return v;
    emit_object(line_, 'L', &v);
    yield();
    return v;
  }
  void store(const V& v) const {
    if (array_ != kPlain) emit_object(line_, 'S', &v);
    std::memcpy(static_cast<void*>(const_cast<V*>(p_)), &v, sizeof(T));
    if (array_ != kPlain) yield();
  }
  // A member of the element (`p[t].x`, which recording_source() writes
  // `p[t].bv_member(&decltype(p[t])::element_type::x)`): an element of its own, on this line.
  using element_type = T;
  template <class M, class C>
  Ref<M> bv_member(M C::*member) const {
    M* m = &(const_cast<V*>(p_)->*member);
    return Ref<M>(m,
                  addr_ + static_cast<size_t>(reinterpret_cast<const char*>(m) -
                                              reinterpret_cast<const char*>(p_)),
                  line_, array_, site_, rb_, rbytes_, name_);
  }
  operator V() const { return load(); }
  const Ref& operator=(const V& v) const {
    store(v);
    return *this;
  }
  const Ref& operator=(const Ref& o) const {
    store(o.load());
    return *this;
  }
  template <class U>
  const Ref& operator=(const Ref<U>& o) const {
    store(static_cast<V>(o.load()));
    return *this;
  }
#define BV_COMPOUND(op)                         \
  template <class U>                            \
  const Ref& operator op##=(const U& u) const { \
    V x = load();                               \
    x op## = u;                                 \
    store(x);                                   \
    return *this;                               \
  }
  BV_COMPOUND(+)
  BV_COMPOUND(-)
  BV_COMPOUND(*)
  BV_COMPOUND(/)
  BV_COMPOUND(%)
  BV_COMPOUND(&)
  BV_COMPOUND(|)
  BV_COMPOUND(^)
  BV_COMPOUND(<<)
  BV_COMPOUND(>>)
#undef BV_COMPOUND
  V operator++() const {
    V x = load();
    ++x;
    store(x);
    return x;
  }
  V operator--() const {
    V x = load();
    --x;
    store(x);
    return x;
  }
  V operator++(int) const {
    V x = load();
    V y = x;
    ++y;
    store(y);
    return x;
  }
  V operator--(int) const {
    V x = load();
    V y = x;
    --y;
    store(y);
    return x;
  }
  Ptr<T> operator&() const;

 private:
  template <class U>
  friend class Ref;
  // An element whose size is not an access width (a 12-byte struct) is accessed as the compiler
  // does, in pieces of its alignment (3 of 4 bytes); any other in one access.
  void emit_object(unsigned line, char kind, const V* v) const {
    constexpr size_t w = sizeof(T), a = alignof(T) < 16 ? alignof(T) : 16;
    if (w == 1 || w == 2 || w == 4 || w == 8 || w == 16) {
      // A wider element through a cast pointer (`*(float4*)&s[i]`) must lie on a multiple of
      // its alignment, as CUDA requires of every shared-memory access: the GPU faults otherwise
      // ("misaligned address"), so the recording stops there too.
      if (addr_ % (a < w ? a : w) != 0) {
        char m[256];
        std::snprintf(m, sizeof m,
                      "line %u: thread %u accesses %zu bytes at byte %zu of shared memory, not a "
                      "multiple of %zu: a misaligned address, which faults on the GPU",
                      line, cur->tid, w, addr_, a < w ? a : w);
        fail(m);
      }
      emit(line, kind, w, addr_, v, array_, site_);
      return;
    }
    for (size_t b = 0; b + a <= w; b += a)
      emit(line, kind, a, addr_ + b, reinterpret_cast<const char*>(v) + b, array_, site_);
  }
  T* p_;
  size_t addr_;
  unsigned line_;
  // The index of its array's `array` line: the name the access used (or kUnsaid, kPlain).
  int array_;
  unsigned site_;      // the subscript it was made through (recording_source()'s number), 0: none
  unsigned char* rb_;  // the array it is an element of (a pointer to it may move within it)
  size_t rbytes_;
  const char* name_;
};

// A subscript: its value and the line it is written on.
struct Index {
  long long v;
  unsigned line;
  template <class I, std::enable_if_t<std::is_integral_v<I> || std::is_enum_v<I>, int> = 0>
  Index(I i, std::source_location l = std::source_location::current())
      : v(static_cast<long long>(i)), line(l.line()) {}
  // An index read from shared memory (a data-dependent index): the load is recorded first.
  template <class U>
  Index(const Ref<U>& r, std::source_location l = std::source_location::current())
      : v(static_cast<long long>(r.load())), line(l.line()) {}
  // A __shared__ scalar as the whole index (s[n]): its read is recorded on this subscript's line
  // (SharedScalar -> T -> Index would be two user conversions, which C++ does not chain).
  template <class S, std::enable_if_t<S::bv_scalar, int> = 0>
  Index(const S& s, std::source_location l = std::source_location::current())
      : v(static_cast<long long>(s.load(l.line()))), line(l.line()) {}
};

// A shared array or one of its rows: A is the array type (T[N][M], or T[] for an extern one).
template <class A>
class Sub {
 public:
  using E = std::remove_extent_t<A>;
  using Leaf = std::remove_all_extents_t<A>;
  Sub(unsigned char* base, size_t addr, long long count, const char* name, int array,
      unsigned site = 0, unsigned char* region = nullptr, size_t region_bytes = 0)
      : base_(base),
        addr_(addr),
        count_(count),
        name_(name),
        array_(array),
        site_(site),
        rb_(region ? region : base),
        rbytes_(region ? region_bytes : sizeof(E) * count) {}
  // The subscript written at this place of the source (recording_source() writes `a[i]` as
  // `a.bv_site(N)[i]`): its accesses say it.
  Sub bv_site(unsigned site) const {
    Sub s = *this;
    s.site_ = site;
    return s;
  }
  auto operator[](Index i) const {
    if (i.v < 0 || i.v >= count_) {
      char m[256];
      std::snprintf(m, sizeof m,
                    "line %u: thread %u indexes %s[%lld], out of bounds (%lld elements there)",
                    i.line, cur->tid, name_, i.v, count_);
      fail(m);
    }
    unsigned char* p = base_ + static_cast<size_t>(i.v) * sizeof(E);
    const size_t a = addr_ + static_cast<size_t>(i.v) * sizeof(E);
    if constexpr (std::is_array_v<E>)
      return Sub<E>(p, a, static_cast<long long>(std::extent_v<E>), name_, array_, site_, rb_,
                    rbytes_);
    else
      return Ref<E>(reinterpret_cast<E*>(p), a, i.line, array_, site_, rb_, rbytes_, name_);
  }
  // The array as a pointer (its name decays, `helper(s)`, `float* p = s;`): to its first
  // element; a row's (E an array) to its first leaf element. `s + n` the same moved.
  template <class U, std::enable_if_t<std::is_convertible_v<Leaf*, U*>, int> = 0>
  operator Ptr<U>() const {
    return bv_decay();
  }
  Ptr<Leaf> bv_decay() const;
  Ptr<Leaf> operator+(long long n) const;
  // `(float*)s`: a raw pointer, which a pointer proxy made from it finds in shared memory again
  // (its array not said).
  template <class U>
  explicit operator U*() const {
    return reinterpret_cast<U*>(base_);
  }

 protected:
  unsigned char* base_;
  size_t addr_;
  long long count_;
  const char* name_;
  int array_;
  unsigned site_;
  unsigned char* rb_;  // the whole array (a row's too): where a pointer into it may go
  size_t rbytes_;
};

// A pointer into shared memory, as what a pointer declared from a shared array becomes
// (recording_source() rewrites such declarations and the parameters of __device__ helpers a
// shared array is passed to, `::bv::Ptr<float> sdata`; nothing of the expressions): it carries
// the array (its `array` line's index, kUnsaid or kPlain), the region it may move in, and makes
// elements (Ref) as the array's subscript does, bounds checked against the region. A raw pointer
// becomes one too: into shared memory (kUnsaid: the array is the one holding the byte), else
// plain (nothing recorded).
template <class T>
class Ptr {
 public:
  using V = std::remove_cv_t<T>;
  T* p = nullptr;
  int array = kPlain;
  unsigned site = 0;
  unsigned char* rb = nullptr;
  size_t rbytes = 0;
  const char* name = "memory";
  bool recast = false;  // made by a cast to another element type (a carved array)

  Ptr() = default;
  Ptr(std::nullptr_t) {}
  Ptr(T* raw) : p(raw) {
    if (in_arena(raw)) {
      array = kUnsaid;
      rb = arena;
      rbytes = sizeof arena;
      name = "shared memory";
    }
  }
  template <class U, std::enable_if_t<std::is_convertible_v<U*, T*>, int> = 0>
  Ptr(const Ptr<U>& o)
      : p(o.p),
        array(o.array),
        site(o.site),
        rb(o.rb),
        rbytes(o.rbytes),
        name(o.name),
        recast(o.recast) {}
  template <class U>
  Ptr<U> bv_cast() const {
    Ptr<U> r;
    r.p = reinterpret_cast<U*>(const_cast<V*>(p));
    r.array = array;
    r.site = site;
    r.rb = rb;
    r.rbytes = rbytes;
    r.name = name;
    r.recast = recast || !std::is_same_v<std::remove_cv_t<U>, V>;
    return r;
  }
  Ptr bv_site(unsigned s) const {
    Ptr r = *this;
    r.site = s;
    return r;
  }
  size_t addr() const {
    return static_cast<size_t>(reinterpret_cast<const unsigned char*>(p) - arena);
  }
  Ref<T> operator[](Index i) const {
    const long long off = i.v * static_cast<long long>(sizeof(T));
    unsigned char* b = reinterpret_cast<unsigned char*>(const_cast<V*>(p)) + off;
    if (array == kPlain) return Ref<T>(reinterpret_cast<T*>(b), 0, i.line, kPlain, 0);
    if (b < rb || b + sizeof(T) > rb + rbytes) {
      char m[256];
      std::snprintf(m, sizeof m,
                    "line %u: thread %u indexes %s through a pointer at byte %lld of it, out of "
                    "bounds (%zu bytes there)",
                    i.line, cur->tid, name, static_cast<long long>(b - rb), rbytes);
      fail(m);
    }
    return Ref<T>(reinterpret_cast<T*>(b), static_cast<size_t>(b - arena), i.line, array, site, rb,
                  rbytes, name);
  }
  Ptr operator+(long long n) const {
    Ptr r = *this;
    r.p += n;
    return r;
  }
  Ptr operator-(long long n) const { return *this + -n; }
  long long operator-(const Ptr& o) const { return p - o.p; }
  Ptr& operator+=(long long n) { return *this = *this + n; }
  Ptr& operator-=(long long n) { return *this = *this + -n; }
  Ptr& operator++() { return *this += 1; }
  Ptr& operator--() { return *this -= 1; }
  Ptr operator++(int) {
    Ptr r = *this;
    *this += 1;
    return r;
  }
  Ptr operator--(int) {
    Ptr r = *this;
    *this -= 1;
    return r;
  }
  bool operator==(const Ptr& o) const { return p == o.p; }
  bool operator!=(const Ptr& o) const { return p != o.p; }
  bool operator<(const Ptr& o) const { return p < o.p; }
  bool operator>(const Ptr& o) const { return p > o.p; }
  bool operator<=(const Ptr& o) const { return p <= o.p; }
  bool operator>=(const Ptr& o) const { return p >= o.p; }
  explicit operator bool() const { return p != nullptr; }
  template <class U>
  explicit operator U*() const {
    return reinterpret_cast<U*>(const_cast<V*>(p));
  }
};

template <class T>
Ptr<T> Ref<T>::operator&() const {
  Ptr<T> r;
  r.p = p_;
  r.array = array_;
  r.site = site_;
  r.rb = rb_ ? rb_ : reinterpret_cast<unsigned char*>(const_cast<V*>(p_));
  r.rbytes = rb_ ? rbytes_ : sizeof(T);
  r.name = name_;
  return r;
}
template <class A>
Ptr<typename Sub<A>::Leaf> Sub<A>::bv_decay() const {
  Ptr<Leaf> r;
  r.p = reinterpret_cast<Leaf*>(base_);
  r.array = array_;
  r.site = site_;
  r.rb = rb_;
  r.rbytes = rbytes_;
  r.name = name_;
  return r;
}
template <class A>
Ptr<typename Sub<A>::Leaf> Sub<A>::operator+(long long n) const {
  return bv_decay() + n * static_cast<long long>(sizeof(E) / sizeof(Leaf));
}

// The operand of a pointer declaration's cast (`reinterpret_cast<float*>(smem + 512)`,
// `(int*)&a[n]`), which recording_source() writes `::bv::ptr_cast<float>(...)`: a pointer proxy of
// the new type.
template <class U, class T>
Ptr<U> ptr_cast(const Ptr<T>& p) {
  return p.template bv_cast<U>();
}
template <class U, class A>
Ptr<U> ptr_cast(const Sub<A>& s) {
  return s.bv_decay().template bv_cast<U>();
}
template <class U, class T>
Ptr<U> ptr_cast(T* raw) {
  return Ptr<T>(raw).template bv_cast<U>();
}

// A pointer declaration's value (`::bv::Ptr<float> a = ::bv::declared(INIT, "a", 64u)`): a
// pointer made by a cast to another element type into shared memory (an array carved from a
// buffer) is an array of its own, named by the declaration, over the region it points into;
// any other keeps its array.
inline std::vector<std::pair<std::pair<const char*, unsigned>, int>> carved;
template <class T>
Ptr<T> declared(Ptr<T> p, const char* name, unsigned line) {
  if (!p.recast || p.array == kPlain) return p;
  int index = -1;
  for (const auto& [key, i] : carved)
    if (key.first == name && key.second == line) index = i;
  if (index < 0) {
    const size_t base = static_cast<size_t>(p.rb - arena);
    const bool ext = dynamic_base >= 0 && base >= static_cast<size_t>(dynamic_base);
    std::printf("array %s %u %zu %zu%s\n", name, line, base, p.rbytes, ext ? " extern" : "");
    index = arrays_listed++;
    carved.push_back({{name, line}, index});
  }
  p.array = index;
  p.name = name;
  p.recast = false;
  return p;
}
template <class A>
auto declared(const Sub<A>& s, const char* name, unsigned line) {
  return declared(s.bv_decay(), name, line);
}
template <class T>
Ptr<T> declared(T* raw, const char*, unsigned) {
  return Ptr<T>(raw);
}

inline size_t align_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

template <class A>
struct Placed {
  unsigned char* base;
  size_t addr;
  long long count;
  int array;  // its `array` line's index
};

template <class A>
Placed<A> place(const char* name, unsigned line, size_t align) {
  using E = std::remove_extent_t<A>;
  using Leaf = std::remove_all_extents_t<A>;
  const size_t al = std::max({align, alignof(Leaf), size_t{1}});
  if constexpr (std::extent_v<A> == 0 && std::is_array_v<A>) {  // extern T name[]
    if (dynamic_base < 0) dynamic_base = static_cast<long long>(align_up(static_end, 16));
    const size_t base = align_up(static_cast<size_t>(dynamic_base), al);
    if (base + dynamic_bytes > sizeof arena)
      fail("the dynamic shared memory is larger than 256 KB");
    std::printf("array %s %u %zu %zu extern\n", name, line, base, dynamic_bytes);
    return {arena + base, base, static_cast<long long>(dynamic_bytes / sizeof(E)), arrays_listed++};
  } else {
    const size_t base = align_up(static_end, al);
    if (base + sizeof(A) > sizeof arena) fail("the __shared__ arrays are larger than 256 KB");
    static_end = base + sizeof(A);
    std::printf("array %s %u %zu %zu\n", name, line, base, sizeof(A));
    if constexpr (std::is_array_v<A>)
      return {arena + base, base, static_cast<long long>(std::extent_v<A>), arrays_listed++};
    else
      return {arena + base, base, 1, arrays_listed++};
  }
}

// What a `__shared__ T name[...]` declaration becomes.
template <class A, size_t Align = 0>
class Shared : public Sub<A> {
 public:
  Shared(const char* name, unsigned line) : Shared(place<A>(name, line, Align), name) {}

 private:
  Shared(Placed<A> p, const char* name)
      : Sub<A>(p.base, p.addr, p.count, name, p.array, 0, p.base,
               static_cast<size_t>(p.count) * sizeof(std::remove_extent_t<A>)) {}
};

// A scalar `__shared__ T name;`: an element whose line is the line of the statement storing it,
// and for a read the line of its declaration's first use is not known: reads are recorded on
// line 0 (the CLI names them "a scalar's read").
template <class T>
struct Src {
  T v;
  unsigned line;
  template <class U, std::enable_if_t<std::is_convertible_v<U, T>, int> = 0>
  Src(const U& u, std::source_location l = std::source_location::current())
      : v(static_cast<T>(u)), line(l.line()) {}
};
template <class T, size_t Align = 0>
class SharedScalar {
 public:
  SharedScalar(const char* name, unsigned line) {
    Placed<T> p = place<T>(name, line, Align);
    p_ = reinterpret_cast<T*>(p.base);
    addr_ = p.addr;
    array_ = p.array;
  }
  static constexpr bool bv_scalar = true;
  T load(unsigned line) const { return Ref<T>(p_, addr_, line, array_).load(); }
  operator T() const { return Ref<T>(p_, addr_, 0, array_).load(); }
  const SharedScalar& operator=(Src<T> s) const {
    Ref<T>(p_, addr_, s.line, array_).store(s.v);
    return *this;
  }
  Ptr<T> operator&() const { return &Ref<T>(p_, addr_, 0, array_); }
  // recording_source() writes every use of the scalar in the kernel `n()`: the scalar as an
  // element on the use's line, read, written or taken the address of like an array's.
  Ref<T> operator()(std::source_location l = std::source_location::current()) const {
    return Ref<T>(p_, addr_, l.line(), array_);
  }

 private:
  T* p_;
  size_t addr_;
  int array_;
};

// Atomics on shared memory (recorded; the value is the operand; atomicAdd is A, atomicCAS C, the
// others X) and on global memory (plain; a raw pointer into shared memory is recorded too). The
// line is the call's, where nvcc puts the instruction (the ATOMS of CUDA's inlined atomicCAS goes
// to the line calling it), also through a pointer made on another line (`float* slot = &s[i];`,
// then `atomicCAS(reinterpret_cast<int*>(slot), ...)`).
#define BV_ATOMIC(name, kind, expr)                                                          \
  template <class T, class U>                                                                \
  T name(Ptr<T> p, U u, std::source_location l = std::source_location::current()) {          \
    T old;                                                                                   \
    std::memcpy(static_cast<void*>(&old), p.p, sizeof(T));                                   \
    const T val = static_cast<T>(u);                                                         \
    if (p.array != kPlain) emit(l.line(), kind, sizeof(T), p.addr(), &val, p.array, p.site); \
    const T now = (expr);                                                                    \
    std::memcpy(static_cast<void*>(p.p), &now, sizeof(T));                                   \
    if (p.array != kPlain) yield();                                                          \
    return old;                                                                              \
  }                                                                                          \
  template <class T, class U>                                                                \
  T name(T* p, U u, std::source_location l = std::source_location::current()) {              \
    return name(Ptr<T>(p), u, l);                                                            \
  }
BV_ATOMIC(atomicAdd, 'A', old + val)
BV_ATOMIC(atomicSub, 'X', old - val)
BV_ATOMIC(atomicExch, 'X', val)
BV_ATOMIC(atomicMin, 'X', old < val ? old : val)
BV_ATOMIC(atomicMax, 'X', old > val ? old : val)
BV_ATOMIC(atomicAnd, 'X', old& val)
BV_ATOMIC(atomicOr, 'X', old | val)
BV_ATOMIC(atomicXor, 'X', old ^ val)
#undef BV_ATOMIC
template <class T, class U, class V>
T atomicCAS(Ptr<T> p, U compare, V value,
            std::source_location l = std::source_location::current()) {
  T old;
  std::memcpy(static_cast<void*>(&old), p.p, sizeof(T));
  const T val = static_cast<T>(value);
  if (p.array != kPlain) emit(l.line(), 'C', sizeof(T), p.addr(), &val, p.array, p.site);
  const T now = old == static_cast<T>(compare) ? val : old;
  std::memcpy(static_cast<void*>(p.p), &now, sizeof(T));
  if (p.array != kPlain) yield();
  return old;
}
template <class T, class U, class V>
T atomicCAS(T* p, U compare, V value, std::source_location l = std::source_location::current()) {
  return atomicCAS(Ptr<T>(p), compare, value, l);
}

inline void syncthreads(unsigned line = std::source_location::current().line()) {
  cur->state = kBarrier;
  cur->barrier_line = line;
  yield();
}

// Warp collectives with CUDA's semantics (shuffles, votes, match, reduce, __syncwarp): every
// lane of `mask` posts its operand and waits; the last to arrive computes each lane's result,
// which each lane then takes. A lane of the mask that has returned or waits at __syncthreads()
// never arrives: that is a hang on the GPU, here an error naming the line.
enum Collective { kShfl, kBallot, kAny, kAll, kMatch, kAdd, kMin, kMax, kAnd, kOr, kXor, kSync };
struct WarpLanes {
  bool waiting[32] = {};
  bool done[32] = {};
  unsigned long long value[32] = {};
  int src[32] = {};
  unsigned long long result[32] = {};
};
inline std::vector<WarpLanes> warp_lanes;

inline unsigned long long collective(Collective op, unsigned mask, unsigned long long v, int src,
                                     unsigned line) {
  const unsigned w = cur->tid / 32, me = cur->tid % 32;
  const unsigned n = static_cast<unsigned>(threads.size());
  const unsigned first = w * 32, lanes = std::min(32u, n - first);
  if (lanes < 32) mask &= (1u << lanes) - 1u;
  mask |= 1u << me;
  WarpLanes& L = warp_lanes[w];  // one per warp, made before the block runs (run_block): the
                                 // warps interleave, so none may move while a lane waits here
  L.value[me] = v;
  L.src[me] = src;
  L.waiting[me] = true;
  for (;;) {
    if (L.done[me]) {
      L.done[me] = false;
      return L.result[me];
    }
    bool all = true;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1u) || L.waiting[l]) continue;
      all = false;
      if (threads[first + l].state != kRun) {
        char m[200];
        std::snprintf(m, sizeof m,
                      "line %u: a warp collective (shuffle, vote, __syncwarp) waits for lane %u, "
                      "which has returned or waits at __syncthreads(): the kernel hangs on the GPU",
                      line, l);
        fail(m);
      }
    }
    if (all) {
      unsigned long long ballot = 0, sum = 0, mn = ~0ull, mx = 0, band = ~0ull, bor = 0, bxor = 0;
      for (unsigned l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) {
          const unsigned long long x = L.value[l];
          if (x) ballot |= 1ull << l;
          sum += x, mn = std::min(mn, x), mx = std::max(mx, x), band &= x, bor |= x, bxor ^= x;
        }
      for (unsigned l = 0; l < 32; ++l) {
        if (!((mask >> l) & 1u)) continue;
        unsigned long long r = 0;
        switch (op) {
          case kShfl: {
            const int s = L.src[l];
            r = s >= 0 && s < 32 && ((mask >> s) & 1u) ? L.value[s] : L.value[l];
            break;
          }
          case kBallot:
            r = ballot;
            break;
          case kAny:
            r = ballot != 0;
            break;
          case kAll:
            r = ballot == mask;
            break;
          case kMatch:
            for (unsigned o = 0; o < 32; ++o)
              if (((mask >> o) & 1u) && L.value[o] == L.value[l]) r |= 1ull << o;
            break;
          case kAdd:
            r = sum;
            break;
          case kMin:
            r = mn;
            break;
          case kMax:
            r = mx;
            break;
          case kAnd:
            r = band;
            break;
          case kOr:
            r = bor;
            break;
          case kXor:
            r = bxor;
            break;
          case kSync:
            break;
        }
        L.result[l] = r;
        L.waiting[l] = false;
        L.done[l] = true;
      }
      continue;
    }
    yield();
  }
}

template <class T>
unsigned long long bits_of(T v) {
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return b;
}
template <class T>
T of_bits(unsigned long long b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, sizeof(T) < 8 ? sizeof(T) : 8);
  return v;
}
// The source lane of a shuffle within segments of `width` lanes, as CUDA computes it.
inline int shfl_src(int kind, int arg, int width) {
  const int me = static_cast<int>(cur->tid % 32);
  if (width <= 0 || width > 32) width = 32;
  const int base = me & ~(width - 1), in = me - base;
  switch (kind) {
    case 0:
      return base + (arg & (width - 1));  // __shfl_sync
    case 1:
      return in - arg >= 0 ? me - arg : me;  // up
    case 2:
      return in + arg < width ? me + arg : me;  // down
    default:
      return (in ^ arg) < width ? base + (in ^ arg) : me;  // xor
  }
}
template <class T>
T shfl(int kind, unsigned mask, T v, int arg, int width, unsigned line) {
  static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
  return of_bits<T>(collective(kShfl, mask, bits_of(v), shfl_src(kind, arg, width), line));
}

inline void entry() {
  kernel_call();
  cur->state = kDone;
  yield();
}

// Why the process ends, said on stderr before it does, for the message bankviz-cli gives
// (kernels/src/record.cpp reads the line starting "bankviz-record: "). Async-signal-safe: write().
extern "C" ::ssize_t write(int, const void*, size_t) noexcept;  // unistd.h's, without its names
inline void say(const char* a, unsigned long long n = ~0ull, const char* b = "") {
  char m[320];
  size_t at = 0;
  auto put = [&](const char* t) {
    for (; *t && at + 1 < sizeof m; ++t) m[at++] = *t;
  };
  put("bankviz-record: ");
  put(a);
  if (n != ~0ull) {
    char d[24];
    int k = 0;
    do d[k++] = static_cast<char>('0' + n % 10);
    while ((n /= 10) && k < 23);
    while (k > 0 && at + 1 < sizeof m) m[at++] = d[--k];
  }
  put(b);
  m[at++] = '\n';
  if (bv::write(2, m, at) < 0) return;
}
inline bool finished = false;
inline char alt_stack[64 * 1024];
// A fault in a fiber's guard: the stack overflowed. Said, then the default action (the fault
// again).
inline void on_fault(int sig, siginfo_t* info, void*) {
  const char* addr = static_cast<const char*>(info->si_addr);
  for (const Thread& th : threads)
    if (th.stack && addr >= th.stack - kGuard && addr < th.stack)
      say("thread ", th.tid,
          " overflowed its 128 KB stack (a local array too large, or a recursion too deep)");
  ::signal(sig, SIG_DFL);
}
// A system call of another ABI (int 0x80, x32): the filter traps it (SIGSYS), this says which.
inline void on_refused_call(int, siginfo_t* info, void*) {
  say("the kernel made system call ", static_cast<unsigned>(info->si_syscall),
      info->si_arch == 0x40000003u ? " of the i386 ABI (int 0x80), which the recording refuses"
                                   : " of another ABI (x32?), which the recording refuses");
  std::_Exit(5);
}
// exit() (or a return from main) inside the kernel: the block did not finish.
inline void on_exit() {
  if (!finished) say("exit() was called inside the kernel, by thread ", cur ? cur->tid : 0, "");
}
inline void watch_the_end() {
  stack_t alt{};
  alt.ss_sp = alt_stack;
  alt.ss_size = sizeof alt_stack;
  ::sigaltstack(&alt, nullptr);
  struct sigaction a {};
  a.sa_flags = SA_SIGINFO | SA_ONSTACK;
  a.sa_sigaction = on_fault;
  ::sigaction(SIGSEGV, &a, nullptr);
  ::sigaction(SIGBUS, &a, nullptr);
  a.sa_sigaction = on_refused_call;
  ::sigaction(SIGSYS, &a, nullptr);
  std::atexit(on_exit);
}

// A barrier the whole block does not reach (threads that returned, or threads waiting at another
// __syncthreads()) is undefined in CUDA: it may hang, or let the waiting threads run on (what the
// recording does). Said once a line on stderr ("bankviz-record-note: ", which bankviz-cli shows
// beside the recording), at most 8 times.
inline unsigned notes = 0;
inline void note_divergent_barrier(unsigned waiting) {
  const unsigned n = static_cast<unsigned>(threads.size());
  unsigned line = 0, other = 0;
  for (const Thread& th : threads) {
    if (th.state != kBarrier) continue;
    if (line == 0) line = th.barrier_line;
    if (th.barrier_line != line) other = th.barrier_line;
  }
  static unsigned said[8];
  if (waiting == n && other == 0) return;
  for (unsigned i = 0; i < notes; ++i)
    if (said[i] == line) return;
  if (notes == 8) return;
  said[notes++] = line;
  if (other != 0)
    std::fprintf(stderr,
                 "bankviz-record-note: line %u: threads wait at __syncthreads() on line %u and on "
                 "line %u at once: different barriers, undefined in CUDA (it may hang)\n",
                 line, line, other);
  else
    std::fprintf(stderr,
                 "bankviz-record-note: line %u: __syncthreads() reached by %u of the block's %u "
                 "threads, the others had returned: a barrier the whole block does not reach is "
                 "undefined in CUDA (it may hang)\n",
                 line, waiting, n);
}

// Runs the block: every thread in turn (warp 0's lanes in order, then warp 1's, ...), each up to
// its next shared access, atomic, collective or barrier, until every thread waits at the barrier
// or has returned; then the barrier opens ("sync") and the next phase runs. The warps go side by
// side, as the GPU's do: in a compare-and-swap loop every warp reads the word before any swaps
// (four warps' ATOMS.CAS on an H200, where one warp after another would make one), and a warp
// waiting on another warp's flag lets that warp run.
inline int run_block(dim3 block, size_t dynamic, unsigned long long limit) {
  block_dim = block;
  grid_dim = dim3(1, 1, 1);
  dynamic_bytes = dynamic;
  max_records = limit;
  const unsigned n = block.x * block.y * block.z;
  threads.resize(n);
  warp_lanes.resize((n + 31) / 32);
  watch_the_end();
  std::printf("block %u %u %u\n", block.x, block.y, block.z);
  for (unsigned t = 0; t < n; ++t) {
    Thread& th = threads[t];
    th.tid = t;
    th.idx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    // The stack above a guard no access may touch (compiled with -fstack-clash-protection, every
    // page of a large frame is probed in order): an overflow faults in the guard, said by on_fault.
    void* m = ::mmap(nullptr, kGuard + kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (m == MAP_FAILED || ::mprotect(m, kGuard, PROT_NONE) != 0)
      fail("bankviz-record: cannot map a thread's stack (out of memory)");
    th.stack = static_cast<char*>(m) + kGuard;
    getcontext(&th.ctx);
    th.ctx.uc_stack.ss_sp = th.stack;
    th.ctx.uc_stack.ss_size = kStack;
    th.ctx.uc_link = &scheduler;
    makecontext(&th.ctx, entry, 0);
  }
  for (;;) {
    for (bool any = true; any;) {
      any = false;
      for (unsigned t = 0; t < n; ++t) {
        if (threads[t].state != kRun) continue;
        any = true;
        cur = &threads[t];
        if (__builtin_setjmp(scheduler_jump) == 0) {
          if (!cur->started) {
            cur->started = true;
            swapcontext(&scheduler, &cur->ctx);
          } else {
            jump_to(cur->jump);
          }
        }
      }
    }
    unsigned waiting = 0;
    for (Thread& th : threads)
      if (th.state == kBarrier) ++waiting;
    if (waiting == 0) break;
    note_divergent_barrier(waiting);
    for (Thread& th : threads)
      if (th.state == kBarrier) th.state = kRun;
    std::printf("sync\n");
  }
  std::printf("end %llu\n", records);
  finished = true;
  return 0;
}

// A kernel argument: pointers get zeroed buffers, arithmetic parameters the given integers.
inline std::vector<long long> int_args;
inline size_t buffer_bytes = size_t{64} << 20;
// [parameter]: one buffer per pointer parameter, for all threads.
inline std::vector<void*> buffers;
struct Arg {
  size_t i;
  template <class T>
  operator T*() const {
    if (buffers.size() <= i) buffers.resize(i + 1, nullptr);
    if (!buffers[i]) buffers[i] = std::calloc(buffer_bytes, 1);
    if (!buffers[i]) fail("cannot allocate a kernel buffer");
    return static_cast<T*>(buffers[i]);
  }
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  operator T() const {
    return static_cast<T>(i < int_args.size() ? int_args[i] : 0);
  }
};

}  // namespace bv

using bv::atomicAdd;
using bv::atomicAnd;
using bv::atomicCAS;
using bv::atomicExch;
using bv::atomicMax;
using bv::atomicMin;
using bv::atomicOr;
using bv::atomicSub;
using bv::atomicXor;

#define threadIdx (::bv::cur->idx)
#define blockIdx (::bv::block_idx)
#define blockDim (::bv::block_dim)
#define gridDim (::bv::grid_dim)
#define warpSize 32
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __syncthreads() ::bv::syncthreads()
#define __threadfence_block() ((void)0)
#define __threadfence() ((void)0)

template <class A, class B>
auto min(A a, B b) -> std::common_type_t<A, B> {
  return b < a ? b : a;
}
template <class A, class B>
auto max(A a, B b) -> std::common_type_t<A, B> {
  return a < b ? b : a;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
// The low 32 bits of the product of the operands' low 24 bits (signed for __mul24: PTX mul24.lo).
inline int __mul24(int a, int b) {
  const long long x = static_cast<int>(static_cast<unsigned>(a) << 8) >> 8;
  const long long y = static_cast<int>(static_cast<unsigned>(b) << 8) >> 8;
  return static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(x * y)));
}
inline unsigned __umul24(unsigned a, unsigned b) {
  return (a & 0xffffffu) * (b & 0xffffffu);
}
inline float __fdividef(float a, float b) {
  return a / b;
}
inline float __expf(float x) {
  return std::exp(x);
}
inline float __int_as_float(int x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline float rsqrtf(float x) {
  return 1.0f / std::sqrt(x);
}
// CUDA's bit casts, integer intrinsics and rounding conversions (the CUDA Math API's meanings;
// the fast float functions as the host computes them).
inline unsigned __float_as_uint(float x) {
  unsigned u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float __uint_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline long long __double_as_longlong(double x) {
  long long i;
  std::memcpy(&i, &x, 8);
  return i;
}
inline double __longlong_as_double(long long x) {
  double d;
  std::memcpy(&d, &x, 8);
  return d;
}
inline int __double2hiint(double x) {
  return static_cast<int>(static_cast<unsigned long long>(__double_as_longlong(x)) >> 32);
}
inline int __double2loint(double x) {
  return static_cast<int>(static_cast<unsigned>(__double_as_longlong(x)));
}
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(
      static_cast<long long>(static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32 |
                             static_cast<unsigned>(lo)));
}
inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __ffsll(long long x) {
  return __builtin_ffsll(x);
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32 |
         __brev(static_cast<unsigned>(x >> 32));
}
// Byte n of the result is byte (s >> 4n) & 7 of y:x (x's bytes 0-3, y's 4-7).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long b = static_cast<unsigned long long>(y) << 32 | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n)
    r |= static_cast<unsigned>((b >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = static_cast<unsigned long long>(hi) << 32 | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  return shift >= 32 ? hi : __funnelshift_l(lo, hi, shift);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift);
}
inline int __mulhi(int a, int b) {
  return static_cast<int>((static_cast<long long>(a) * b) >> 32);
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline unsigned __sad(int x, int y, unsigned z) {
  return (x > y ? static_cast<unsigned>(x) - static_cast<unsigned>(y)
                : static_cast<unsigned>(y) - static_cast<unsigned>(x)) +
         z;
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) {
  return (x > y ? x - y : y - x) + z;
}
inline float __saturatef(float x) {
  return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;  // NaN: 0
}
// A float's or double's conversion to an integer as the GPU makes it (PTX cvt): rounded as the
// intrinsic says, then saturated to the integer's range, NaN to 0. A bare static_cast is
// undefined there in C++.
namespace bv {
template <class I>
I saturate_to(double r) {
  if (r != r) return 0;
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
}  // namespace bv
#define BV_CVT(NAME, F, I, ROUND)                               \
  inline I NAME(F x) {                                          \
    return ::bv::saturate_to<I>(ROUND(static_cast<double>(x))); \
  }
BV_CVT(__float2int_rn, float, int, std::nearbyint)
BV_CVT(__float2int_rz, float, int, std::trunc)
BV_CVT(__float2int_rd, float, int, std::floor)
BV_CVT(__float2int_ru, float, int, std::ceil)
BV_CVT(__float2uint_rn, float, unsigned, std::nearbyint)
BV_CVT(__float2uint_rz, float, unsigned, std::trunc)
BV_CVT(__float2uint_rd, float, unsigned, std::floor)
BV_CVT(__float2uint_ru, float, unsigned, std::ceil)
BV_CVT(__float2ll_rn, float, long long, std::nearbyint)
BV_CVT(__float2ll_rz, float, long long, std::trunc)
BV_CVT(__float2ull_rn, float, unsigned long long, std::nearbyint)
BV_CVT(__float2ull_rz, float, unsigned long long, std::trunc)
BV_CVT(__double2int_rn, double, int, std::nearbyint)
BV_CVT(__double2int_rz, double, int, std::trunc)
BV_CVT(__double2int_rd, double, int, std::floor)
BV_CVT(__double2int_ru, double, int, std::ceil)
BV_CVT(__double2uint_rn, double, unsigned, std::nearbyint)
BV_CVT(__double2uint_rz, double, unsigned, std::trunc)
BV_CVT(__double2ll_rn, double, long long, std::nearbyint)
BV_CVT(__double2ll_rz, double, long long, std::trunc)
BV_CVT(__double2ull_rn, double, unsigned long long, std::nearbyint)
BV_CVT(__double2ull_rz, double, unsigned long long, std::trunc)
#undef BV_CVT
inline float __int2float_rn(int x) {
  return static_cast<float>(x);
}
inline float __uint2float_rn(unsigned x) {
  return static_cast<float>(x);
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline float __fdiv_rn(float a, float b) {
  return a / b;
}
inline float __fmaf_rn(float a, float b, float c) {
  return std::fma(a, b, c);
}
inline float __frcp_rn(float x) {
  return 1.0f / x;
}
inline float __fsqrt_rn(float x) {
  return std::sqrt(x);
}
inline double __dadd_rn(double a, double b) {
  return a + b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
inline double __fma_rn(double a, double b, double c) {
  return std::fma(a, b, c);
}
inline float __sinf(float x) {
  return std::sin(x);
}
inline float __cosf(float x) {
  return std::cos(x);
}
inline float __tanf(float x) {
  return std::tan(x);
}
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline float __logf(float x) {
  return std::log(x);
}
inline float __log2f(float x) {
  return std::log2(x);
}
inline float __log10f(float x) {
  return std::log10(x);
}
inline float __powf(float a, float b) {
  return std::pow(a, b);
}
inline float __exp10f(float x) {
  return std::pow(10.0f, x);
}

// Warp intrinsics (bv::collective()).
template <class T>
T __shfl_sync(unsigned m, T v, int src, int width = 32,
              std::source_location l = std::source_location::current()) {
  return ::bv::shfl(0, m, v, src, width, l.line());
}
template <class T>
T __shfl_up_sync(unsigned m, T v, unsigned d, int width = 32,
                 std::source_location l = std::source_location::current()) {
  return ::bv::shfl(1, m, v, static_cast<int>(d), width, l.line());
}
template <class T>
T __shfl_down_sync(unsigned m, T v, unsigned d, int width = 32,
                   std::source_location l = std::source_location::current()) {
  return ::bv::shfl(2, m, v, static_cast<int>(d), width, l.line());
}
template <class T>
T __shfl_xor_sync(unsigned m, T v, int x, int width = 32,
                  std::source_location l = std::source_location::current()) {
  return ::bv::shfl(3, m, v, x, width, l.line());
}
inline unsigned __ballot_sync(unsigned m, int p,
                              std::source_location l = std::source_location::current()) {
  return static_cast<unsigned>(::bv::collective(::bv::kBallot, m, p != 0, 0, l.line()));
}
inline int __any_sync(unsigned m, int p, std::source_location l = std::source_location::current()) {
  return static_cast<int>(::bv::collective(::bv::kAny, m, p != 0, 0, l.line()));
}
inline int __all_sync(unsigned m, int p, std::source_location l = std::source_location::current()) {
  return static_cast<int>(::bv::collective(::bv::kAll, m, p != 0, 0, l.line()));
}
inline unsigned __activemask() {
  // The lanes of the warp that have not returned (the emulation runs a warp's lanes together).
  const unsigned first = ::bv::cur->tid / 32 * 32;
  unsigned m = 0;
  for (unsigned l = 0; l < 32 && first + l < ::bv::threads.size(); ++l)
    if (::bv::threads[first + l].state != ::bv::kDone) m |= 1u << l;
  return m;
}
inline void __syncwarp(unsigned m = 0xffffffffu,
                       std::source_location l = std::source_location::current()) {
  ::bv::collective(::bv::kSync, m, 0, 0, l.line());
}
template <class T>
unsigned __match_any_sync(unsigned m, T v,
                          std::source_location l = std::source_location::current()) {
  return static_cast<unsigned>(::bv::collective(::bv::kMatch, m, ::bv::bits_of(v), 0, l.line()));
}

// cuda_fp16.h and cuda_bf16.h: the 16-bit float types, stored in 2 bytes as on the GPU, computing
// through float (as CUDA's C++ operators on __half do).
struct __half {
  unsigned short bits = 0;
  __half() = default;
  __half(float f) {
    const _Float16 h = static_cast<_Float16>(f);
    std::memcpy(&bits, &h, 2);
  }
  __half(double d) : __half(static_cast<float>(d)) {}
  __half(int i) : __half(static_cast<float>(i)) {}
  operator float() const {
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return static_cast<float>(h);
  }
};
struct __nv_bfloat16 {
  unsigned short bits = 0;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    bits = static_cast<unsigned short>(u >> 16);
  }
  __nv_bfloat16(double d) : __nv_bfloat16(static_cast<float>(d)) {}
  __nv_bfloat16(int i) : __nv_bfloat16(static_cast<float>(i)) {}
  operator float() const {
    const unsigned u = static_cast<unsigned>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
using half = __half;
using nv_bfloat16 = __nv_bfloat16;
struct alignas(4) __half2 {
  __half x, y;
};
using half2 = __half2;
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
inline __half __float2half(float f) {
  return __half(f);
}
inline __half __float2half_rn(float f) {
  return __half(f);
}
inline float __half2float(__half h) {
  return h;
}
inline __half __int2half_rn(int i) {
  return __half(static_cast<float>(i));
}
inline __half __hadd(__half a, __half b) {
  return __half(float(a) + float(b));
}
inline __half __hsub(__half a, __half b) {
  return __half(float(a) - float(b));
}
inline __half __hmul(__half a, __half b) {
  return __half(float(a) * float(b));
}
inline __half __hfma(__half a, __half b, __half c) {
  return __half(float(a) * float(b) + float(c));
}
inline __half2 __halves2half2(__half a, __half b) {
  return {a, b};
}
inline __half2 __floats2half2_rn(float a, float b) {
  return {__half(a), __half(b)};
}
inline __half2 __float2half2_rn(float a) {
  return {__half(a), __half(a)};
}
inline float __low2float(__half2 h) {
  return h.x;
}
inline float __high2float(__half2 h) {
  return h.y;
}
inline __half2 __hadd2(__half2 a, __half2 b) {
  return {__hadd(a.x, b.x), __hadd(a.y, b.y)};
}
inline __half2 __hmul2(__half2 a, __half2 b) {
  return {__hmul(a.x, b.x), __hmul(a.y, b.y)};
}
inline __nv_bfloat16 __float2bfloat16(float f) {
  return __nv_bfloat16(f);
}
inline float __bfloat162float(__nv_bfloat16 h) {
  return h;
}

// cooperative_groups.h: the block and its tiles of 1-32 threads (a tile's sync() and shuffles
// are its warp's collectives over the tile's lanes).
namespace cooperative_groups {
struct thread_block {
  void sync() const { __syncthreads(); }
  unsigned thread_rank() const { return ::bv::cur->tid; }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned num_threads() const { return size(); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
  uint3 thread_index() const { return threadIdx; }
  uint3 group_index() const { return blockIdx; }
};
inline thread_block this_thread_block() {
  return {};
}
// A grid's group compiles (another kernel of the file may use it); its sync cannot be recorded
// (core refuses a recorded kernel that names it).
struct grid_group {
  void sync() const { ::bv::fail("a grid-wide sync cannot be recorded on the CPU"); }
  unsigned long long thread_rank() const { return ::bv::cur->tid; }
  bool is_valid() const { return false; }
};
inline grid_group this_grid() {
  return {};
}
template <unsigned N>
struct thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "a tile of 1, 2, 4, ... 32 threads");
  unsigned mask() const {
    const unsigned lane = ::bv::cur->tid % 32;
    return N == 32 ? 0xffffffffu : ((1u << N) - 1u) << (lane / N * N);
  }
  void sync() const { __syncwarp(mask()); }
  unsigned thread_rank() const { return ::bv::cur->tid % N; }
  unsigned size() const { return N; }
  unsigned num_threads() const { return N; }
  unsigned meta_group_rank() const { return ::bv::cur->tid / N; }
  unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
  template <class T>
  T shfl(T v, int src) const {
    return __shfl_sync(mask(), v, src, N);
  }
  template <class T>
  T shfl_down(T v, unsigned d) const {
    return __shfl_down_sync(mask(), v, d, N);
  }
  template <class T>
  T shfl_up(T v, unsigned d) const {
    return __shfl_up_sync(mask(), v, d, N);
  }
  template <class T>
  T shfl_xor(T v, int x) const {
    return __shfl_xor_sync(mask(), v, x, N);
  }
  int any(int p) const { return __any_sync(mask(), p); }
  int all(int p) const { return __all_sync(mask(), p); }
  unsigned ballot(int p) const { return __ballot_sync(mask(), p) >> (::bv::cur->tid % 32 / N * N); }
};
template <unsigned N, class Parent>
thread_block_tile<N> tiled_partition(const Parent&) {
  return {};
}
inline void sync(const thread_block& b) {
  b.sync();
}
template <unsigned N>
void sync(const thread_block_tile<N>& t) {
  t.sync();
}
template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return a < b ? a : b; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};
template <unsigned N, class T, class Op>
T reduce(const thread_block_tile<N>& t, T v, Op op) {
  for (unsigned o = N / 2; o > 0; o /= 2) v = op(v, t.shfl_xor(v, static_cast<int>(o)));
  return v;
}
template <unsigned N, class T, class Op>
T inclusive_scan(const thread_block_tile<N>& t, T v, Op op) {
  for (unsigned o = 1; o < N; o *= 2) {
    const T u = t.shfl_up(v, o);
    if (t.thread_rank() >= o) v = op(v, u);
  }
  return v;
}
}  // namespace cooperative_groups

#define BV_REDUCE(NAME, OP)                                                                      \
  inline unsigned NAME(unsigned m, unsigned v,                                                   \
                       std::source_location l = std::source_location::current()) {               \
    return static_cast<unsigned>(::bv::collective(OP, m, v, 0, l.line()));                       \
  }                                                                                              \
  inline int NAME(unsigned m, int v, std::source_location l = std::source_location::current()) { \
    return static_cast<int>(::bv::collective(OP, m, static_cast<unsigned>(v), 0, l.line()));     \
  }
BV_REDUCE(__reduce_add_sync, ::bv::kAdd)
BV_REDUCE(__reduce_and_sync, ::bv::kAnd)
BV_REDUCE(__reduce_or_sync, ::bv::kOr)
BV_REDUCE(__reduce_xor_sync, ::bv::kXor)
#undef BV_REDUCE
inline unsigned __reduce_min_sync(unsigned m, unsigned v,
                                  std::source_location l = std::source_location::current()) {
  return static_cast<unsigned>(::bv::collective(::bv::kMin, m, v, 0, l.line()));
}
inline unsigned __reduce_max_sync(unsigned m, unsigned v,
                                  std::source_location l = std::source_location::current()) {
  return static_cast<unsigned>(::bv::collective(::bv::kMax, m, v, 0, l.line()));
}
