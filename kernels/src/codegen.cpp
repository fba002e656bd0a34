// codegen.cpp: Scenario -> CUDA C++ source (see codegen.h).
//
// [SECTION] Names (the kernel's name, names the generated code reserves)
// [SECTION] Checks a kernel needs beyond core's check()
// [SECTION] Helpers emitted into the source (bits(), hash(), ld_volatile/st_volatile)
// [SECTION] Statements (store, load, atomic, sync; guard and loop around them)
// [SECTION] generate_kernel()
//
// Hardware reasoning for the exposed mode: a load whose address does not change inside a loop is
// loop-invariant, and ptxas hoists it (or merges repeats) even from `asm volatile`, so the repeat
// loop would measure one access. PTX's ld.volatile.shared/st.volatile.shared must be executed
// every time, one LDS/STS each, of the element's own width (LDS.128 for a float4), which is what
// the bank model counts. The loop is unrolled by 16 so that loop overhead (compare, branch,
// counter) costs a small fraction of the 4 issue slots an SM has per cycle; one conflict-free load
// needs the shared pipe for one cycle, so the pipe, not issue, is the bottleneck.
#include "bankviz/codegen.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include "bankviz/expr.h"
#include "bankviz/printable.h"
#include "bankviz/trace.h"
#include "types.h"

namespace bankviz {

const char* run_mode_name(RunMode m) {
  return m == RunMode::Written ? "written" : "exposed";
}

std::optional<RunMode> parse_run_mode(std::string_view s) {
  if (s == "written" || s == "as-written") return RunMode::Written;
  if (s == "exposed") return RunMode::Exposed;
  return std::nullopt;
}

std::string source_line(const std::string& source, int line) {
  if (line < 1) return {};
  std::istringstream in(source);
  std::string text;
  for (int i = 1; std::getline(in, text); ++i) {
    if (i == line) {
      const size_t first = text.find_first_not_of(' ');
      return "line " + std::to_string(line) + ": " +
             (first == std::string::npos ? std::string() : text.substr(first));
    }
  }
  return {};
}

namespace {

// [SECTION] Names ================================================================================

// The members of CUDA's vector types (threadIdx.x, v.w): harmless as a tile's or let's name (a
// local of the kernel), but a constant is a #define, and `#define x 4` breaks threadIdx.x.
constexpr std::string_view kMembers[] = {"x", "y", "z", "w"};

// Names the generated code defines itself; a constant, let or tile with one of these names would
// break it.
constexpr std::string_view kReserved[] = {
    "bits", "hash", "ld_volatile", "st_volatile", "ld_volatile_bits", "min", "max", "abs", "out",
    "measure", "reps", "half", "half2", "warps", "lesson_thread", "lesson_warp", "lesson_tid",
    "replica_warp", "replica", "REPLICAS", "in", "b16_sum", "s16_sum", "b16_bits", "addr", "at",
    // CUDA names the generated statements call or declare
    "atomicAdd", "memcpy", "uint3", "uint4", "make_uint3", "dim3"};

bool is_reserved(std::string_view name) {
  if (std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved))
    return true;
  // The element types and their constructors (a kernel named float2, from the title
  // "float2: ...", declared a function that hid the type: NVRTC refused the kernel).
  for (const ElemType& t : elem_types())
    if (name == t.name || (!t.make.empty() && name == t.make)) return true;
  return false;
}

// User text (a scenario's name and title, a step's label) as the inside of one `//` comment line:
// control characters (a newline would end the comment and make the rest CUDA code) become
// spaces, and no backslash may end the line (it would splice the next line into the comment).
std::string comment_text(std::string_view text) {
  std::string out = replace_controls(text, ' ');
  while (!out.empty() && (out.back() == ' ' || out.back() == '\\')) out.pop_back();
  return out;
}

// A local name for generated code that no user name (constant, let, loop variable) takes.
std::string pick(std::string base, const std::set<std::string>& taken) {
  while (taken.count(base)) base += "_";
  return base;
}

// [SECTION] Helpers emitted into the source =====================================================

const char* kHashSource =
    "// hash(): a fixed 32-bit integer mix (lowbias32), the same function the model evaluates,\n"
    "// for data-dependent indices such as a histogram's bins.\n"
    "__device__ unsigned int hash(unsigned int x)\n"
    "{\n"
    "    x ^= x >> 16;\n"
    "    x *= 0x7feb352dU;\n"
    "    x ^= x >> 15;\n"
    "    x *= 0x846ca68bU;\n"
    "    x ^= x >> 16;\n"
    "    return x;\n"
    "}\n";

const char* kVolatileSource =
    "// Exposed mode: one shared load or store of the element's own width that ptxas may neither\n"
    "// hoist out of the repeat loop nor merge with the next repeat: ld/st.volatile.shared.\n"
    "template <typename T>\n"
    "__device__ __forceinline__ T ld_volatile(const T& ref)\n"
    "{\n"
    "    const unsigned int a = (unsigned int)__cvta_generic_to_shared(&ref);\n"
    "    T v;\n"
    "    if constexpr (sizeof(T) == 1) {\n"
    "        unsigned short r;\n"
    "        asm volatile(\"ld.volatile.shared.u8 %0, [%1];\" : \"=h\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "        const unsigned char b = (unsigned char)r;\n"
    "        memcpy(&v, &b, 1);\n"
    "    } else if constexpr (sizeof(T) == 2) {\n"
    "        unsigned short r;\n"
    "        asm volatile(\"ld.volatile.shared.u16 %0, [%1];\" : \"=h\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "        memcpy(&v, &r, 2);\n"
    "    } else if constexpr (sizeof(T) == 4) {\n"
    "        unsigned int r;\n"
    "        asm volatile(\"ld.volatile.shared.u32 %0, [%1];\" : \"=r\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "        memcpy(&v, &r, 4);\n"
    "    } else if constexpr (sizeof(T) == 8) {\n"
    "        unsigned long long r;\n"
    "        asm volatile(\"ld.volatile.shared.u64 %0, [%1];\" : \"=l\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "        memcpy(&v, &r, 8);\n"
    "    } else {\n"
    "        uint4 r;\n"
    "        asm volatile(\"ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];\"\n"
    "                     : \"=r\"(r.x), \"=r\"(r.y), \"=r\"(r.z), \"=r\"(r.w) : \"r\"(a) : "
    "\"memory\");\n"
    "        memcpy(&v, &r, 16);\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "\n"
    "// The measured step's 1- and 2-byte signed loads: the bits as loaded (zero-extended),\n"
    "// which the sum adds with no instruction of its own. A signed char's or short's value\n"
    "// would cost a sign extension per load: 0.022 cycles per warp instruction on an H100.\n"
    "template <typename T>\n"
    "__device__ __forceinline__ unsigned int ld_volatile_bits(const T& ref)\n"
    "{\n"
    "    static_assert(sizeof(T) <= 2, \"1- and 2-byte elements\");\n"
    "    const unsigned int a = (unsigned int)__cvta_generic_to_shared(&ref);\n"
    "    unsigned short r;\n"
    "    if constexpr (sizeof(T) == 1)\n"
    "        asm volatile(\"ld.volatile.shared.u8 %0, [%1];\" : \"=h\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "    else\n"
    "        asm volatile(\"ld.volatile.shared.u16 %0, [%1];\" : \"=h\"(r) : \"r\"(a) : "
    "\"memory\");\n"
    "    return r;\n"
    "}\n"
    "\n"
    "template <typename T, typename V>\n"
    "__device__ __forceinline__ void st_volatile(T& ref, V value)\n"
    "{\n"
    "    const unsigned int a = (unsigned int)__cvta_generic_to_shared(&ref);\n"
    "    const T v = value;\n"
    "    if constexpr (sizeof(T) == 1) {\n"
    "        unsigned char b;\n"
    "        memcpy(&b, &v, 1);\n"
    "        const unsigned short r = b;\n"
    "        asm volatile(\"st.volatile.shared.u8 [%0], %1;\" :: \"r\"(a), \"h\"(r) : "
    "\"memory\");\n"
    "    } else if constexpr (sizeof(T) == 2) {\n"
    "        unsigned short r;\n"
    "        memcpy(&r, &v, 2);\n"
    "        asm volatile(\"st.volatile.shared.u16 [%0], %1;\" :: \"r\"(a), \"h\"(r) : "
    "\"memory\");\n"
    "    } else if constexpr (sizeof(T) == 4) {\n"
    "        unsigned int r;\n"
    "        memcpy(&r, &v, 4);\n"
    "        asm volatile(\"st.volatile.shared.u32 [%0], %1;\" :: \"r\"(a), \"r\"(r) : "
    "\"memory\");\n"
    "    } else if constexpr (sizeof(T) == 8) {\n"
    "        unsigned long long r;\n"
    "        memcpy(&r, &v, 8);\n"
    "        asm volatile(\"st.volatile.shared.u64 [%0], %1;\" :: \"r\"(a), \"l\"(r) : "
    "\"memory\");\n"
    "    } else {\n"
    "        uint4 r;\n"
    "        memcpy(&r, &v, 16);\n"
    "        asm volatile(\"st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};\"\n"
    "                     :: \"r\"(a), \"r\"(r.x), \"r\"(r.y), \"r\"(r.z), \"r\"(r.w) : "
    "\"memory\");\n"
    "    }\n"
    "}\n";

// bits(v): the value's bits folded to 32, so the thread's sum is a checksum the CPU reproduces
// exactly (no float rounding in the sum, no slow float-to-int conversion in the exposed loop).
std::string bits_overload(const ElemType& t) {
  const std::string c(t.comp);
  std::string body;
  if (t.comp_bytes() == 8 && t.comp_kind == CompKind::F64) {
    body = "unsigned long long b = __double_as_longlong(v); return (unsigned int)(b ^ (b >> 32));";
  } else if (t.comp_bytes() == 8) {
    body = "unsigned long long b = v; return (unsigned int)(b ^ (b >> 32));";
  } else if (t.comp_kind == CompKind::F32) {
    body = "return __float_as_uint(v);";
  } else if (t.comp_kind == CompKind::F16) {
    body = "return __half_as_ushort(v);";
  } else if (t.comp_kind == CompKind::BF16) {
    body = "return __bfloat16_as_ushort(v);";
  } else {
    body = "return v;";
  }
  return "__device__ unsigned int bits(" + c + " v) { " + body + " }\n";
}

// ldmatrix/stmatrix (scenario.h): a 32-bit register holds two 16-bit elements. b16_sum adds
// both halves to the checksum as a load of each would (bits() of a half or bfloat16 is its
// 16 bits; an unsigned short adds itself; s16_sum: a short, sign-extended); b16_bits gives the
// 16 bits of an element value, to pack a register for stmatrix.
const char* kMatrixSource =
    "// ldmatrix/stmatrix move 16-bit elements two to a 32-bit register (low half first).\n"
    "__device__ __forceinline__ unsigned int b16_sum(unsigned int r) { return (r & 0xffffu) + "
    "(r >> 16); }\n"
    "__device__ __forceinline__ unsigned int s16_sum(unsigned int r)\n"
    "{\n"
    "    return (unsigned int)(int)(short)(r & 0xffffu) + (unsigned int)(int)(short)(r >> 16);\n"
    "}\n";

// A constant is a #define, which reaches into every helper above: the identifiers inside the
// helpers' own text (their parameters and locals, T, V, v, r, a, b, ref, value...) may not name
// one, though a let or tile of such a name (a local of the kernel) is harmless. Read from the
// helpers' text itself, comments and string literals left out, so the list cannot fall behind it.
bool breaks_as_macro(std::string_view name) {
  if (std::find(std::begin(kMembers), std::end(kMembers), name) != std::end(kMembers)) return true;
  static const std::set<std::string, std::less<>> words = [] {
    std::set<std::string, std::less<>> w = {"v", "b"};  // bits() and b16_bits()'s parameter
    for (std::string_view text : {kHashSource, kVolatileSource, kMatrixSource}) {
      for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (text.compare(i, 2, "//") == 0) {
          i = text.find('\n', i);
          if (i == std::string_view::npos) break;
        } else if (c == '"') {
          i = text.find('"', i + 1) + 1;
          if (i == 0) break;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
          size_t j = i;
          while (j < text.size() &&
                 (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
            ++j;
          w.emplace(text.substr(i, j - i));
          i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {  // 0x7feb352dU is one token
          while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
        } else {
          ++i;
        }
      }
    }
    return w;
  }();
  return is_reserved(name) || words.count(name) != 0;
}

// b16_bits() for one 16-bit element type (the C type of a component).
std::string b16_bits_source(const ElemType& t) {
  const std::string c(t.comp);
  const std::string body = t.comp_kind == CompKind::F16    ? "__half_as_ushort(v)"
                           : t.comp_kind == CompKind::BF16 ? "__bfloat16_as_ushort(v)"
                                                           : "(unsigned short)v";
  return "__device__ __forceinline__ unsigned int b16_bits(" + c + " v) { return " + body + "; }\n";
}

// The PTX of one matrix or async-copy step: the asm statement(s) after `addr` (the row or
// destination's shared address) is computed. regs = the register names.
std::string matrix_asm(const Step& st, const std::vector<std::string>& regs,
                       const std::string& addr = "addr") {
  const std::string n = std::to_string(st.matrices);
  const std::string ptx =
      fill_in(st.info().ptx, {{"{n}", n}, {"{.trans}", st.trans ? ".trans" : ""}});
  const bool loads = st.reads();
  std::string list;
  for (size_t i = 0; i < regs.size(); ++i)
    list += (i ? ", %" : "%") + std::to_string(loads ? i : i + 1);
  std::string operands;
  for (size_t i = 0; i < regs.size(); ++i)
    operands += std::string(i ? ", " : "") + (loads ? "\"=r\"(" : "\"r\"(") + regs[i] + ")";
  if (loads)
    return "asm volatile(\"" + ptx + " {" + list + "}, [%" + std::to_string(regs.size()) +
           "];\" : " + operands + " : \"r\"(" + addr + ") : \"memory\");";
  return "asm volatile(\"" + ptx + " [%0], {" + list + "};\" :: \"r\"(" + addr + "), " + operands +
         " : \"memory\");";
}

// Loads a measured load step keeps in flight per warp (exposed mode); reps is a multiple of it.
constexpr int kLoadBatch = kExposedLoadBatch;

std::string vector_bits_overload(const ElemType& t, const std::string& ctype) {
  std::string sum;
  for (int i = 0; i < t.lanes; ++i)
    sum += std::string(i ? " + " : "") + "bits(v." + std::string(kMembers[i]) + ")";
  return "__device__ unsigned int bits(" + ctype + " v) { return " + sum + "; }\n";
}

// [SECTION] Statements ===========================================================================

struct Emitter {
  std::string text;
  int line = 1;
  void put(const std::string& s) {
    text += s;
    line += static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  }
  // One statement; a block of several lines ("{\n    a;\n}") is indented line by line.
  void ln(int indent, const std::string& s) {
    const std::string pad(4 * static_cast<size_t>(indent), ' ');
    size_t from = 0;
    for (size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1)
      put(pad + s.substr(from, nl - from) + "\n");
    put(pad + s.substr(from) + "\n");
  }
};

// Exposed mode: bytes between two replicas' copies of a tile, a multiple of 128 (32 banks x 4
// bytes) so that every copy maps its elements to the same banks as the lesson's tile.
int64_t copy_stride_bytes(int64_t bytes) {
  return (bytes + 127) / 128 * 128;
}

// A swizzle on the address repeats every 2^(B+M+|S|) elements: the kernel places the tile at its
// base modulo that period (at least 128 bytes, the banks' period), so the hardware's addresses
// are the model's. kMaxAddressPeriod bounds the alignment asked of the compiler.
constexpr int64_t kMaxAddressPeriod = 4096;
int64_t address_period_bytes(const TileDecl& t) {
  if (!t.swizzle_on_address || t.swizzle.identity()) return 128;
  const int mag = std::abs(t.swizzle.shift);
  const int bits = t.swizzle.bits + t.swizzle.base + mag;
  if (bits > 24) return int64_t{1} << 40;  // refused by check_tiles_and_steps
  return std::max<int64_t>(128, (int64_t{1} << bits) * t.elem_bytes());
}

// Exposed mode: one replica's copy of a tile, the stride between copies: a multiple of 128
// bytes, or of the address swizzle's period with the tile at its base within it.
int64_t copy_lead_bytes(const TileDecl& t) {
  return t.swizzle_on_address ? t.base % address_period_bytes(t) : 0;
}
int64_t copy_bytes(const TileDecl& t) {
  if (!t.swizzle_on_address) return copy_stride_bytes(t.bytes());
  const int64_t p = address_period_bytes(t);
  return (copy_lead_bytes(t) + t.bytes() + p - 1) / p * p;
}

// The element type as the declaration spells it ("unsigned int").
std::string normalized_elem(const TileDecl& t) {
  const std::string d = t.declaration();  // "extern __shared__ unsigned int tile[];"
  const size_t from = d.find("__shared__ ") + std::string("__shared__ ").size();
  return d.substr(from, d.rfind(" " + t.name + "[") - from);
}

struct Names {
  std::string tid, sum, rep, zero;
};

// The swizzle function's call: on the address it also takes the tile, whose shared-memory
// address enters the swizzle ("tile_swizzle(offset, tile)").
std::string swizzle_call(const TileDecl& tile, const std::string& fn, const std::string& offset) {
  return fn + "(" + offset + (tile.swizzle_on_address ? ", " + tile.name : std::string()) + ")";
}

// "tile[threadIdx.y][threadIdx.x]" from the step's index text, whatever form the user wrote. A
// swizzled tile is declared flat and indexed as a CuTe user writes it: the row-major element
// offset, then the swizzle function: "tile[tile_swizzle((threadIdx.y) * 32 + (threadIdx.x))]".
// A CuTe-laid-out tile is declared flat over its image and indexed through its layout function
// (then its swizzle function): "tile[tile_swizzle(tile_layout(threadIdx.y, threadIdx.x))]".
std::string access_text(const TileDecl& tile, const SubscriptParse& p,
                        const std::string& swizzle_fn, const std::string& layout_fn) {
  std::string out = tile.name;
  if (!layout_fn.empty()) {
    std::string args;
    for (size_t i = 0; i < p.subscripts.size(); ++i)
      args += (i ? ", " : "") + p.subscripts[i].text();
    const std::string offset = layout_fn + "(" + args + ")";
    return out + "[" + (swizzle_fn.empty() ? offset : swizzle_call(tile, swizzle_fn, offset)) + "]";
  }
  if (swizzle_fn.empty()) {
    for (const Expr& e : p.subscripts) out += '[' + e.text() + ']';
    return out;
  }
  const std::vector<int64_t> d = tile.padded_dims();
  std::string offset;
  for (size_t i = 0; i < p.subscripts.size(); ++i) {
    int64_t stride = 1;
    for (size_t j = i + 1; j < d.size(); ++j) stride *= d[j];
    std::string term =
        p.subscripts.size() == 1 ? p.subscripts[i].text() : '(' + p.subscripts[i].text() + ')';
    if (stride != 1) term += " * " + std::to_string(stride);
    offset += (i ? " + " : "") + term;
  }
  return out + "[" + swizzle_call(tile, swizzle_fn, offset) + "]";
}

// CuTe's Swizzle<B,M,S> on element offsets as a device function (see tile.h): the B bits at
// M + max(0,S) are XORed into the B bits at M - min(0,S).
// The parameter is `offset` unless a constant (a #define) has that name.
std::string swizzle_source(const TileDecl& t, const std::string& fn,
                           const std::set<std::string>& taken) {
  const Swizzle& z = t.swizzle;
  const std::string off = pick("offset", taken);
  const uint64_t yyy = ((uint64_t{1} << z.bits) - 1) << (z.base + std::max(0, z.shift));
  const int from = z.base + std::max(0, z.shift), to = z.base - std::min(0, z.shift);
  char mask[32];
  std::snprintf(mask, sizeof mask, "0x%llxu", static_cast<unsigned long long>(yyy));
  const std::string moved =
      z.shift >= 0 ? '(' + off + " & " + std::string(mask) + ") >> " + std::to_string(z.shift)
                   : '(' + off + " & " + std::string(mask) + ") << " + std::to_string(-z.shift);
  if (t.swizzle_on_address) {
    // As CuTe's swizzle pointer and TMA do: the swizzle acts on the element's shared-memory
    // address (in elements here), so where the tile starts enters it.
    const std::string at = pick("at", taken), a = pick("address", taken), p = pick("tile0", taken);
    const std::string moved_a =
        z.shift >= 0 ? '(' + a + " & " + std::string(mask) + ") >> " + std::to_string(z.shift)
                     : '(' + a + " & " + std::string(mask) + ") << " + std::to_string(-z.shift);
    return "// " + t.name + " is laid out with CuTe's " + z.text() +
           " on its shared-memory address, as a swizzle pointer\n"
           "// and TMA apply it: bits " +
           std::to_string(from) + ".." + std::to_string(from + z.bits - 1) +
           " of the element's address (in " + std::to_string(t.elem_bytes()) +
           "-byte elements) are XORed into\n// bits " + std::to_string(to) + ".." +
           std::to_string(to + z.bits - 1) + ", so the tile's base enters the swizzle.\n" +
           "__device__ __forceinline__ unsigned int " + fn + "(unsigned int " + off +
           ", const void* " + p + ")\n{\n    const unsigned int " + at +
           " = (unsigned int)__cvta_generic_to_shared(" + p + ") / " +
           std::to_string(t.elem_bytes()) + "u;\n    const unsigned int " + a + " = " + at + " + " +
           off + ";\n    return (" + a + " ^ (" + moved_a + ")) - " + at + ";\n}\n";
  }
  return "// " + t.name + " is laid out with CuTe's " + z.text() + " on element offsets: bits " +
         std::to_string(from) + ".." + std::to_string(from + z.bits - 1) +
         (t.cute ? " of the layout's offset are XORed\n" : " of the row-major offset are XORed\n") +
         "// into bits " + std::to_string(to) + ".." + std::to_string(to + z.bits - 1) +
         ", so every access goes through " + fn +
         "() (the picture shows the same mapping).\n"
         "__device__ __forceinline__ unsigned int " +
         fn + "(unsigned int " + off +
         ")\n"
         "{\n"
         "    return " +
         off + " ^ (" + moved +
         ");\n"
         "}\n";
}

// A CuTe layout as a device function of the tile's subscripts, numbers only (layout.h): each
// subscript is split colexicographically over its mode's shape (i % s0, i / s0 % s1, ...,
// i / (s0 * ... * s_{n-2})) and the parts are multiplied by the strides. Every term stays below
// the cosize (strides are not negative where a mode has more than one value: TileDecl::check).
std::string layout_expression(const CuteLayout& l, const std::vector<std::string>& param) {
  std::string out;
  for (size_t m = 0; m < l.leaves.size(); ++m) {
    const std::string& i = param[m];
    int64_t below = 1;  // product of the shapes before this leaf in its mode
    for (size_t k = 0; k < l.leaves[m].size(); ++k) {
      const LayoutLeaf& x = l.leaves[m][k];
      const bool last = k + 1 == l.leaves[m].size();
      std::string part = below == 1 ? i : i + " / " + std::to_string(below);
      if (!last) part += " % " + std::to_string(x.shape);
      below *= x.shape;
      if (x.stride == 0 || (x.shape == 1 && !last)) continue;
      if (part != i) part = '(' + part + ')';
      out += (out.empty() ? "" : " + ") + part +
             (x.stride == 1 ? std::string() : " * " + std::to_string(x.stride));
    }
  }
  return out.empty() ? "0" : out;
}

// The parameters are i0, i1, i2, unless a constant (a #define) has that name.
std::string layout_source(const TileDecl& t, const std::string& fn,
                          const std::set<std::string>& taken) {
  const CuteLayout& l = *t.cute;
  std::vector<std::string> param;
  std::string params;
  for (size_t m = 0; m < l.modes.size(); ++m) {
    param.push_back(pick(std::string(1, 'i') + std::to_string(m), taken));
    params += (m ? ", int " : "int ") + param.back();
  }
  return "// " + t.name + " is laid out with CuTe's " + l.text() +
         ": each subscript is split over its mode's\n"
         "// shape (first sub-mode fastest) and the parts times the strides give the element "
         "offset (the picture\n"
         "// shows the same mapping); the array is declared flat over the layout's " +
         std::to_string(l.cosize()) +
         " elements.\n"
         "__device__ __forceinline__ int " +
         fn + "(" + params +
         ")\n"
         "{\n"
         "    return " +
         layout_expression(l, param) +
         ";\n"
         "}\n";
}

// The value a store writes: the user's expression or the thread's linear index, as the element
// type: a vector gets value, value + 1, ... in its components.
std::string store_value(const ElemType& t, const std::string& value) {
  if (t.lanes == 1) return value;
  const bool simple = std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum((unsigned char)c) || c == '_';
  });
  const std::string v = simple ? value : "(" + value + ")";
  std::string args;
  for (int i = 0; i < t.lanes; ++i)
    args += (i ? ", " : "") + (i ? v + " + " + std::to_string(i) : v);
  return std::string(t.make) + "(" + args + ")";
}

}  // namespace

// [SECTION] generate_kernel() ====================================================================

std::string kernel_name_for(const Scenario& s) {
  // A title that starts with the seed's kernel name ("setRowReadCol: row write, column read")
  // names the kernel as the seed did.
  if (const size_t colon = s.title.find(':'); colon != std::string::npos && colon > 0) {
    const std::string seed = s.title.substr(0, colon);
    if (is_valid_name(seed) && !is_reserved(seed)) return seed;
  }
  std::string out;
  bool upper = false;
  for (char c : s.name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    } else {
      upper = !out.empty();
    }
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "kernel_" + out;
  if (is_reserved(out) || !is_valid_name(out)) out += "_kernel";
  return out;
}

namespace {

// The text of one memory step: where it accesses (the element as the kernel spells it), the value
// it writes, its statement (a block around the instruction's PTX for ldmatrix/stmatrix/cp.async,
// whose lines are `wide`).
struct StepText {
  std::string where, value, stmt;
  std::vector<std::string> wide;
};

// generate_kernel() in parts, each one purpose: the checks a kernel needs beyond core's check(),
// what the source needs (helpers, names), then the source top to bottom.
struct Generator {
  Generator(const Scenario& sc, RunMode m, int r)
      : s(sc), mode(m), replicas(r), exposed(m == RunMode::Exposed) {}

  const Scenario& s;
  RunMode mode;
  int replicas;
  bool exposed;
  GenerateResult res;
  std::set<std::string> taken;  // names the user took, and the ones picked for generated code
  int64_t static_bytes = 0, dynamic_bytes = 0;
  bool need_fp16 = false, need_bf16 = false;
  std::vector<CType> let_types;
  bool has_matrix = false, has_copy = false, uses_hash = false;
  std::vector<std::string> swizzle_fn, layout_fn;  // per tile; empty: none
  std::vector<std::string> copies, structs;        // exposed mode: per tile
  Names names;
  KernelSource k;
  Emitter e;

  void fail(std::string path, std::string message) {
    res.errors.push_back({std::move(path), 0, std::move(message)});
  }
  void check_names();
  bool check_tiles_and_steps();
  bool scan();
  void start();
  void emit_helpers();
  void emit_lesson_thread();
  void emit_copy_structs();
  void emit_kernel_head();
  void emit_written_tiles();
  StepText step_text(const Step& st) const;
  void emit_wrapped(const Step& st, int indent, const std::vector<std::string>& body);
  void emit_step(size_t i);
  void emit_measured_load(size_t i, const Step& st, const StepText& t);
  // The measured step's loop of kLoadBatch-wide batches (`body`), run when this launch measures
  // step i, else the step once (`stmt`); `prelude` opens the measured branch (may be empty).
  void emit_batched(size_t i, const Step& st, const std::vector<std::string>& body,
                    const std::string& stmt, const std::string& prelude);
  void emit_measured_batch(size_t i, const Step& st, const StepText& t);
  void finish();
};

void Generator::check_names() {
  // Names the user took: constants, lets, loop variables.
  for (size_t i = 0; i < s.constants.size(); ++i) {
    taken.insert(s.constants[i].name);
    if (breaks_as_macro(s.constants[i].name))
      fail("constants[" + std::to_string(i) + "].name",
           "'" + s.constants[i].name +
               "' would be a #define that breaks the generated kernel "
               "(it uses that name itself); rename the constant");
  }
  for (size_t i = 0; i < s.lets.size(); ++i) {
    taken.insert(s.lets[i].name);
    if (is_reserved(s.lets[i].name))
      fail("lets[" + std::to_string(i) + "].name",
           "'" + s.lets[i].name + "' is a name the generated kernel uses itself; rename the let");
  }
  for (const Step& st : s.steps)
    if (!st.loop_var.empty()) taken.insert(st.loop_var);
  for (const TileDecl& t : s.tiles) taken.insert(t.name);
}

bool Generator::check_tiles_and_steps() {
  // Types, dynamic tiles, atomics.
  int dynamic_tiles = 0;
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    const TileDecl& t = s.tiles[i];
    need_fp16 |= t.type().comp_kind == CompKind::F16;
    need_bf16 |= t.type().comp_kind == CompKind::BF16;
    if (is_reserved(t.name))
      fail("tiles[" + std::to_string(i) + "].name",
           "'" + t.name + "' is a name the generated kernel uses itself");
    if (address_period_bytes(t) > kMaxAddressPeriod)
      fail("tiles[" + std::to_string(i) + "].swizzle",
           t.swizzle.text() + " on the address repeats every " +
               std::to_string(address_period_bytes(t)) +
               " bytes or more: the generated kernels place a tile modulo at most " +
               std::to_string(kMaxAddressPeriod) + " bytes");
    if (t.dynamic) {
      ++dynamic_tiles;
      dynamic_bytes = t.bytes();
      if (t.base != 0)
        fail("tiles[" + std::to_string(i) + "].base",
             "a dynamic tile (extern __shared__) always starts at byte 0 of the block's shared "
             "memory; the kernel cannot place it at byte " +
                 std::to_string(t.base));
    } else {
      static_bytes += t.bytes();
    }
  }
  if (dynamic_tiles > 1)
    fail("tiles",
         "more than one extern __shared__ tile: every one would start at byte 0 and "
         "overlap the others");
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    if (st.info().access != StepAccess::Add) continue;
    const TileDecl* t = s.find_tile(st.tile);
    const ElemType* ti = t ? &t->type() : nullptr;
    if (ti && !ti->atomic) fail("steps[" + std::to_string(i) + "].kind", atomic_problem(*ti));
  }
  if (mode == RunMode::Exposed && (replicas < 1 || replicas > 32))
    fail("replicas", "an exposed kernel holds 1 to 32 copies of the lesson's warps, got " +
                         std::to_string(replicas));
  return res.errors.empty();
}

bool Generator::scan() {
  // Lets are declared with the type the model gives them (trace.h): their own, or their
  // expression's C type, so `unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;` as the
  // seeds write it, and `int row = (int)threadIdx.x - 1;` where the expression is signed.
  let_types = bankviz::let_types(s);
  if (let_types.size() < s.lets.size()) {
    fail("lets[" + std::to_string(let_types.size()) + "].expr",
         "the let's names do not bind (see analyze)");
    return false;
  }

  // ldmatrix/stmatrix and cp.async steps: their helpers, and the input cp.async copies from.
  for (const Step& st : s.steps) {
    has_matrix |= is_matrix_kind(st.kind);
    has_copy |= st.info().width == StepWidth::Copy;
  }

  auto scan_hash = [&](const std::string& t) {
    if (t.empty()) return;
    const ExprParse p = parse_expr(t);
    uses_hash |= p.expr && p.expr->uses_function("hash");
  };
  for (const Let& l : s.lets) scan_hash(l.expr);
  for (const Step& st : s.steps) {
    scan_hash(st.guard), scan_hash(st.value), scan_hash(st.source);
    for (const Expr& x : parse_subscripts(st.index, "").subscripts)
      uses_hash |= x.uses_function("hash");
  }

  // Swizzled tiles: one swizzle function each.
  swizzle_fn.assign(s.tiles.size(), {});
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    if (s.tiles[i].swizzle.identity()) continue;
    swizzle_fn[i] = pick(s.tiles[i].name + "_swizzle", taken);
    taken.insert(swizzle_fn[i]);
  }
  // CuTe-laid-out tiles: one layout function each.
  layout_fn.assign(s.tiles.size(), {});
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    if (!s.tiles[i].cute) continue;
    layout_fn[i] = pick(s.tiles[i].name + "_layout", taken);
    taken.insert(layout_fn[i]);
  }
  names = Names{pick("tid", taken), pick("sum", taken), pick("rep", taken), pick("z", taken)};
  return true;
}

void Generator::start() {
  k.mode = mode;
  k.kernel_name = kernel_name_for(s) + (exposed ? "_exposed" : "");
  k.file_name = k.kernel_name + ".cu";
  k.user_source = false;  // bankviz's own text: no user text becomes code
  k.static_shared_bytes = static_bytes;
  k.dynamic_shared_bytes = dynamic_bytes;
  if (exposed) {
    // One copy of every tile per replica, each rounded up to a multiple of 128 bytes (below).
    k.replicas = replicas;
    k.static_shared_bytes = k.dynamic_shared_bytes = 0;
    for (const TileDecl& t : s.tiles)
      (t.dynamic ? k.dynamic_shared_bytes : k.static_shared_bytes) += replicas * copy_bytes(t);
  }
  k.step_line.assign(s.steps.size(), 0);

  // Header comment: what this is and how it is launched.
  e.ln(0, "// " + k.kernel_name + ": generated by bankviz from scenario \"" + comment_text(s.name) +
              "\".");
  if (!comment_text(s.title).empty()) e.ln(0, "// " + comment_text(s.title));
  e.ln(0, std::string("// Mode: ") +
              (exposed ? "exposed (the measured step repeats `reps` times on every SM)."
                       : "as written (the lesson's launch)."));
  e.ln(0, "// Block: " + std::to_string(s.block[0]) + " x " + std::to_string(s.block[1]) + " x " +
              std::to_string(s.block[2]) + " threads; shared memory: " +
              std::to_string(static_bytes + dynamic_bytes) + " bytes" +
              (dynamic_bytes ? " (" + std::to_string(dynamic_bytes) + " dynamic)" : "") + ".");
  e.ln(0, "// Output: one unsigned int per thread, the sum of what it loaded, checked on the CPU.");
  if (need_fp16) e.ln(0, "#include <cuda_fp16.h>");
  if (need_bf16) e.ln(0, "#include <cuda_bf16.h>");
  e.ln(0, "");
  for (const Constant& c : s.constants) {
    // The literal's type is the constant's type (Constant::type()): int, or long long beyond.
    std::string v = std::to_string(c.value) + (c.type() == CType::LongLong ? "LL" : "");
    if (c.value == INT64_MIN)
      v = "(-9223372036854775807LL - 1)";
    else if (c.value < 0)
      v = "(" + v + ")";
    e.ln(0, "#define " + c.name + " " + v);
  }
  if (!s.constants.empty()) e.ln(0, "");
}

void Generator::emit_helpers() {
  // bits() overloads for the element types that need one.
  std::set<std::string> emitted;
  std::string overloads;
  for (const TileDecl& t : s.tiles) {
    const ElemType& ti = t.type();
    if (ti.plain_sum()) continue;
    const std::string comp(ti.comp);
    if (emitted.insert(comp).second) overloads += bits_overload(ti);
    if (ti.lanes > 1 && emitted.insert(std::string(ti.overload)).second)
      overloads += vector_bits_overload(ti, std::string(ti.overload));
  }
  if (!overloads.empty()) {
    e.ln(0, "// bits(): a loaded value's bits folded to 32, summed into the thread's checksum.");
    e.put(overloads);
    e.ln(0, "");
  }
  if (uses_hash) {
    e.put(kHashSource);
    e.ln(0, "");
  }
  if (has_matrix) {
    e.put(kMatrixSource);
    std::set<std::string> b16;
    for (const Step& st : s.steps) {
      if (st.kind != StepKind::StMatrix) continue;
      const ElemType& ti = s.find_tile(st.tile)->type();
      if (b16.insert(std::string(ti.comp)).second) e.put(b16_bits_source(ti));
    }
    e.ln(0, "");
  }
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    if (!layout_fn[i].empty()) {
      e.put(layout_source(s.tiles[i], layout_fn[i], taken));
      e.ln(0, "");
    }
    if (swizzle_fn[i].empty()) continue;
    e.put(swizzle_source(s.tiles[i], swizzle_fn[i], taken));
    e.ln(0, "");
  }
  if (exposed) {
    e.put(kVolatileSource);
    e.ln(0, "");
    e.ln(0,
         "// Copies of the lesson's warps per launched block, each with its own copy of every "
         "tile.");
    e.ln(0, "#define REPLICAS " + std::to_string(replicas));
    e.ln(0, "");
  }
}

void Generator::emit_lesson_thread() {
  const std::string bx = std::to_string(s.block[0]), by = std::to_string(s.block[1]),
                    bz = std::to_string(s.block[2]);
  if (!exposed) return;
  {
    // The lesson's thread a lane of the (smaller) launched block plays; see the kernel's comment.
    e.ln(0, "// Exposed mode: bit w of `warps` set = warp w of the lesson's " + bx + " x " + by +
                " x " + bz + " block runs,");
    e.ln(0,
         "// played by the next warp of the launched block. lesson_thread() is the lesson's "
         "thread that");
    e.ln(0, "// this lane plays (the launch's own ::threadIdx picks it).");
    e.ln(0,
         "// Replicas: when few of the lesson's warps run, the launched block holds REPLICAS "
         "copies of them");
    e.ln(0,
         "// (the masked warps, then the same warps again), because an SM holds at most 32 "
         "blocks: one warp");
    e.ln(0,
         "// per block would leave it half empty. A warp's bank cost depends only on its own "
         "lane addresses.");
    e.ln(0,
         "// Copy `replica` works on its own copy of every tile (see the kernel), so the "
         "copies never touch");
    e.ln(0, "// each other's data: each computes exactly what the lesson's warps compute alone.");
    e.ln(0, "__device__ uint3 lesson_thread(unsigned int warps)");
    e.ln(0, "{");
    e.ln(1, "const unsigned int replica_warp = ::threadIdx.x / 32 % __popc(warps);");
    e.ln(1,
         "const unsigned int lesson_warp = __fns(warps, 0, replica_warp + 1);  // n-th set "
         "bit");
    e.ln(1, "const unsigned int lesson_tid = lesson_warp * 32 + ::threadIdx.x % 32;");
    if (s.block[1] == 1 && s.block[2] == 1)
      e.ln(1, "return make_uint3(lesson_tid, 0, 0);");
    else
      e.ln(1, "return make_uint3(lesson_tid % " + bx + ", lesson_tid / " + bx + " % " + by +
                  ", lesson_tid / (" + bx + " * " + by + "));");
    e.ln(0, "}");
    e.ln(0, "");
  }
}

void Generator::emit_copy_structs() {
  // Exposed mode: the tiles become per-replica copies (see copy_struct_name()).
  copies.assign(s.tiles.size(), {});
  structs.assign(s.tiles.size(), {});
  if (exposed) {
    for (size_t i = 0; i < s.tiles.size(); ++i) {
      const TileDecl& t = s.tiles[i];
      copies[i] = pick(t.name + "_copies", taken);
      taken.insert(copies[i]);
      if (t.dynamic) continue;
      std::string st = t.name;
      st[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(st[0])));
      structs[i] = pick(st + "Copy", taken);
      taken.insert(structs[i]);
      // "__shared__ int tile[32][32 + 1];" -> "int v[32][32 + 1];"
      std::string member = t.declaration().substr(std::string("__shared__ ").size());
      member.replace(member.find(" " + t.name + "[") + 1, t.name.size(), "v");
      e.ln(0, "// One replica's copy of " + t.name +
                  ": alignas(128) makes its size (the stride between copies) a multiple");
      e.ln(0,
           "// of 128 bytes = 32 banks x 4 bytes: element i of every copy sits in the same bank "
           "as element i");
      e.ln(0, "// of the lesson's tile, so every warp sees exactly the lesson's bank conflicts.");
      const int64_t lead = copy_lead_bytes(t);
      if (t.swizzle_on_address)
        e.ln(0, "// Its swizzle acts on the address: each copy starts on a multiple of " +
                    std::to_string(address_period_bytes(t)) + " bytes and holds the tile " +
                    std::to_string(lead) + " bytes in, as its base says.");
      e.ln(0, "struct alignas(" + std::to_string(address_period_bytes(t)) + ") " + structs[i] +
                  " { " +
                  (lead > 0 ? "unsigned char at[" + std::to_string(lead) + "]; " : std::string()) +
                  member + " };");
    }
    e.ln(0, "");
  }
}

// Written mode: the tiles as declared. When a tile's swizzle acts on the address, where the
// tile starts decides where its elements go, so the static tiles are placed at their bases in
// one byte array instead of where the compiler would put them.
void Generator::emit_written_tiles() {
  int64_t end = 0, align = 128;
  bool place = false;
  for (const TileDecl& t : s.tiles) {
    if (t.dynamic) continue;
    place |= t.swizzle_on_address && !t.swizzle.identity();
    end = std::max(end, t.base + t.bytes());
    align = std::max(align, address_period_bytes(t));
  }
  if (!place) {
    for (const TileDecl& t : s.tiles) e.ln(1, t.declaration());
    return;
  }
  const std::string raw = pick("tiles_at", taken);
  taken.insert(raw);
  e.ln(1, "// A swizzle on the address: every static tile at its base (in bytes) in one array.");
  e.ln(1, "__shared__ __align__(" + std::to_string(align) + ") unsigned char " + raw + "[" +
              std::to_string(end) + "];");
  for (const TileDecl& t : s.tiles) {
    const std::string d = t.declaration();  // "__shared__ int tile[32 * 32];"
    if (t.dynamic) {
      e.ln(1, d);
      continue;
    }
    const std::string elem = normalized_elem(t);
    const size_t at = d.find(" " + t.name + "[") + 1 + t.name.size();
    const std::string extents = d.substr(at, d.size() - at - 1);  // "[32 * 32]"
    e.ln(1, elem + " (&" + t.name + ")" + extents + " = *reinterpret_cast<" + elem + " (*)" +
                extents + ">(" + raw + " + " + std::to_string(t.base) + ");");
  }
}

void Generator::emit_kernel_head() {
  const std::string bx = std::to_string(s.block[0]), by = std::to_string(s.block[1]),
                    bz = std::to_string(s.block[2]);
  k.has_input = has_copy;
  e.ln(0, "__global__ void " + k.kernel_name + "(unsigned int* out" +
              (has_copy ? ", const unsigned int* in" : "") +
              (exposed ? ", int measure, int reps, unsigned int warps" : "") + ")");
  e.ln(0, "{");
  if (!exposed) emit_written_tiles();
  if (exposed) {
    e.ln(1,
         "// Each replica (copy of the lesson's warps in this block) has its own copy of every "
         "tile, so");
    e.ln(1,
         "// replicas never read or overwrite each other's elements (no race between them); "
         "a reference");
    e.ln(1, "// of the lesson's tile name is this warp's copy, so the accesses read as written.");
    e.ln(1, "const unsigned int replica = ::threadIdx.x / 32 / __popc(warps);");
    for (size_t i = 0; i < s.tiles.size(); ++i) {
      const TileDecl& t = s.tiles[i];
      if (t.dynamic) {
        const std::string elem = normalized_elem(t);
        const int64_t stride = copy_bytes(t) / t.elem_bytes();
        e.ln(1, "extern __shared__ __align__(" + std::to_string(address_period_bytes(t)) + ") " +
                    elem + " " + copies[i] + "[];  // REPLICAS copies, " + std::to_string(stride) +
                    " elements (a multiple of 128 bytes) apart");
        e.ln(1, elem + "* const " + t.name + " = " + copies[i] + " + replica * " +
                    std::to_string(stride) + ";");
      } else {
        e.ln(1, "__shared__ " + structs[i] + " " + copies[i] + "[REPLICAS];");
        e.ln(1, "auto& " + t.name + " = " + copies[i] + "[replica].v;");
      }
    }
    e.ln(1,
         "// A warp's shared-memory cost depends only on its own 32 lane addresses, so this "
         "launch runs");
    e.ln(1,
         "// only the lesson's warps that the measured step uses (`warps`), each block as "
         "small as that,");
    e.ln(1,
         "// and fits many blocks on every SM: a step that only warp 0 of the lesson's block "
         "executes");
    e.ln(1,
         "// (a guard like `cacheIndex < 32`) still has enough warps per SM to keep the "
         "shared-memory");
    e.ln(1,
         "// pipe busy. threadIdx and blockDim below are the lesson's (they shadow the "
         "launch's), so");
    e.ln(1,
         "// every access reads exactly as in the lesson; the launch's own are ::threadIdx, "
         "::blockDim.");
    e.ln(1, "const uint3 threadIdx = lesson_thread(warps);");
    e.ln(1, "const dim3 blockDim(" + bx + ", " + by + ", " + bz + ");");
    if (uses_block_index(s)) {
      // Blocks that differ (a histogram's bins): every launched block plays the lesson's block
      // 0, the block the model and the prediction are of, so every SM does the same work (each
      // launched block its own data left the slowest SM 7.7% over the mean on an H100).
      e.ln(1,
           "// Every launched block plays the lesson's block 0 (the one the model shows), so "
           "every SM");
      e.ln(1, "// does the same work; the launch's own index is ::blockIdx.");
      e.ln(1, "const uint3 blockIdx = make_uint3(0, 0, 0);");
      e.ln(1, "const dim3 gridDim(" + std::to_string(std::max<int64_t>(1, s.grid)) + ", 1, 1);");
    }
  }
  const bool is1d = s.block[1] == 1 && s.block[2] == 1;
  const bool is2d = !is1d && s.block[2] == 1;
  const std::string tid_expr =
      is1d   ? "threadIdx.x"
      : is2d ? "threadIdx.y * blockDim.x + threadIdx.x"
             : "(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x";
  // A let that already is the linear thread index (the seeds' idx) serves as the default value.
  auto squeeze = [](std::string t) {
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return t;
  };
  bool tid_is_let = false;
  for (size_t i = 0; i < s.lets.size() && !tid_is_let; ++i) {
    if (squeeze(s.lets[i].expr) == squeeze(tid_expr) && let_types[i] == CType::UInt) {
      names.tid = s.lets[i].name;
      tid_is_let = true;
    }
  }
  if (!tid_is_let) e.ln(1, "unsigned int " + names.tid + " = " + tid_expr + ";");
  for (size_t i = 0; i < s.lets.size(); ++i)
    e.ln(1, std::string(ctype_name(let_types[i])) + " " + s.lets[i].name + " = " +
                parse_expr(s.lets[i].expr).expr->text() + ";");
  e.ln(1, "unsigned int " + names.sum + " = 0;");
  e.ln(0, "");
}

StepText Generator::step_text(const Step& st) const {
  StepText t;
  const TileDecl& tile = *s.find_tile(st.tile);
  const ElemType& ti = tile.type();
  const size_t ti_index = static_cast<size_t>(&tile - s.tiles.data());
  t.where = access_text(tile, parse_subscripts(st.index, tile.name), swizzle_fn[ti_index],
                        layout_fn[ti_index]);
  t.value = st.value.empty() ? names.tid : parse_expr(st.value).expr->text();
  const std::string& where = t.where;
  const std::string& value = t.value;
  std::string& stmt = t.stmt;
  std::vector<std::string>& wide = t.wide;
  // The statement as the table writes it (kinds.h); exposed mode reads and writes through
  // ld_volatile / st_volatile.
  const StepKindInfo& kind = st.info();
  if (exposed && kind.kind == StepKind::Store) {
    stmt = "st_volatile(" + where + ", " + store_value(ti, value) + ");";
  } else if (!kind.written.empty()) {
    std::string at =
        exposed && kind.access == StepAccess::Read ? "ld_volatile(" + where + ")" : where;
    if (kind.access == StepAccess::Read && !ti.plain_sum()) at = "bits(" + at + ")";
    stmt = written_statement(kind, at, store_value(ti, value), names.sum);
  }
  // ldmatrix / stmatrix / cp.async: a block of statements around the instruction's PTX. Only
  // the lanes that give a row address evaluate the index, as the model does (trace.h: lanes
  // 0..8N-1 of an .x1 or .x2; the other lanes' addresses are not read by the instruction): an
  // index the model never evaluates on lane 8 must not run there (a division by zero, say).
  const uint32_t address_lanes = st.op(tile.elem_bytes()).lanes(~0u);
  const std::string address = "(unsigned int)__cvta_generic_to_shared(&" + where + ")";
  if (is_matrix_kind(st.kind) && address_lanes != ~0u)
    wide.push_back("const unsigned int addr = " + names.tid + " % 32 < " +
                   std::to_string(std::popcount(address_lanes)) + " ? " + address +
                   " : 0u;  // lanes 0-" + std::to_string(std::popcount(address_lanes) - 1) +
                   " give the rows");
  else if (is_matrix_kind(st.kind) || st.kind == StepKind::CpAsync)
    wide.push_back("const unsigned int addr = " + address + ";");
  if (st.kind == StepKind::LdMatrix) {
    std::vector<std::string> regs;
    std::string add;
    const char* fold = ti.comp_kind == CompKind::SInt ? "s16_sum(" : "b16_sum(";
    for (int m = 0; m < st.matrices; ++m) {
      regs.push_back('r' + std::to_string(m));
      add += std::string(m ? " + " : "") + fold + regs.back() + ")";
    }
    std::string decl = "unsigned int ";
    for (size_t r = 0; r < regs.size(); ++r) decl += (r ? ", " : "") + regs[r];
    wide.push_back(decl + ";");
    wide.push_back(matrix_asm(st, regs));
    wide.push_back(names.sum + " += " + add + ";");
  } else if (st.kind == StepKind::StMatrix) {
    // Register m holds value + 2m (low half) and value + 2m + 1 (high), as reference.h says.
    const bool simple = std::all_of(value.begin(), value.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    const std::string v = simple ? value : "(" + value + ")";
    const std::string comp(ti.comp);
    auto half = [&](int n) {
      return "b16_bits((" + comp + ")" + (n == 0 ? v : "(" + v + " + " + std::to_string(n) + ")") +
             ")";
    };
    std::vector<std::string> regs;
    for (int m = 0; m < st.matrices; ++m) {
      regs.push_back('r' + std::to_string(m));
      wide.push_back("const unsigned int " + regs.back() + " = " + half(2 * m) + " | (" +
                     half(2 * m + 1) + " << 16);");
    }
    wide.push_back(matrix_asm(st, regs));
  } else if (st.kind == StepKind::CpAsync) {
    // The chunk it copies: the step's "source" (checked by the model to lie in the input,
    // kSourceBytes), or the thread's linear index (coalesced). Inline, so a kernel without a
    // source is the one it always was (its lines are test data: tests/data/compiled).
    const std::string chunk =
        st.source.empty() ? names.tid
                          : "(unsigned long long)(" + parse_expr(st.source).expr->text() + ")";
    wide.push_back("asm volatile(\"" + std::string(kind.ptx) + " [%0], [%1], " +
                   std::to_string(st.copy_bytes) +
                   ";\" :: \"r\"(addr), \"l\"(__cvta_generic_to_global(in + " +
                   std::to_string(st.copy_bytes / 4) + " * " + chunk + ")) : \"memory\");");
    wide.push_back("asm volatile(\"cp.async.wait_all;\" ::: \"memory\");");
  }
  if (!wide.empty()) {
    stmt = "{";
    for (const std::string& l : wide) stmt += "\n    " + l;
    stmt += "\n}";
  }
  return t;
}

// The step's own loop and guard around some statements.
void Generator::emit_wrapped(const Step& st, int indent, const std::vector<std::string>& body) {
  if (!st.loop_var.empty()) {
    const bool up = st.loop_step > 0;
    const std::string step_text =
        up ? (st.loop_step == 1 ? "++" + st.loop_var
                                : st.loop_var + " += " + std::to_string(st.loop_step))
           : (st.loop_step == -1 ? "--" + st.loop_var
                                 : st.loop_var + " -= " + std::to_string(-st.loop_step));
    e.ln(indent, "for (int " + st.loop_var + " = " + std::to_string(st.loop_from) + "; " +
                     st.loop_var + (up ? " < " : " > ") + std::to_string(st.loop_to) + "; " +
                     step_text + ") {");
    ++indent;
  }
  if (!st.guard.empty()) {
    e.ln(indent, "if (" + parse_expr(st.guard).expr->text() + ") {");
    for (const std::string& b : body) e.ln(indent + 1, b);
    e.ln(indent, "}");
  } else {
    for (const std::string& b : body) e.ln(indent, b);
  }
  if (!st.loop_var.empty()) e.ln(--indent, "}");
}

void Generator::emit_step(size_t i) {
  const Step& st = s.steps[i];
  k.step_line[i] = e.line;
  if (!st.is_memory()) {
    e.ln(1, written_statement(st.info(), "", "", ""));
    return;
  }
  const StepText t = step_text(st);
  const std::string comment = "// step " + std::to_string(i) + ": " + st.kind_text() +
                              (st.label.empty() ? "" : " (" + comment_text(st.label) + ")");
  e.ln(1, comment);
  k.step_line[i] = e.line;
  if (!exposed) {
    emit_wrapped(st, 1, {t.stmt});
  } else if (st.kind == StepKind::Load) {
    emit_measured_load(i, st, t);
  } else if (st.kind == StepKind::LdMatrix || st.kind == StepKind::CpAsync) {
    emit_measured_batch(i, st, t);
  } else {
    e.ln(1, "#pragma unroll 16");
    e.ln(1, "for (int " + names.rep + " = 0; " + names.rep + " < (measure == " + std::to_string(i) +
                " ? reps : 1); ++" + names.rep + ") {");
    emit_wrapped(st, 2, {t.stmt});
    e.ln(1, "}");
  }
}

void Generator::emit_measured_load(size_t i, const Step& st, const StepText& t) {
  const std::string& where = t.where;
  const std::string& stmt = t.stmt;
  const ElemType& ti = s.find_tile(st.tile)->type();
  // Measured load: kLoadBatch independent loads before their sum, so each warp keeps that
  // many in flight; one load followed by its add would stall the warp for the load's whole
  // latency (~30 cycles) and a step with few active warps would measure latency, not banks.
  // A signed char or short adds its bits as loaded (ElemType::sign_extends(); the CPU reference
  // sums the measured step's so too), sparing the sign extension.
  const std::string read =
      std::string(ti.sign_extends() ? "ld_volatile_bits(" : "ld_volatile(") + where + ")";
  std::vector<std::string> body;
  std::string total;
  for (int b = 0; b < kLoadBatch; ++b) {
    const std::string v = 'v' + std::to_string(b);
    body.push_back("const auto " + v + " = " + read + ";");
    total += (b ? " + " : "") + (ti.plain_sum() ? v : "bits(" + v + ")");
  }
  body.push_back(names.sum + " += " + total + ";");
  emit_batched(i, st, body, stmt, "");
}

void Generator::emit_batched(size_t i, const Step& st, const std::vector<std::string>& body,
                             const std::string& stmt, const std::string& prelude) {
  e.ln(1, "if (measure == " + std::to_string(i) + ") {");
  if (!prelude.empty()) e.ln(2, prelude);
  e.ln(2, "for (int " + names.rep + " = 0; " + names.rep + " < reps; " + names.rep +
              " += " + std::to_string(kLoadBatch) + ") {");
  emit_wrapped(st, 3, body);
  e.ln(2, "}");
  e.ln(1, "} else {");
  emit_wrapped(st, 2, {stmt});
  e.ln(1, "}");
}

void Generator::emit_measured_batch(size_t i, const Step& st, const StepText& t) {
  const std::string& stmt = t.stmt;
  const std::vector<std::string>& wide = t.wide;
  // Measured ldmatrix: kLoadBatch independent instructions before their sum, as for loads.
  // ptxas removes a repeated ldmatrix of an unchanged address (no store between them; an H100
  // measured 0.08 cycles per 32-wavefront ldmatrix), so each repeat's address adds
  // (rep + b) * z, z a zero the compiler cannot know (reps >> 30: the loop's own guard
  // proves reps >> 31 zero, and ptxas merged them again): every address of the unrolled loop is
  // a different expression of the same value. (rep & z) + b * z was not: ptxas knows z is 0 or
  // 16 and unrolled ldmatrix.x1's loop 4 times, where batch j + 1's instruction b had batch j's
  // address b + 1 (rep & z is 0 every other batch); it kept 49 of each 64 LDSM (cuobjdump on an
  // H100), and the counters read 0.766 of the planned instructions. The registers are summed as
  // they are (reference.h
  // does the same for the measured step): folding each half would cost more issue slots than
  // a conflict-free ldmatrix.x1 takes in the shared pipe.
  // Measured cp.async: kLoadBatch copies in flight, then one wait for all of them.
  std::vector<std::string> body{wide.front()};
  if (st.kind == StepKind::LdMatrix)
    body.push_back("const unsigned int at = addr + (unsigned int)" + names.rep + " * " +
                   names.zero + ";");
  std::string total;
  for (int b = 0; b < kLoadBatch; ++b) {
    if (st.kind == StepKind::CpAsync) {
      body.push_back(wide[1]);
      continue;
    }
    std::vector<std::string> regs;
    std::string decl = "unsigned int ";
    for (int m = 0; m < st.matrices; ++m) {
      regs.push_back('r' + std::to_string(m) + '_' + std::to_string(b));
      decl += (m ? ", " : "") + regs.back();
      total += std::string(total.empty() ? "" : " + ") + regs.back();
    }
    body.push_back(decl + ";");
    body.push_back(
        matrix_asm(st, regs, b == 0 ? "at" : "at + " + std::to_string(b) + " * " + names.zero));
  }
  if (st.kind == StepKind::CpAsync)
    body.push_back(wide[2]);
  else
    body.push_back(names.sum + " += " + total + ";");
  emit_batched(i, st, body, stmt,
               st.kind == StepKind::LdMatrix
                   ? "const unsigned int " + names.zero +
                         " = (unsigned int)reps >> 30 << 4;  // 0: reps <= 2^24 (the runner's "
                         "limit)"
                   : "");
}

void Generator::finish() {
  e.ln(0, "");
  if (exposed) {
    e.ln(1, "out[::blockIdx.x * ::blockDim.x + ::threadIdx.x] = " + names.sum +
                ";  // one output per lane that ran");
  } else
    e.ln(1, "out[blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + " + names.tid +
                "] = " + names.sum + ";");
  e.ln(0, "}");
  k.text = std::move(e.text);
  res.kernel = std::move(k);
}

}  // namespace

GenerateResult generate_kernel(const Scenario& s, RunMode mode, int replicas) {
  Generator g(s, mode, replicas);
  g.res.errors = check(s);
  if (!g.res.errors.empty()) return g.res;
  g.check_names();
  if (!g.check_tiles_and_steps() || !g.scan()) return g.res;
  g.start();
  g.emit_helpers();
  g.emit_lesson_thread();
  g.emit_copy_structs();
  g.emit_kernel_head();
  for (size_t i = 0; i < s.steps.size(); ++i) g.emit_step(i);
  g.finish();
  return g.res;
}

}  // namespace bankviz
