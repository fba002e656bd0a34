// kinds.h: the step kinds and the element types, one table each.
//
// Everything bankviz knows about a kind of step (store, load, atomic, sync, ldmatrix, stmatrix,
// cp.async) or a shared array's element type lives in one row here: the scenario parser, the
// trace and the race model, the kernel generator, the CPU reference, the counters, the CLI, the
// app and the docs read these rows instead of switching on the kind or the type name. A new
// step kind is one row of step_kinds() (core/src/kinds.cpp) plus what is new about it: its bank
// rule in access.h, its statement in codegen.cpp and its values in reference.cpp.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "bankviz/access.h"

namespace bankviz {

// [SECTION] Step kinds ===========================================================================

// Store, Load, Atomic: one element per lane (`tile[i] = v`, `sum += tile[i]`, atomicAdd).
// LdMatrix / StMatrix: ldmatrix / stmatrix .sync.aligned .m8n8 .b16 (.x1/.x2/.x4, .trans) on a
// tile of 16-bit elements: the index gives each address lane's 16-byte row (lane 8m+r: row r of
// matrix m; lanes 0-7 for .x1, 0-15 for .x2, all 32 for .x4); every lane of the warp takes part.
// CpAsync: cp.async.ca.shared.global of 4, 8 or 16 bytes followed by its wait: the index gives
// each lane's destination; the source is the lane's slot of the kernel's input (codegen.h).
enum class StepKind { Store, Load, Sync, Atomic, LdMatrix, StMatrix, CpAsync };

// What follows a kind's name in a step's "kind" text.
enum class StepVariant {
  None,       // "store"
  Matrices,   // "ldmatrix.x1|x2|x4[.trans]": Step::matrices, Step::trans
  CopyBytes,  // "cp.async.4|8|16": Step::copy_bytes
};

// How many bytes one lane's access covers.
enum class StepWidth {
  None,     // sync: no access
  Element,  // the tile's element (TileDecl::elem_bytes)
  Row16,    // a 16-byte matrix row
  Copy,     // the copy's size (Step::copy_bytes)
};

// How one memory slot is touched, for the race model (hazard.h).
enum class StepAccess { None, Read, Write, Add };

struct StepKindInfo {
  StepKind kind;
  std::string_view name;  // the JSON "kind" and the CLI's --step base name: "ldmatrix"
  StepVariant variant;
  Op op;             // the bank model's instruction (access.h); Sync: none (Op::Load, unused)
  StepWidth width;   // bytes per lane
  StepAccess access; // read, write or read-modify-write of each slot it touches
  bool value;        // the step's "value" expression is what it writes (store, atomic, stmatrix)
  bool warp_wide;    // .sync.aligned: no guard, full warps; only lanes 0..8N-1 give addresses
  bool hopper_only;  // its rule was measured on Hopper only (docs/MATRIX_RULE.md)
  std::string_view verb;     // a race's words: "thread (1,0) of warp 0 writes tile[3] ..."
  // The PTX instruction the measured (exposed) kernel executes; {n} and {.trans} are a matrix
  // instruction's .xN and .trans.
  std::string_view ptx;
  // The statement as a student writes it (written mode; the app's source view): {at} is the
  // element, {value} the value, {sum} the thread's checksum. Empty where the kernel holds the
  // instruction's inline PTX (codegen.cpp).
  std::string_view written;
  std::string_view help;     // one line for the UI's tooltip and the docs
  // The GPU's counters (kernels/counters.h, docs/COUNTERS.md): the shared-memory operation whose
  // wavefronts count the step's ("ld", "st", "atom"; "" = in none: cp.async's write), and the
  // one counting its warp instructions ("ld", "st", "atom", "ldsm", "stsm", "ldgsts").
  std::string_view wavefront_counter;
  std::string_view instruction_counter;
  bool from_global;  // also reads global memory, which paces a small copy (copy-bound)
};

// A template of the table (`written`, `ptx`) with its {names} replaced: fill_in("{at} = {value};",
// {{"{at}", "tile[i]"}, {"{value}", "tid"}}) -> "tile[i] = tid;".
std::string fill_in(std::string_view text,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> names);
// A kind's `written` statement with {at}, {value} and {sum} filled in ("" where it has none).
std::string written_statement(const StepKindInfo& k, std::string_view at, std::string_view value,
                              std::string_view sum);

// Every kind, in the order menus list them.
std::span<const StepKindInfo> step_kinds();
const StepKindInfo& step_kind_info(StepKind k);

// "store", "load", "sync", "atomic", "ldmatrix", "stmatrix", "cp.async"
const char* step_kind_name(StepKind k);
// The base names above of the kinds without a variant; see parse_step_op for the instruction
// names.
std::optional<StepKind> parse_step_kind(std::string_view s);
bool is_matrix_kind(StepKind k);  // ldmatrix or stmatrix
// The matrices an ldmatrix/stmatrix moves (.x1/.x2/.x4) and the sizes cp.async copies.
inline constexpr int kMatrixCounts[] = {1, 2, 4};
inline constexpr int kCopySizes[] = {4, 8, 16};
// Every "kind" text a step accepts, in menu order ("store", ..., "ldmatrix.x4.trans", ...,
// "cp.async.16"), and the same as one line for messages ("store, load, atomic, sync,
// ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans] or cp.async.4|8|16").
std::span<const std::string> step_kind_texts();
std::string step_kind_forms();

// [SECTION] Element types ========================================================================

// How one scalar component's bits hold a value (kernels/types.h converts and checksums them).
enum class CompKind { SInt, UInt, F32, F64, F16, BF16 };

struct ElemType {
  std::string_view name;      // C spelling: "int", "float2", "unsigned char"
  int bytes;                  // 1, 2, 4, 8, 16
  int lanes;                  // scalar components: float4 -> 4
  CompKind comp_kind;         // what a component holds
  std::string_view comp;      // a component's C type: "float", "signed char", "__half"
  std::string_view make;      // the vector's constructor: "make_float4", "__halves2half2"; ""
  std::string_view overload;  // the C++ type an overload names (half is __half, unsigned is
                              // unsigned int): one bits() overload per type
  bool atomic;                // atomicAdd(T*, T) exists for shared memory

  int comp_bytes() const { return bytes / lanes; }
  bool is_float() const { return comp_kind != CompKind::SInt && comp_kind != CompKind::UInt; }
  // A 1-4 byte scalar integer: `sum += tile[...]` adds it as it is (integer promotion), no bits().
  bool plain_sum() const { return lanes == 1 && !is_float() && bytes <= 4; }
  // A 1- or 2-byte signed scalar (char, short): `sum += tile[...]` sign-extends it. Exposed mode's
  // measured loads add its bits as loaded instead (zero-extended: no instruction of their own;
  // the sign extension cost an H100 0.022 cycles per load, docs/COST.md).
  bool sign_extends() const { return lanes == 1 && comp_kind == CompKind::SInt && bytes < 4; }
};
std::span<const ElemType> elem_types();
// Why an atomicAdd on a shared array of `type` cannot be a step ("" where it can): the table's
// `atomic` column, the one list that check() (so analyze), the kernel generator (source, run) and
// the messages read: "atomicAdd on char in shared memory: the generated kernels support atomics
// on int, unsigned int, unsigned long long, float and double".
std::string atomic_problem(const ElemType& type);
const ElemType* find_elem_type(std::string_view name);  // accepts "char", "int4", "double", ...
// A type's spelling with its spaces normalized: "unsigned   int " -> "unsigned int".
std::string normalize_spaces(std::string_view s);

}  // namespace bankviz
