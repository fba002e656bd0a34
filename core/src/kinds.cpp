// kinds.cpp: the step kinds' and the element types' tables (kinds.h).
//
// [SECTION] Step kinds
// [SECTION] Element types

#include "bankviz/kinds.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

namespace bankviz {

// [SECTION] Step kinds ===========================================================================

namespace {

using K = StepKind;
using V = StepVariant;
using W = StepWidth;
using A = StepAccess;

// kind, name, variant, op, width, access, value, warp_wide, hopper_only, verb, ptx, written, help,
// wavefront counter, instruction counter, from global memory
constexpr std::array<StepKindInfo, 7> kStepKinds = {{
    {K::Store, "store", V::None, Op::Store, W::Element, A::Write, true, false, false, " writes ",
     "st.shared", "{at} = {value};",
     "store: tile[i] = value, one element per lane (the value's default: the thread's index)", "st",
     "st", false},
    {K::Load, "load", V::None, Op::Load, W::Element, A::Read, false, false, false, " reads ",
     "ld.shared", "{sum} += {at};", "load: sum += tile[i], one element per lane", "ld", "ld",
     false},
    {K::Atomic, "atomic", V::None, Op::Atomic, W::Element, A::Add, true, false, false, " adds to ",
     "atom.shared.add", "atomicAdd(&{at}, {value});",
     "atomic: atomicAdd(&tile[i], value), one element per lane", "atom", "atom", false},
    {K::Sync, "sync", V::None, Op::Load, W::None, A::None, false, false, false, "", "bar.sync 0",
     "__syncthreads();", "sync: __syncthreads(), the block's barrier", "", "", false},
    {K::LdMatrix, "ldmatrix", V::Matrices, Op::LdMatrix, W::Row16, A::Read, false, true, true,
     " reads ", "ldmatrix.sync.aligned.m8n8.x{n}{.trans}.shared.b16", "",
     "ldmatrix.x1/.x2/.x4[.trans]: 1, 2 or 4 8x8 matrices of 16-bit elements into registers, "
     "lane 8m+r giving row r of matrix m (hopper only)",
     "ld", "ldsm", false},
    {K::StMatrix, "stmatrix", V::Matrices, Op::StMatrix, W::Row16, A::Write, true, true, true,
     " writes ", "stmatrix.sync.aligned.m8n8.x{n}{.trans}.shared.b16", "",
     "stmatrix.x1/.x2/.x4[.trans]: 1, 2 or 4 8x8 matrices of 16-bit elements from registers "
     "(hopper only)",
     "st", "stsm", false},
    {K::CpAsync, "cp.async", V::CopyBytes, Op::CpAsync, W::Copy, A::Write, false, false, true,
     " copies into ", "cp.async.ca.shared.global", "",
     "cp.async.4/8/16: an asynchronous copy of that many bytes per lane from global memory, "
     "then its wait (hopper only)",
     "", "ldgsts", true},
}};

}  // namespace

std::span<const StepKindInfo> step_kinds() {
  return kStepKinds;
}

const StepKindInfo& step_kind_info(StepKind k) {
  for (const StepKindInfo& i : kStepKinds)
    if (i.kind == k) return i;
  return kStepKinds[0];  // unreachable: every enumerator has its row (tests/core/test_kinds.cpp)
}

const char* step_kind_name(StepKind k) {
  return step_kind_info(k).name.data();  // the table's literals end in '\0'
}

std::optional<StepKind> parse_step_kind(std::string_view s) {
  for (const StepKindInfo& i : kStepKinds)
    if (i.variant == StepVariant::None && s == i.name) return i.kind;
  return std::nullopt;
}

bool is_matrix_kind(StepKind k) {
  return step_kind_info(k).variant == StepVariant::Matrices;
}

std::string fill_in(std::string_view text,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> names) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool named = false;
    for (const auto& [name, with] : names) {
      if (!text.substr(i).starts_with(name)) continue;
      out += with;
      i += name.size();
      named = true;
      break;
    }
    if (!named) out += text[i++];
  }
  return out;
}

std::string written_statement(const StepKindInfo& k, std::string_view at, std::string_view value,
                              std::string_view sum) {
  return fill_in(k.written, {{"{at}", at}, {"{value}", value}, {"{sum}", sum}});
}

std::span<const std::string> step_kind_texts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    for (const StepKindInfo& i : kStepKinds) {
      const std::string name(i.name);
      if (i.variant == StepVariant::None) out.push_back(name);
      if (i.variant == StepVariant::Matrices)
        for (int n : kMatrixCounts)
          for (const char* trans : {"", ".trans"})
            out.push_back(name + ".x" + std::to_string(n) + trans);
      if (i.variant == StepVariant::CopyBytes)
        for (int b : kCopySizes) out.push_back(name + '.' + std::to_string(b));
    }
    return out;
  }();
  return texts;
}

std::string step_kind_forms() {
  std::string out;
  for (size_t k = 0; k < kStepKinds.size(); ++k) {
    const StepKindInfo& i = kStepKinds[k];
    out += k == 0 ? "" : k + 1 == kStepKinds.size() ? " or " : ", ";
    out += i.name;
    if (i.variant == StepVariant::Matrices) {
      out += ".x";
      for (size_t n = 0; n < std::size(kMatrixCounts); ++n)
        out += std::string(n ? "|x" : "") + std::to_string(kMatrixCounts[n]);
      out += "[.trans]";
    } else if (i.variant == StepVariant::CopyBytes) {
      for (size_t n = 0; n < std::size(kCopySizes); ++n) {
        out += n ? '|' : '.';
        out += std::to_string(kCopySizes[n]);
      }
    }
  }
  return out;
}

// [SECTION] Element types ========================================================================

namespace {

using C = CompKind;

// The spellings a kernel writes for a shared array's element. The vector types are CUDA's
// built-ins (vector_types.h), aligned to their full size, so a float4 access is one 16-byte
// access per lane.
// name, bytes, lanes, component kind, component C type, constructor, overload type, atomicAdd
constexpr std::array<ElemType, 34> kElemTypes = {{
    {"char", 1, 1, C::SInt, "char", "", "char", false},
    {"signed char", 1, 1, C::SInt, "signed char", "", "signed char", false},
    {"unsigned char", 1, 1, C::UInt, "unsigned char", "", "unsigned char", false},
    {"short", 2, 1, C::SInt, "short", "", "short", false},
    {"unsigned short", 2, 1, C::UInt, "unsigned short", "", "unsigned short", false},
    {"half", 2, 1, C::F16, "__half", "", "__half", false},
    {"__half", 2, 1, C::F16, "__half", "", "__half", false},
    {"__nv_bfloat16", 2, 1, C::BF16, "__nv_bfloat16", "", "__nv_bfloat16", false},
    {"char2", 2, 2, C::SInt, "signed char", "make_char2", "char2", false},
    {"uchar2", 2, 2, C::UInt, "unsigned char", "make_uchar2", "uchar2", false},
    {"int", 4, 1, C::SInt, "int", "", "int", true},
    {"unsigned", 4, 1, C::UInt, "unsigned int", "", "unsigned int", true},
    {"unsigned int", 4, 1, C::UInt, "unsigned int", "", "unsigned int", true},
    {"float", 4, 1, C::F32, "float", "", "float", true},
    {"char4", 4, 4, C::SInt, "signed char", "make_char4", "char4", false},
    {"uchar4", 4, 4, C::UInt, "unsigned char", "make_uchar4", "uchar4", false},
    {"short2", 4, 2, C::SInt, "short", "make_short2", "short2", false},
    {"ushort2", 4, 2, C::UInt, "unsigned short", "make_ushort2", "ushort2", false},
    {"half2", 4, 2, C::F16, "__half", "__halves2half2", "__half2", false},
    {"__half2", 4, 2, C::F16, "__half", "__halves2half2", "__half2", false},
    {"long long", 8, 1, C::SInt, "long long", "", "long long", false},
    {"unsigned long long", 8, 1, C::UInt, "unsigned long long", "", "unsigned long long", true},
    {"double", 8, 1, C::F64, "double", "", "double", true},
    {"short4", 8, 4, C::SInt, "short", "make_short4", "short4", false},
    {"ushort4", 8, 4, C::UInt, "unsigned short", "make_ushort4", "ushort4", false},
    {"int2", 8, 2, C::SInt, "int", "make_int2", "int2", false},
    {"uint2", 8, 2, C::UInt, "unsigned int", "make_uint2", "uint2", false},
    {"float2", 8, 2, C::F32, "float", "make_float2", "float2", false},
    {"int4", 16, 4, C::SInt, "int", "make_int4", "int4", false},
    {"uint4", 16, 4, C::UInt, "unsigned int", "make_uint4", "uint4", false},
    {"float4", 16, 4, C::F32, "float", "make_float4", "float4", false},
    {"double2", 16, 2, C::F64, "double", "make_double2", "double2", false},
    {"longlong2", 16, 2, C::SInt, "long long", "make_longlong2", "longlong2", false},
    {"ulonglong2", 16, 2, C::UInt, "unsigned long long", "make_ulonglong2", "ulonglong2", false},
}};

// Other spellings of the same types (typedefs and long forms) -> the name in elem_types().
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"uchar", "unsigned char"},
    {"int8_t", "signed char"},
    {"uint8_t", "unsigned char"},
    {"ushort", "unsigned short"},
    {"short int", "short"},
    {"signed short", "short"},
    {"unsigned short int", "unsigned short"},
    {"int16_t", "short"},
    {"uint16_t", "unsigned short"},
    {"uint", "unsigned int"},
    {"signed", "int"},
    {"signed int", "int"},
    {"int32_t", "int"},
    {"uint32_t", "unsigned int"},
    {"long", "long long"},  // LP64: long is 8 bytes on Linux, as in device code
    {"long int", "long long"},
    {"unsigned long", "unsigned long long"},
    {"long long int", "long long"},
    {"unsigned long long int", "unsigned long long"},
    {"int64_t", "long long"},
    {"uint64_t", "unsigned long long"},
    {"size_t", "unsigned long long"},
    {"bf16", "__nv_bfloat16"},
};

// find_elem_type() takes a canonical spelling as it is: no alias may be spelled as one.
constexpr bool no_alias_is_a_canonical_name() {
  for (const auto& a : kAliases)
    for (const ElemType& t : kElemTypes)
      if (a.first == t.name) return false;
  return true;
}
static_assert(no_alias_is_a_canonical_name());

}  // namespace

std::string normalize_spaces(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::span<const ElemType> elem_types() {
  return kElemTypes;
}

std::string atomic_problem(const ElemType& type) {
  if (type.atomic) return {};
  // The types, each once (by its overload type: "unsigned" and "unsigned int" are one).
  std::vector<std::string_view> names;
  for (const ElemType& t : kElemTypes)
    if (t.atomic && std::find(names.begin(), names.end(), t.overload) == names.end())
      names.push_back(t.overload);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += std::string(i == 0                  ? ""
                        : i + 1 == names.size() ? " and "
                                                : ", ") +
            std::string(names[i]);
  return "atomicAdd on " + std::string(type.name) +
         " in shared memory: the generated kernels support atomics on " + list;
}

const ElemType* find_elem_type(std::string_view name) {
  // A name as elem_types() spells it, the common case, without a copy: the model's hot loops
  // reach here per lane (TileDecl::elem_bytes()). No alias is spelled as a canonical name.
  for (const ElemType& t : kElemTypes)
    if (t.name == name) return &t;
  std::string n = normalize_spaces(name);
  for (const auto& [alias, canonical] : kAliases)
    if (n == alias) n = std::string(canonical);
  for (const ElemType& t : kElemTypes)
    if (t.name == n) return &t;
  return nullptr;
}

}  // namespace bankviz
