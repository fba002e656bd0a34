// bankviz_record_gpu.h: recording one block of a user's kernel on the GPU (docs/RECORD.md). The
// device twin of bankviz_record.h: compiled by NVRTC in front of the user's source (prepared by
// core's recording_source() for the GPU), launched as the user's kernel is profiled.
//
// - Every `__shared__` declaration of the kernel is rewritten (nothing else of the text changes)
//   into the real __shared__ storage, under a name of bankviz's, and a bv::Shared<T[...]> proxy
//   with the user's name: indexing it checks the bounds, and reading, writing or an atomic on an
//   element does the access on the real shared memory and, in block (0,0,0) only, appends one
//   record (thread, source line, kind, width, the shared address the GPU used, value) to a global
//   buffer. The line is the subscript's (__builtin_LINE() in a default argument).
// - __syncthreads() counts, per thread, the barriers passed: each record carries its phase.
// - The host (kernels/src/record_gpu.cpp) sets the buffer, reads the records back and writes
//   them in the recording format of recording.h, which core parses and serves.
// No header of the toolkit or the standard library is needed (NVRTC's built-ins only).
#pragma once

namespace bv {

struct Rec {  // 32 bytes
  unsigned thread, line, addr, phase;
  unsigned long long value;
  unsigned kind, width;
};

}  // namespace bv

// The recording's state, found by the host by name (cuModuleGetGlobal).
__device__ bv::Rec* bv_records;            // the buffer
__device__ unsigned long long bv_capacity;  // its records
__device__ unsigned long long bv_count;     // records made (may exceed the capacity)
__device__ unsigned long long bv_dynamic_bytes;
__device__ unsigned bv_phase[1024];            // [thread]: barriers passed
__device__ unsigned bv_arrays[256][2];         // [declaration]: base + 1, bytes (static arrays)
__device__ unsigned bv_out_of_bounds[4];       // set: 1, line, thread, declaration
__device__ long long bv_out_of_bounds_at[2];   // the index and the extent
__device__ __align__(16) unsigned char bv_dummy[4096];

namespace bv {

template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  using type = T;
};
template <class T>
struct remove_extent {
  using type = T;
};
template <class T>
struct remove_extent<T[]> {
  using type = T;
};
template <class T, unsigned long long N>
struct remove_extent<T[N]> {
  using type = T;
};
template <class T>
struct extent {
  static constexpr unsigned long long value = 0;
};
template <class T, unsigned long long N>
struct extent<T[N]> {
  static constexpr unsigned long long value = N;
};
template <class T>
struct is_array {
  static constexpr bool value = false;
};
template <class T>
struct is_array<T[]> {
  static constexpr bool value = true;
};
template <class T, unsigned long long N>
struct is_array<T[N]> {
  static constexpr bool value = true;
};

__device__ __forceinline__ bool recorded_block() {
  return blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
}
__device__ __forceinline__ unsigned thread_id() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// kind: 'L', 'S', 'A', 'C' (atomicCAS) or 'X', and (decl + 1) << 8: the declarator whose name the access used.
// width: the bytes, and above them (<< 8) the subscript's site (recording_source()'s number).
__device__ __noinline__ void emit(unsigned line, unsigned kind, unsigned width, const void* p,
                                  const void* value) {
  if (!recorded_block()) return;
  const unsigned long long i = atomicAdd(&bv_count, 1ull);
  if (i >= bv_capacity) return;
  Rec r;
  r.thread = thread_id();
  r.line = line;
  r.addr = static_cast<unsigned>(__cvta_generic_to_shared(const_cast<void*>(p)));
  r.phase = bv_phase[r.thread];
  r.value = 0;  // the value's first 8 bytes, little-endian
  const unsigned char* v = static_cast<const unsigned char*>(value);
  for (unsigned b = 0; b < (width & 0xffu) && b < 8; ++b)
    r.value |= static_cast<unsigned long long>(v[b]) << (8 * b);
  r.kind = kind;
  r.width = width;
  bv_records[i] = r;
}

__device__ __noinline__ void out_of_bounds(unsigned line, unsigned decl, long long index,
                                           long long extent) {
  if (!recorded_block() && bv_out_of_bounds[0]) return;
  if (atomicCAS(&bv_out_of_bounds[0], 0u, 1u) == 0u) {
    bv_out_of_bounds[1] = line;
    bv_out_of_bounds[2] = recorded_block() ? thread_id() : 0xffffffffu;
    bv_out_of_bounds[3] = decl;
    bv_out_of_bounds_at[0] = index;
    bv_out_of_bounds_at[1] = extent;
  }
}

__device__ __forceinline__ void sync() {
  __syncthreads();
  if (recorded_block()) ++bv_phase[thread_id()];
}

template <class T>
class Ptr;
template <class T>
struct remove_cv {
  using type = T;
};
template <class T>
struct remove_cv<const T> {
  using type = T;
};
template <class T>
struct remove_cv<volatile T> {
  using type = T;
};
template <class T>
struct remove_cv<const volatile T> {
  using type = T;
};
template <class A, class B>
struct is_same {
  static constexpr bool value = false;
};
template <class A>
struct is_same<A, A> {
  static constexpr bool value = true;
};
template <class From, class To>
struct converts {  // From* converts to To*
  static __device__ char test(To*);
  static __device__ long test(...);
  static constexpr bool value = sizeof(test(static_cast<From*>(nullptr))) == 1;
};
template <class T>
struct remove_all_extents {
  using type = T;
};
template <class T>
struct remove_all_extents<T[]> {
  using type = typename remove_all_extents<T>::type;
};
template <class T, unsigned long long N>
struct remove_all_extents<T[N]> {
  using type = typename remove_all_extents<T>::type;
};

// An element of a shared array seen as an index (s[t2[i]]): Ref<U> derives from it, so that
// Index takes it without a template (CUDA 13's front end gives __builtin_LINE() in a member
// template the template's line).
struct RefIndex {
  long long (*read)(const RefIndex* self);  // the element's value, its load recorded
};
// An element's value as an index: an integer's; a vector's or a struct's never is one (0).
template <class T>
__device__ auto as_index(const T& v, int) -> decltype(static_cast<long long>(v)) {
  return static_cast<long long>(v);
}
template <class T>
__device__ long long as_index(const T&, long) {
  return 0;
}

// One element of a shared array: reading it, writing it or an atomic on it is recorded.
template <class T>
class Ref : public RefIndex {
 public:
  using V = typename remove_cv<T>::type;
  __device__ Ref(T* p, unsigned line, unsigned decl, unsigned site = 0,
                 unsigned char* region = nullptr, unsigned region_bytes = 0, bool plain = false)
      : RefIndex{&read_index}, p_(p), line_(line), kind_((decl + 1) << 8), site_(site << 8),
        rb_(region), rbytes_(region_bytes), plain_(plain) {}
  __device__ V load() const {
    V v = *p_;
    if (!plain_) emit_object('L', &v);
    return v;
  }
  __device__ void store(const V& v) const {
    if (!plain_) emit_object('S', &v);
    *p_ = v;
  }
  // A member of the element (`p[t].x`, which recording_source() writes
  // `p[t].bv_member(&decltype(p[t])::element_type::x)`): an element of its own, on this line.
  using element_type = T;
  template <class M, class C>
  __device__ Ref<M> bv_member(M C::*member) const {
    return Ref<M>(&(const_cast<V*>(p_)->*member), line_, (kind_ >> 8) - 1u, site_ >> 8, rb_,
                  rbytes_, plain_);
  }
  __device__ operator V() const { return load(); }
  __device__ const Ref& operator=(const V& v) const {
    store(v);
    return *this;
  }
  __device__ const Ref& operator=(const Ref& o) const {
    store(o.load());
    return *this;
  }
  template <class U>
  __device__ const Ref& operator=(const Ref<U>& o) const {
    store(static_cast<V>(o.load()));
    return *this;
  }
#define BV_COMPOUND(op)                                    \
  template <class U>                                       \
  __device__ const Ref& operator op##=(const U& u) const { \
    V x = load();                                          \
    x op## = u;                                            \
    store(x);                                              \
    return *this;                                          \
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
  __device__ V operator++() const {
    V x = load();
    ++x;
    store(x);
    return x;
  }
  __device__ V operator--() const {
    V x = load();
    --x;
    store(x);
    return x;
  }
  __device__ V operator++(int) const {
    V x = load();
    V y = x;
    ++y;
    store(y);
    return x;
  }
  __device__ V operator--(int) const {
    V x = load();
    V y = x;
    --y;
    store(y);
    return x;
  }
  __device__ Ptr<T> operator&() const;

 private:
  template <class U>
  friend class Ref;
  __device__ static long long read_index(const RefIndex* self) {
    return as_index(static_cast<const Ref*>(self)->load(), 0);
  }
  // An element whose size is not an access width (a 12-byte struct) is accessed as the compiler
  // does, in pieces of its alignment (3 of 4 bytes); any other in one access.
  __device__ void emit_object(unsigned kind, const V* v) const {
    constexpr unsigned w = sizeof(T), a = alignof(T) < 16 ? alignof(T) : 16;
    if (w == 1 || w == 2 || w == 4 || w == 8 || w == 16) {
      emit(line_, kind | kind_, w | site_, p_, v);
      return;
    }
    for (unsigned b = 0; b + a <= w; b += a)
      emit(line_, kind | kind_, a | site_, reinterpret_cast<const unsigned char*>(p_) + b,
           reinterpret_cast<const unsigned char*>(v) + b);
  }
  T* p_;
  unsigned line_;
  unsigned kind_;  // (declarator + 1) << 8, or'ed into the record's kind
  unsigned site_;  // the subscript's site << 8, or'ed into the record's width
  unsigned char* rb_;  // the array it is an element of (a pointer to it may move within it)
  unsigned rbytes_;
  bool plain_;  // not shared memory (through a pointer proxy): nothing recorded
};

// A __shared__ scalar seen as an index (s[n]): SharedScalar<T> derives from it, so that Index
// takes it without a template (CUDA 13's front end gives __builtin_LINE() in a member template
// the template's line) and without chaining two user conversions (SharedScalar -> T -> Index).
struct ScalarIndex {
  void* p;
  long long (*read)(void* p, unsigned line);  // the scalar's value, its load recorded on `line`
};

// A subscript: its value and the line it is written on (integer types promote to one of these).
struct Index {
  long long v;
  unsigned line;
  __device__ Index(int i, unsigned l = __builtin_LINE()) : v(i), line(l) {}
  __device__ Index(unsigned i, unsigned l = __builtin_LINE()) : v(i), line(l) {}
  __device__ Index(long i, unsigned l = __builtin_LINE()) : v(i), line(l) {}
  __device__ Index(unsigned long i, unsigned l = __builtin_LINE())
      : v(static_cast<long long>(i)), line(l) {}
  __device__ Index(long long i, unsigned l = __builtin_LINE()) : v(i), line(l) {}
  __device__ Index(unsigned long long i, unsigned l = __builtin_LINE())
      : v(static_cast<long long>(i)), line(l) {}
  // An index read from shared memory (a data-dependent index): the load is recorded first.
  __device__ Index(const RefIndex& r, unsigned l = __builtin_LINE()) : v(r.read(&r)), line(l) {}
  // A __shared__ scalar as the whole index: its read recorded on this subscript's line.
  __device__ Index(const ScalarIndex& s, unsigned l = __builtin_LINE())
      : v(s.read(s.p, l)), line(l) {}
};

template <class A>
class Sub;

// What indexing a shared array of E gives: a row (E is an array) or an element. `bad`: the index
// was out of bounds (reported): a row clamps to row 0, an element is a scratch word, not shared.
template <class E, bool = is_array<E>::value>
struct Element {
  using type = Sub<E>;
  static __device__ type make(unsigned char* p, unsigned, unsigned decl, unsigned site, bool,
                              unsigned char* rb, unsigned rbytes) {
    return Sub<E>(p, static_cast<long long>(extent<E>::value), decl, site, rb, rbytes);
  }
};
template <class E>
struct Element<E, false> {
  using type = Ref<E>;
  static __device__ type make(unsigned char* p, unsigned line, unsigned decl, unsigned site,
                              bool bad, unsigned char* rb, unsigned rbytes) {
    return Ref<E>(reinterpret_cast<E*>(bad ? bv_dummy : p), line, decl, site, rb, rbytes);
  }
};

// A shared array or one of its rows: A is the array type (T[N][M], or T[] for an extern one).
// operator[] is not a template: measured with CUDA 13's front end, __builtin_LINE() in the
// conversion of a function template's argument gives the template's line, not the caller's.
template <class A>
class Sub {
 public:
  using E = typename remove_extent<A>::type;
  using Leaf = typename remove_all_extents<A>::type;
  __device__ Sub(unsigned char* base, long long count, unsigned decl, unsigned site = 0,
                 unsigned char* region = nullptr, unsigned region_bytes = 0)
      : base_(base), count_(count), decl_(decl), site_(site), rb_(region ? region : base),
        rbytes_(region ? region_bytes : static_cast<unsigned>(sizeof(E) * count)) {}
  // The subscript written at this place of the source (recording_source() writes `a[i]` as
  // `a.bv_site(N)[i]`): its accesses say it.
  __device__ Sub bv_site(unsigned site) const {
    Sub s = *this;
    s.site_ = site;
    return s;
  }
  __device__ typename Element<E>::type operator[](Index i) const {
    long long v = i.v;
    const bool bad = v < 0 || v >= count_;
    if (bad) {
      out_of_bounds(i.line, decl_, v, count_);
      v = 0;
    }
    return Element<E>::make(base_ + static_cast<unsigned long long>(v) * sizeof(E), i.line,
                            decl_, site_, bad, rb_, rbytes_);
  }
  // The array as a pointer (its name decays, `helper(s)`, `float* p = s;`): to its first
  // element; a row's (E an array) to its first leaf element. `s + n` the same moved.
  template <class U, class = typename enable_if<converts<Leaf, U>::value>::type>
  __device__ operator Ptr<U>() const {
    return bv_decay();
  }
  __device__ Ptr<Leaf> bv_decay() const;
  __device__ Ptr<Leaf> operator+(long long n) const;
  // `(float*)s`: a raw pointer, which a pointer proxy made from it finds in shared memory again
  // (its array not said).
  template <class U>
  __device__ explicit operator U*() const {
    return reinterpret_cast<U*>(base_);
  }

 protected:
  unsigned char* base_;
  long long count_;
  unsigned decl_;
  unsigned site_;
  unsigned char* rb_;  // the whole array (a row's too): where a pointer into it may go
  unsigned rbytes_;
};

// A pointer into shared memory, as what a pointer declared from a shared array becomes
// (recording_source() rewrites such declarations and the parameters of __device__ helpers a
// shared array is passed to, `::bv::Ptr<float> sdata`; nothing of the expressions): it carries
// the array (its declarator, as Ref's kind bits), the region it may move in, and makes elements
// (Ref) as the array's subscript does, bounds checked against the region. A raw pointer becomes
// one too: into shared memory (its array not said: the one holding the byte), else plain
// (nothing recorded).
template <class T>
class Ptr {
 public:
  using V = typename remove_cv<T>::type;
  T* p = nullptr;
  unsigned decl = 0;  // (declarator + 1) << 8, 0: not said
  unsigned site = 0;  // << 8
  unsigned char* rb = nullptr;
  unsigned rbytes = 0;  // 0: the region is not known (no bounds checked)
  bool shared = false;
  bool recast = false;  // made by a cast to another element type (a carved array)

  __device__ Ptr() {}
  __device__ Ptr(decltype(nullptr)) {}
  __device__ Ptr(T* raw) : p(raw), shared(raw && __isShared(const_cast<const V*>(raw))) {}
  template <class U, class = typename enable_if<converts<U, T>::value>::type>
  __device__ Ptr(const Ptr<U>& o)
      : p(o.p),
        decl(o.decl),
        site(o.site),
        rb(o.rb),
        rbytes(o.rbytes),
        shared(o.shared),
        recast(o.recast) {}
  template <class U>
  __device__ Ptr<U> bv_cast() const {
    Ptr<U> r;
    r.p = reinterpret_cast<U*>(const_cast<V*>(p));
    r.decl = decl;
    r.site = site;
    r.rb = rb;
    r.rbytes = rbytes;
    r.shared = shared;
    r.recast = recast || !is_same<typename remove_cv<U>::type, V>::value;
    return r;
  }
  __device__ Ptr bv_site(unsigned s) const {
    Ptr r = *this;
    r.site = s << 8;
    return r;
  }
  __device__ Ref<T> operator[](Index i) const {
    unsigned char* b = reinterpret_cast<unsigned char*>(const_cast<V*>(p)) +
                       i.v * static_cast<long long>(sizeof(T));
    if (!shared) return Ref<T>(reinterpret_cast<T*>(b), i.line, 0, 0, nullptr, 0, true);
    if (rbytes != 0 && (b < rb || b + sizeof(T) > rb + rbytes)) {
      out_of_bounds(i.line, decl ? (decl >> 8) - 1u : 0xffffffffu,
                    (b - rb) / static_cast<long long>(sizeof(T)),
                    static_cast<long long>(rbytes / sizeof(T)));
      b = bv_dummy;
    }
    return Ref<T>(reinterpret_cast<T*>(b), i.line, (decl >> 8) - 1u, site >> 8, rb, rbytes);
  }
  __device__ Ptr operator+(long long n) const {
    Ptr r = *this;
    r.p += n;
    return r;
  }
  __device__ Ptr operator-(long long n) const { return *this + -n; }
  __device__ long long operator-(const Ptr& o) const { return p - o.p; }
  __device__ Ptr& operator+=(long long n) { return *this = *this + n; }
  __device__ Ptr& operator-=(long long n) { return *this = *this + -n; }
  __device__ Ptr& operator++() { return *this += 1; }
  __device__ Ptr& operator--() { return *this -= 1; }
  __device__ Ptr operator++(int) {
    Ptr r = *this;
    *this += 1;
    return r;
  }
  __device__ Ptr operator--(int) {
    Ptr r = *this;
    *this -= 1;
    return r;
  }
  __device__ bool operator==(const Ptr& o) const { return p == o.p; }
  __device__ bool operator!=(const Ptr& o) const { return p != o.p; }
  __device__ bool operator<(const Ptr& o) const { return p < o.p; }
  __device__ bool operator>(const Ptr& o) const { return p > o.p; }
  __device__ bool operator<=(const Ptr& o) const { return p <= o.p; }
  __device__ bool operator>=(const Ptr& o) const { return p >= o.p; }
  __device__ explicit operator bool() const { return p != nullptr; }
  template <class U>
  __device__ explicit operator U*() const {
    return reinterpret_cast<U*>(const_cast<V*>(p));
  }
};

template <class T>
__device__ Ptr<T> Ref<T>::operator&() const {
  Ptr<T> r;
  r.p = p_;
  r.decl = kind_;
  r.site = site_;
  r.rb = rb_;
  r.rbytes = rbytes_;
  r.shared = !plain_;
  return r;
}
template <class A>
__device__ Ptr<typename Sub<A>::Leaf> Sub<A>::bv_decay() const {
  Ptr<Leaf> r;
  r.p = reinterpret_cast<Leaf*>(base_);
  r.decl = (decl_ + 1) << 8;
  r.site = site_ << 8;
  r.rb = rb_;
  r.rbytes = rbytes_;
  r.shared = true;
  return r;
}
template <class A>
__device__ Ptr<typename Sub<A>::Leaf> Sub<A>::operator+(long long n) const {
  return bv_decay() + n * static_cast<long long>(sizeof(E) / sizeof(Leaf));
}

// The operand of a pointer declaration's cast (`reinterpret_cast<float*>(smem + 512)`,
// `(int*)&a[n]`), which recording_source() writes `::bv::ptr_cast<float>(...)`.
template <class U, class T>
__device__ Ptr<U> ptr_cast(const Ptr<T>& p) {
  return p.template bv_cast<U>();
}
template <class U, class A>
__device__ Ptr<U> ptr_cast(const Sub<A>& s) {
  return s.bv_decay().template bv_cast<U>();
}
template <class U, class T>
__device__ Ptr<U> ptr_cast(T* raw) {
  return Ptr<T>(raw).template bv_cast<U>();
}

// A pointer declaration's value (`::bv::Ptr<float> a = ::bv::declared(INIT, 7u)`): a pointer
// made by a cast to another element type into a shared array (an array carved from a buffer) is
// an array of its own, declarator `decl` (named by the declaration), over the region it points
// into; any other keeps its array.
template <class T>
__device__ Ptr<T> declared(Ptr<T> p, unsigned decl) {
  if (!p.recast || !p.shared || p.rbytes == 0 || decl >= 256) return p;
  if (recorded_block()) {  // every thread writes the same region
    bv_arrays[decl][0] = static_cast<unsigned>(__cvta_generic_to_shared(p.rb)) + 1;
    bv_arrays[decl][1] = p.rbytes;
  }
  p.decl = (decl + 1) << 8;
  p.recast = false;
  return p;
}
template <class A>
__device__ Ptr<typename Sub<A>::Leaf> declared(const Sub<A>& s, unsigned decl) {
  return declared(s.bv_decay(), decl);
}
template <class T>
__device__ Ptr<T> declared(T* raw, unsigned) {
  return Ptr<T>(raw);
}

// What a `__shared__ T name[...]` declaration becomes beside its storage (the real array,
// renamed; `decl` numbers the declarators in the source, for the host to name the arrays).
template <class A>
class Shared : public Sub<A> {
 public:
  using E = typename remove_extent<A>::type;
  __device__ Shared(void* storage, unsigned decl)
      : Sub<A>(static_cast<unsigned char*>(storage),
               extent<A>::value ? static_cast<long long>(extent<A>::value)
                                : static_cast<long long>(bv_dynamic_bytes / sizeof(E)),
               decl, 0, static_cast<unsigned char*>(storage),
               extent<A>::value ? static_cast<unsigned>(sizeof(E) * extent<A>::value)
                                : static_cast<unsigned>(bv_dynamic_bytes / sizeof(E) * sizeof(E))) {
    if (recorded_block() && thread_id() == 0 && decl < 256) {
      bv_arrays[decl][0] = static_cast<unsigned>(__cvta_generic_to_shared(storage)) + 1;
      if constexpr (extent<A>::value != 0)
        bv_arrays[decl][1] = static_cast<unsigned>(sizeof(A));
      else
        bv_arrays[decl][1] = static_cast<unsigned>(bv_dynamic_bytes);
    }
  }
};

// A scalar `__shared__ T name;`: recording_source() writes every use of it in the kernel `n()`,
// the scalar as an element on the use's line (read, written, an index, its address taken); the
// conversion and assignment below serve a use it did not rewrite (reads then on line 0).
template <class T>
struct Src {
  T v;
  unsigned line;
  __device__ Src(const T& u, unsigned l = __builtin_LINE()) : v(u), line(l) {}
};
template <class T>
class SharedScalar : public ScalarIndex {
 public:
  __device__ SharedScalar(void* storage, unsigned decl)
      : ScalarIndex{storage, &read_index}, p_(static_cast<T*>(storage)), decl_(decl) {
    if (recorded_block() && thread_id() == 0 && decl < 256) {
      bv_arrays[decl][0] = static_cast<unsigned>(__cvta_generic_to_shared(storage)) + 1;
      bv_arrays[decl][1] = static_cast<unsigned>(sizeof(T));
    }
  }
  __device__ operator T() const { return Ref<T>(p_, 0, decl_).load(); }
  __device__ const SharedScalar& operator=(Src<T> s) const {
    Ref<T>(p_, s.line, decl_).store(s.v);
    return *this;
  }
  __device__ Ptr<T> operator&() const { return Ref<T>(p_, 0, decl_).operator&(); }
  __device__ Ref<T> operator()(unsigned l = __builtin_LINE()) const { return Ref<T>(p_, l, decl_); }

 private:
  __device__ static long long read_index(void* p, unsigned line) {
    return static_cast<long long>(Ref<T>(static_cast<T*>(p), line, 0xffffffffu).load());
  }
  T* p_;
  unsigned decl_;
};

}  // namespace bv

// Atomics on a shared element (recorded; the value is the operand), then done by CUDA's own; a
// pointer proxy not into shared memory (or a raw pointer) is CUDA's own alone. The line is the
// call's, where nvcc puts the instruction, also through a pointer made elsewhere: __builtin_LINE()
// in the function template's default argument gives the caller's line with CUDA 13's front end
// as long as passing the pointer instantiates no template (by value, Ptr's converting constructor
// template was weighed and every atomic got that template's line: the proxy goes by reference).
#define BV_ATOMIC(name, kind)                                                     \
  template <class T, class U>                                                     \
  __device__ T name(const bv::Ptr<T>& p, U u, unsigned line = __builtin_LINE()) { \
    const T val = static_cast<T>(u);                                              \
    if (p.shared) bv::emit(line, kind | p.decl, sizeof(T) | p.site, p.p, &val);   \
    return ::name(p.p, val);                                                      \
  }
BV_ATOMIC(atomicAdd, 'A')
BV_ATOMIC(atomicSub, 'X')
BV_ATOMIC(atomicExch, 'X')
BV_ATOMIC(atomicMin, 'X')
BV_ATOMIC(atomicMax, 'X')
BV_ATOMIC(atomicAnd, 'X')
BV_ATOMIC(atomicOr, 'X')
BV_ATOMIC(atomicXor, 'X')
BV_ATOMIC(atomicInc, 'X')
BV_ATOMIC(atomicDec, 'X')
#undef BV_ATOMIC
template <class T, class U, class V>
__device__ T atomicCAS(const bv::Ptr<T>& p, U compare, V value, unsigned line = __builtin_LINE()) {
  const T val = static_cast<T>(value);
  if (p.shared) bv::emit(line, 'C' | p.decl, sizeof(T) | p.site, p.p, &val);
  return ::atomicCAS(p.p, static_cast<T>(compare), val);
}

namespace bv {
// A barrier of cooperative groups: a block's sync() (`block.sync()`, `cg::sync(block)`,
// `cg::this_thread_block().sync()`) is cooperative_groups.h's `__barrier_sync(0)`, which the user's
// include reads after the macro below: a barrier counted as __syncthreads() is. A tile's sync()
// is __syncwarp (no phase).
__device__ __forceinline__ void barrier_sync(unsigned id) {
  __barrier_sync(id);
  if (recorded_block()) ++bv_phase[thread_id()];
}
}  // namespace bv

#define __syncthreads() ::bv::sync()
#define __barrier_sync(id) ::bv::barrier_sync(id)
