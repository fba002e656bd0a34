// scenario.cpp: Scenario values, their checks, and their JSON form (docs/SCENARIO.md).
//
// [SECTION] Step kinds and small helpers
// [SECTION] check(): ranges and expressions
// [SECTION] JSON -> Scenario (strict: unknown keys and wrong types are errors with a path)
// [SECTION] Scenario -> JSON
// [SECTION] Files
#include "bankviz/scenario.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <set>
#include <sstream>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/expr.h"
#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "bankviz/recording.h"  // kRecordedIndex: a recorded picture's step
#include "json_reader.h"
#include "scenario_json.h"

namespace bankviz {

// [SECTION] Step kinds and small helpers

OpSpec Step::op(int elem_bytes) const {
  const StepKindInfo& k = info();
  OpSpec o;
  o.op = k.op;
  switch (k.width) {
    case StepWidth::Row16:
      o.width = 16;
      break;
    case StepWidth::Copy:
      o.width = copy_bytes;
      break;
    case StepWidth::None:
    case StepWidth::Element:
      o.width = elem_bytes;
      break;
  }
  if (k.variant == StepVariant::Matrices) {
    o.matrices = matrices;
    o.trans = trans;
  }
  return o;
}

std::string Step::kind_text() const {
  if (info().variant != StepVariant::None) return op_spec_name(op(2));
  return step_kind_name(kind);
}

bool parse_step_op(std::string_view text, Step& step) {
  if (auto k = parse_step_kind(text)) {
    step.kind = *k;
    return true;
  }
  // An instruction name: the row whose op and variant it names.
  const std::optional<OpSpec> o = parse_op(text);
  if (!o) return false;
  for (const StepKindInfo& k : step_kinds()) {
    if (k.variant == StepVariant::None || k.op != o->op) continue;
    step.kind = k.kind;
    if (k.variant == StepVariant::CopyBytes) {
      step.copy_bytes = o->width;
    } else {
      step.matrices = o->matrices;
      step.trans = o->trans;
    }
    return true;
  }
  return false;
}

int64_t Step::iterations() const {
  if (loop_var.empty()) return 1;
  // 128-bit arithmetic: any int64 bounds a file gives (check() then rejects those outside int)
  // count without overflow; the count is clamped to int64.
  const __int128 from = loop_from, to = loop_to, step = loop_step;
  __int128 n = 0;
  if (step > 0 && to > from) n = (to - from + step - 1) / step;
  if (step < 0 && from > to) n = (from - to - step - 1) / -step;
  return n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
}

CType Constant::type() const {
  return value >= -INT32_MAX && value <= INT32_MAX ? CType::Int : CType::LongLong;
}

const TileDecl* Scenario::find_tile(std::string_view tile_name) const {
  if (tiles.empty()) return nullptr;
  if (tile_name.empty()) return &tiles.front();
  for (const TileDecl& t : tiles) {
    if (t.name == tile_name) return &t;
  }
  return nullptr;
}

std::string Diagnostic::format() const {
  std::string out = path;
  if (column > 0) out += (out.empty() ? "col " : " col ") + std::to_string(column);
  if (!out.empty()) out += ": ";
  return out + message;
}

namespace {

std::string indexed(std::string_view base, size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

// [SECTION] check(): ranges and expressions

void check_block(const Scenario& s, std::vector<Diagnostic>& out) {
  // CUDA's limits: blockDim.x and .y up to 1024, .z up to 64, at most 1024 threads in all.
  static constexpr int64_t kMax[3] = {1024, 1024, 64};
  static constexpr const char* kAxis[3] = {"x", "y", "z"};
  bool dims_ok = true;
  for (int d = 0; d < 3; ++d) {
    if (s.block[d] < 1 || s.block[d] > kMax[d]) {
      out.push_back({indexed("block", d), 0,
                     std::string("blockDim.") + kAxis[d] + " is " + std::to_string(s.block[d]) +
                         "; it must be between 1 and " + std::to_string(kMax[d])});
      dims_ok = false;
    }
  }
  if (dims_ok && s.threads() > 1024) {
    out.push_back({"block", 0,
                   std::to_string(s.block[0]) + " x " + std::to_string(s.block[1]) + " x " +
                       std::to_string(s.block[2]) + " = " + std::to_string(s.threads()) +
                       " threads; a block has at most 1024"});
  }
  if (s.grid < 1 || s.grid > 2147483647) {
    out.push_back(
        {"grid", 0, "grid is " + std::to_string(s.grid) + "; it must be between 1 and 2147483647"});
  }
}

void check_tiles(const Scenario& s, std::vector<Diagnostic>& out) {
  if (s.tiles.empty()) {
    out.push_back({"tiles", 0, "no tiles: declare at least one shared-memory array"});
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    const TileDecl& t = s.tiles[i];
    const std::string path = indexed("tiles", i);
    if (is_valid_name(t.name) && !seen.insert(t.name).second) {
      out.push_back({path + ".name", 0, "a tile named '" + t.name + "' is already declared"});
    }
    if (std::string msg = t.check(); !msg.empty()) {
      // TileDecl::check() starts its message with the field: "elem: unknown element type ...".
      std::string field;
      if (size_t colon = msg.find(": ");
          colon != std::string::npos && colon < 12 && msg.find(' ') > colon) {
        field = msg.substr(0, colon);
        msg = msg.substr(colon + 2);
      }
      out.push_back({field.empty() ? path : path + "." + field, 0, msg});
    }
  }
  // Two __shared__ arrays never share bytes; overlapping declarations would picture a layout no
  // compiler produces (place the second one with "base"). Sorted by base, each tile is compared
  // with the one reaching furthest before it: n log n, one message per overlapping tile.
  std::vector<size_t> order;
  for (size_t i = 0; i < s.tiles.size(); ++i)
    if (s.tiles[i].check().empty()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return s.tiles[a].base < s.tiles[b].base; });
  std::optional<size_t> reach;  // the tile ending furthest so far
  for (size_t i : order) {
    const TileDecl& t = s.tiles[i];
    if (reach) {
      const TileDecl& o = s.tiles[*reach];
      if (t.base < o.base + o.bytes()) {
        out.push_back({indexed("tiles", i) + ".base", 0,
                       "tile '" + t.name + "' (bytes " + std::to_string(t.base) + ".." +
                           std::to_string(t.base + t.bytes()) + ") overlaps tile '" + o.name +
                           "' (bytes " + std::to_string(o.base) + ".." +
                           std::to_string(o.base + o.bytes()) + "); set base to " +
                           std::to_string(o.base + o.bytes()) + " or more"});
      }
    }
    if (!reach || t.base + t.bytes() > s.tiles[*reach].base + s.tiles[*reach].bytes()) reach = i;
  }
}

void check_names(const Scenario& s, std::vector<Diagnostic>& out) {
  // A constant is a #define and a let a local variable of the generated kernel: named like a
  // tile, either would replace the array.
  std::set<std::string, std::less<>> seen, tiles;
  for (const TileDecl& t : s.tiles) tiles.insert(t.name);
  const auto tile_name = [&](const std::string& n) {
    return "'" + n + "' is a tile's name; pick another name";
  };
  for (size_t i = 0; i < s.constants.size(); ++i) {
    const std::string& n = s.constants[i].name;
    const std::string path = indexed("constants", i) + ".name";
    if (!is_valid_name(n)) {
      out.push_back({path, 0,
                     "'" + n +
                         "' is not a valid name (a C identifier, not a C++ keyword, "
                         "a name reserved to the compiler like __x or _X, a built-in like "
                         "threadIdx, or a CUDA type like float2)"});
    } else if (tiles.count(n) != 0) {
      out.push_back({path, 0, tile_name(n)});
    } else if (!seen.insert(n).second) {
      out.push_back({path, 0, "'" + n + "' is already defined"});
    }
  }
  for (size_t i = 0; i < s.lets.size(); ++i) {
    const Let& let = s.lets[i];
    const std::string path = indexed("lets", i);
    if (!is_valid_name(let.name)) {
      out.push_back({path + ".name", 0,
                     "'" + let.name +
                         "' is not a valid name (a C identifier, not a C++ keyword, "
                         "a name reserved to the compiler like __x or _X, a built-in like "
                         "threadIdx, or a CUDA type like float2)"});
    } else if (tiles.count(let.name) != 0) {
      out.push_back({path + ".name", 0, tile_name(let.name)});
    } else if (!seen.insert(let.name).second) {
      out.push_back({path + ".name", 0, "'" + let.name + "' is already defined"});
    }
    if (!let.type.empty() && !parse_ctype(let.type)) {
      out.push_back({path + ".type", 0,
                     "'" + let.type +
                         "' is not a type a let can have (int, unsigned int, long long, unsigned "
                         "long long, or a spelling of them such as unsigned, size_t, int64_t)"});
    }
    if (let.expr.empty()) {
      out.push_back({path + ".expr", 0, "empty expression"});
    } else if (ExprParse p = parse_expr(let.expr); !p.expr) {
      out.push_back({path + ".expr", p.error.column, p.error.message});
    }
  }
}

// What the matrix and async-copy instructions require of their step (scenario.h, StepKind).
void check_instruction(const Scenario& s, const Step& st, const TileDecl* tile,
                       const std::string& path, std::vector<Diagnostic>& out) {
  const StepKindInfo& k = st.info();
  if (k.hopper_only && s.arch != "hopper" && find_arch(s.arch) != nullptr)
    out.push_back({"arch", 0,
                   st.kind_text() + " is modelled on hopper only (its rule was measured on an "
                                    "H100/H200, docs/MATRIX_RULE.md): set arch to hopper"});
  if (k.variant == StepVariant::Matrices) {
    const std::string name = st.kind_text();
    if (std::find(std::begin(kMatrixCounts), std::end(kMatrixCounts), st.matrices) ==
        std::end(kMatrixCounts))
      out.push_back({path + ".kind", 0, name + ": .x1, .x2 or .x4 (1, 2 or 4 matrices)"});
    if (tile != nullptr && tile->check().empty() && tile->elem_bytes() != 2)
      out.push_back({path + ".tile", 0,
                     name + " moves 16-bit elements (.b16): tile '" + tile->name + "' holds " +
                         tile->elem + " (" + std::to_string(tile->elem_bytes()) +
                         " bytes); use half, __nv_bfloat16, short or unsigned short"});
    if (!st.guard.empty())
      out.push_back({path + ".guard", 0,
                     name + " is .sync.aligned: every lane of the warp executes it together, so "
                            "it cannot sit under a guard; remove \"guard\""});
    if (s.threads() % kWarpSize != 0)
      out.push_back({path + ".kind", 0,
                     name + " is .sync.aligned: every warp must be full, but the block has " +
                         std::to_string(s.threads()) + " threads (not a multiple of 32)"});
  } else if (k.access == StepAccess::Add && tile != nullptr && tile->check().empty()) {
    if (std::string bad = atomic_problem(tile->type()); !bad.empty())
      out.push_back({path + ".kind", 0, bad});
  } else if (k.variant == StepVariant::CopyBytes) {
    if (std::find(std::begin(kCopySizes), std::end(kCopySizes), st.copy_bytes) ==
        std::end(kCopySizes))
      out.push_back({path + ".kind", 0, "cp.async copies 4, 8 or 16 bytes"});
    else if (tile != nullptr && tile->check().empty() && tile->elem_bytes() > st.copy_bytes)
      out.push_back({path + ".kind", 0,
                     st.kind_text() + " copies " + std::to_string(st.copy_bytes) +
                         " bytes, less than one element of tile '" + tile->name + "' (" +
                         tile->elem + ", " + std::to_string(tile->elem_bytes()) + " bytes)"});
  }
}

void check_step(const Scenario& s, size_t i, const std::set<std::string, std::less<>>& names,
                std::vector<Diagnostic>& out) {
  const Step& st = s.steps[i];
  const std::string path = indexed("steps", i);
  if (!st.loop_var.empty()) {
    if (!is_valid_name(st.loop_var)) {
      out.push_back({path + ".loop.var", 0, "'" + st.loop_var + "' is not a valid name"});
    } else if (names.count(st.loop_var) != 0) {
      out.push_back(
          {path + ".loop.var", 0,
           "'" + st.loop_var + "' is already a constant, let or tile; pick another name"});
    }
    // The kernel declares `for (int var = from; ...; var += step)`: the bounds, the step and
    // the value that ends the loop must be ints, or the loop is not the one the model runs.
    const auto outside_int = [](int64_t v) { return v < INT32_MIN || v > INT32_MAX; };
    const __int128 after_last =
        static_cast<__int128>(st.loop_from) +
        static_cast<__int128>(st.iterations()) * static_cast<__int128>(st.loop_step);
    if (st.loop_step == 0) {
      out.push_back({path + ".loop.step", 0, "the loop step must not be 0"});
    } else if (outside_int(st.loop_from) || outside_int(st.loop_to) || outside_int(st.loop_step)) {
      const char* field = outside_int(st.loop_from) ? "from"
                          : outside_int(st.loop_to) ? "to"
                                                    : "step";
      const int64_t v = outside_int(st.loop_from) ? st.loop_from
                        : outside_int(st.loop_to) ? st.loop_to
                                                  : st.loop_step;
      out.push_back({path + ".loop." + field, 0,
                     std::to_string(v) + " does not fit the loop variable's type int (" +
                         std::to_string(INT32_MIN) + " to " + std::to_string(INT32_MAX) + ")"});
    } else if (st.iterations() > 0 && (after_last < INT32_MIN || after_last > INT32_MAX)) {
      out.push_back({path + ".loop", 0,
                     "after its last iteration the loop sets " + st.loop_var + " to " +
                         std::to_string(static_cast<int64_t>(after_last)) +
                         ", which overflows int (undefined behaviour in C)"});
    } else if (st.iterations() == 0) {
      out.push_back({path + ".loop", 0,
                     "the loop never runs (for " + st.loop_var + " = " +
                         std::to_string(st.loop_from) + "; " + st.loop_var +
                         (st.loop_step > 0 ? " < " : " > ") + std::to_string(st.loop_to) + ")"});
    } else if (st.iterations() > kMaxExecutedSteps) {
      out.push_back({path + ".loop", 0,
                     "the loop runs " + std::to_string(st.iterations()) + " times; at most " +
                         std::to_string(kMaxExecutedSteps) + " are modelled"});
    }
  }
  if (!st.is_memory()) return;  // __syncthreads() has no tile, index or guard

  const TileDecl* tile = s.find_tile(st.tile);
  if (tile == nullptr) {
    std::string known;
    for (const TileDecl& t : s.tiles) known += (known.empty() ? "" : ", ") + t.name;
    out.push_back(
        {path + ".tile", 0,
         "no tile named '" + st.tile + "' (declared: " + (known.empty() ? "none" : known) + ")"});
  }
  if (st.index.empty()) {
    out.push_back(
        {path + ".index", 0, "empty index: write the access, e.g. tile[threadIdx.y][threadIdx.x]"});
  } else {
    SubscriptParse p = parse_subscripts(st.index, tile ? std::string_view(tile->name) : "");
    if (!p.ok) {
      out.push_back({path + ".index", p.error.column, p.error.message});
    } else if (tile != nullptr) {
      const size_t rank = tile->dynamic ? 1 : tile->dims.size();
      if (p.subscripts.size() != rank) {
        out.push_back({path + ".index", 0,
                       "tile '" + tile->name + "' has " + std::to_string(rank) + " dimension" +
                           (rank == 1 ? "" : "s") + " but the index has " +
                           std::to_string(p.subscripts.size()) + " subscript" +
                           (p.subscripts.size() == 1 ? "" : "s")});
      }
    }
  }
  if (!st.guard.empty()) {
    if (ExprParse p = parse_expr(st.guard); !p.expr) {
      out.push_back({path + ".guard", p.error.column, p.error.message});
    }
  }
  check_instruction(s, st, tile, path, out);
  if (!st.source.empty()) {
    if (st.kind != StepKind::CpAsync) {
      out.push_back(
          {path + ".source", 0,
           "only cp.async reads a global source; remove \"source\" from " + st.kind_text()});
    } else if (ExprParse p = parse_expr(st.source); !p.expr) {
      out.push_back({path + ".source", p.error.column, p.error.message});
    }
  }
  if (!st.value.empty()) {
    if (st.reads()) {
      out.push_back({path + ".value", 0,
                     std::string("a") + (st.kind == StepKind::Load ? " load" : "n ldmatrix") +
                         " has no stored value; remove \"value\""});
    } else if (!st.info().value) {
      out.push_back({path + ".value", 0,
                     "cp.async copies from global memory (the thread's slot of the kernel's "
                     "input), not a value; remove \"value\""});
    } else if (ExprParse p = parse_expr(st.value); !p.expr) {
      out.push_back({path + ".value", p.error.column, p.error.message});
    }
  }
}

}  // namespace

namespace {

// The per-scenario limits (scenario.h), checked before anything else so no later check runs long.
void check_limits(const Scenario& s, std::vector<Diagnostic>& out) {
  auto count = [&](const char* what, size_t n, size_t max) {
    if (n > max)
      out.push_back(
          {what, 0,
           std::to_string(n) + " " + what + "; a scenario holds at most " + std::to_string(max)});
  };
  count("tiles", s.tiles.size(), kMaxTiles);
  count("constants", s.constants.size(), kMaxConstants);
  count("lets", s.lets.size(), kMaxLets);
  count("steps", s.steps.size(), kMaxSteps);
  auto text = [&](const std::string& path, const std::string& t, size_t max, const char* what) {
    if (t.size() > max)
      out.push_back({path, 0,
                     std::string(what) + " is " + std::to_string(t.size()) +
                         " characters long; at most " + std::to_string(max)});
  };
  text("name", s.name, kMaxTextChars, "the name");
  text("title", s.title, kMaxTextChars, "the title");
  text("description", s.description, kMaxTextChars, "the description");
  text("source", s.source, kMaxTextChars, "the source");
  // The name titles windows, files and the generated kernel (as an identifier built from it):
  // one line of text. Titles and labels may hold anything; every output sanitizes them.
  if (has_control(s.name))
    out.push_back({"name", 0, "the name must be one line without control characters"});
  if (!out.empty()) return;  // the per-item checks below would list thousands of problems
  for (size_t i = 0; i < s.tiles.size(); ++i)
    text(indexed("tiles", i) + ".name", s.tiles[i].name, kMaxTextChars, "the name");
  for (size_t i = 0; i < s.lets.size(); ++i)
    text(indexed("lets", i) + ".expr", s.lets[i].expr, kMaxExprChars, "the expression");
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    const std::string path = indexed("steps", i);
    text(path + ".index", st.index, kMaxExprChars, "the index");
    text(path + ".guard", st.guard, kMaxExprChars, "the guard");
    text(path + ".value", st.value, kMaxExprChars, "the value");
    text(path + ".source", st.source, kMaxExprChars, "the source");
    text(path + ".label", st.label, kMaxTextChars, "the label");
  }
}

}  // namespace

void limit_diagnostics(std::vector<Diagnostic>& errors) {
  if (errors.size() <= kMaxDiagnostics) return;
  const size_t more = errors.size() - (kMaxDiagnostics - 1);
  errors.resize(kMaxDiagnostics - 1);
  errors.push_back({"", 0, std::to_string(more) + " more problems not listed"});
}

std::optional<Diagnostic> check_open_step(const Scenario& s) {
  if (s.open_step == -1) return std::nullopt;
  if (s.open_step < 0 || static_cast<size_t>(s.open_step) >= s.steps.size())
    return Diagnostic{"open_step", 0,
                      "no step " + std::to_string(s.open_step) + " (the scenario has " +
                          std::to_string(s.steps.size()) + " steps, numbered from 0)"};
  if (!s.steps[s.open_step].is_memory())
    return Diagnostic{"open_step", 0,
                      "step " + std::to_string(s.open_step) +
                          " is a __syncthreads(): open on a load, store or atomic"};
  if (s.steps[s.open_step].iterations() == 0)
    return Diagnostic{
        "open_step", 0,
        "step " + std::to_string(s.open_step) + " never executes (its loop is empty)"};
  return std::nullopt;
}

std::vector<Diagnostic> check(const Scenario& s) {
  std::vector<Diagnostic> out;
  check_limits(s, out);
  if (!out.empty()) {
    limit_diagnostics(out);
    return out;
  }
  if (find_arch(s.arch) == nullptr) {
    out.push_back({"arch", 0, "unknown architecture '" + s.arch + "' (known: " + arch_ids() + ")"});
  }
  check_block(s, out);
  check_tiles(s, out);
  check_names(s, out);

  std::set<std::string, std::less<>> names;
  for (const Constant& c : s.constants) names.insert(c.name);
  for (const Let& l : s.lets) names.insert(l.name);
  for (const TileDecl& t : s.tiles) names.insert(t.name);  // a loop variable would hide the array
  if (s.steps.empty()) {
    out.push_back({"steps", 0, "no steps: add at least one load or store"});
  }
  int64_t executed = 0;
  bool any_memory = false;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    // A recorded picture's step (recording.h recorded_picture()): refused in words, not as a
    // parse error of "recorded on line".
    if (s.steps[i].index.find(kRecordedIndex) != std::string::npos) {
      out.push_back({"steps[" + std::to_string(i) + "].index", 0,
                     "a recorded access (the picture of a kernel's recording): no index "
                     "expression to evaluate, compile or edit; its figures are the recording's, "
                     "served from what the kernel did"});
      continue;
    }
    check_step(s, i, names, out);
    executed += std::max<int64_t>(0, std::min(s.steps[i].iterations(), kMaxExecutedSteps + 1));
    any_memory = any_memory || s.steps[i].is_memory();
  }
  if (!s.steps.empty() && !any_memory) {
    out.push_back({"steps", 0, "only __syncthreads(): add at least one load or store"});
  }
  if (executed > kMaxExecutedSteps) {
    out.push_back({"steps", 0,
                   "the steps unroll to " + std::to_string(executed) + " executed steps; at most " +
                       std::to_string(kMaxExecutedSteps) + " are modelled"});
  } else if (out.empty() && executed * s.threads() > kMaxThreadSteps) {
    out.push_back({"steps", 0,
                   std::to_string(executed) + " executed steps x " + std::to_string(s.threads()) +
                       " threads = " + std::to_string(executed * s.threads()) +
                       " thread-steps; at most " + std::to_string(kMaxThreadSteps) +
                       " are modelled (fewer loop iterations or a smaller block)"});
  }
  limit_diagnostics(out);
  return out;
}

// [SECTION] JSON -> Scenario (strict: unknown keys and wrong types are errors with a path)

namespace {

using detail::Json;

using detail::join;
using detail::json_type;
using detail::Reader;

TileDecl read_tile(Reader& r, const Json& j, const std::string& path) {
  TileDecl t;
  if (!r.object(j, path, {"name", "elem", "dims", "pad", "base", "dynamic", "swizzle", "layout"}))
    return t;
  r.get(j, path, "name", t.name);
  r.get(j, path, "elem", t.elem);
  if (const Json* dims = r.array(j, path, "dims")) {
    t.dims.clear();
    for (size_t i = 0; i < dims->size(); ++i) {
      int64_t v = 0;
      if (r.integer((*dims)[i], indexed(join(path, "dims"), i), v)) t.dims.push_back(v);
    }
  }
  r.get(j, path, "pad", t.pad);
  r.get(j, path, "base", t.base);
  r.get(j, path, "dynamic", t.dynamic);
  if (auto it = j.find("swizzle"); it != j.end()) {
    const std::string sp = join(path, "swizzle");
    if (r.object(*it, sp, {"bits", "base", "shift", "on"})) {
      r.get(*it, sp, "bits", t.swizzle.bits);
      r.get(*it, sp, "base", t.swizzle.base);
      r.get(*it, sp, "shift", t.swizzle.shift);
      std::string on = "offset";
      r.get(*it, sp, "on", on);
      if (on == "address")
        t.swizzle_on_address = true;
      else if (on != "offset")
        r.error(join(sp, "on"), "'" + on +
                                    "': expected \"offset\" (CuTe's Sw<B,M,S> o layout) or "
                                    "\"address\" (a swizzle pointer, TMA: the base enters it)");
    }
  }
  // A CuTe layout (layout.h): its extents are the dims unless dims are given (then they must
  // agree: TileDecl::check); its composed swizzle is the tile's, unless "swizzle" also names one.
  std::string layout;
  r.get(j, path, "layout", layout);
  if (j.contains("layout") && j["layout"].is_string()) {
    LayoutParse p = parse_layout(layout, t.elem_bytes());
    if (!p.layout) {
      r.error(join(path, "layout"), "'" + layout + "': " + p.error);
    } else {
      if (!j.contains("dims")) t.dims = p.layout->extents();
      if (!p.swizzle.identity() && j.contains("swizzle"))
        r.error(join(path, "swizzle"), "the layout composes a swizzle already ('" + layout + "')");
      else if (!p.swizzle.identity())
        t.swizzle = p.swizzle, t.swizzle_on_address = p.on_address;
      t.cute = std::move(p.layout);
    }
  }
  // Where an identity swizzle acts says nothing (and is not saved).
  if (t.swizzle.identity()) t.swizzle_on_address = false;
  return t;
}

Step read_step(Reader& r, const Json& j, const std::string& path) {
  Step st;
  if (!r.object(j, path, {"kind", "tile", "index", "guard", "value", "source", "label", "loop"}))
    return st;
  auto kind = j.find("kind");
  if (kind == j.end()) {
    r.error(join(path, "kind"), "missing: one of " + step_kind_forms());
  } else if (!kind->is_string()) {
    r.error(join(path, "kind"), std::string("expected a string, got ") + json_type(*kind));
  } else if (!parse_step_op(kind->get<std::string>(), st)) {
    r.error(join(path, "kind"),
            "unknown kind '" + kind->get<std::string>() + "' (expected " + step_kind_forms() + ")");
  }
  r.get(j, path, "tile", st.tile);
  r.get(j, path, "index", st.index);
  r.get(j, path, "guard", st.guard);
  r.get(j, path, "value", st.value);
  r.get(j, path, "source", st.source);
  r.get(j, path, "label", st.label);
  // A barrier accesses no memory: an index, tile or value on it would be ignored without a word.
  if (st.kind == StepKind::Sync)
    for (const char* key : {"tile", "index", "value", "source"})
      if (j.contains(key))
        r.error(join(path, key), std::string("a sync step (__syncthreads()) accesses no memory: ") +
                                     "remove its " + key);
  if (auto it = j.find("loop"); it != j.end()) {
    const std::string lp = join(path, "loop");
    if (r.object(*it, lp, {"var", "from", "to", "step"})) {
      if (!it->contains("var")) r.error(join(lp, "var"), "missing: the loop variable's name");
      r.get(*it, lp, "var", st.loop_var);
      if (it->contains("var") && st.loop_var.empty())  // else the loop would silently vanish
        r.error(join(lp, "var"), "empty: name the loop variable, e.g. \"i\"");
      r.get(*it, lp, "from", st.loop_from);
      if (!it->contains("to")) r.error(join(lp, "to"), "missing: the loop's end (exclusive)");
      r.get(*it, lp, "to", st.loop_to);
      r.get(*it, lp, "step", st.loop_step);
    }
  }
  return st;
}

void read_constants(Reader& r, const Json& j, Scenario& s) {
  if ((j.is_object() || j.is_array()) && j.size() > kMaxConstants) {
    r.error("constants", std::to_string(j.size()) + " constants; a scenario holds at most " +
                             std::to_string(kMaxConstants));
    return;
  }
  if (j.is_object()) {  // {"N": 32, "IPAD": 1}: order as written
    for (auto it = j.begin(); it != j.end(); ++it) {
      Constant c{it.key(), 0};
      if (r.integer(it.value(), join("constants", it.key()), c.value)) s.constants.push_back(c);
    }
    return;
  }
  if (!j.is_array()) {
    r.error("constants",
            std::string("expected an array of {\"name\", \"value\"}, got ") + json_type(j));
    return;
  }
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string path = indexed("constants", i);
    if (!r.object(j[i], path, {"name", "value"})) continue;
    Constant c;
    if (!j[i].contains("name")) r.error(join(path, "name"), "missing");
    if (!j[i].contains("value")) r.error(join(path, "value"), "missing");
    r.get(j[i], path, "name", c.name);
    r.get(j[i], path, "value", c.value);
    s.constants.push_back(c);
  }
}

void read_scenario(Reader& r, const Json& j, Scenario& s) {
  if (!r.object(j, "",
                {"name", "title", "description", "source", "arch", "tiles", "block", "grid",
                 "constants", "lets", "steps", "open_step"})) {
    return;
  }
  r.get(j, "", "name", s.name);
  r.get(j, "", "title", s.title);
  r.get(j, "", "description", s.description);
  r.get(j, "", "source", s.source);
  r.get(j, "", "arch", s.arch);
  r.get(j, "", "open_step", s.open_step);
  // An array over its limit is reported by its size and not read (check() words it the same).
  auto within = [&](const Json* a, const char* what, size_t max) {
    if (a == nullptr) return false;
    if (a->size() <= max) return true;
    r.error(what, std::to_string(a->size()) + " " + what + "; a scenario holds at most " +
                      std::to_string(max));
    return false;
  };
  if (const Json* tiles = r.array(j, "", "tiles"); within(tiles, "tiles", kMaxTiles)) {
    s.tiles.clear();
    for (size_t i = 0; i < tiles->size(); ++i) {
      s.tiles.push_back(read_tile(r, (*tiles)[i], indexed("tiles", i)));
    }
  }
  if (const Json* block = r.array(j, "", "block")) {
    if (block->empty() || block->size() > 3) {
      r.error("block", "expected 1 to 3 integers [x, y, z], got " + std::to_string(block->size()));
    } else {
      for (int d = 0; d < 3; ++d) s.block[d] = 1;
      for (size_t d = 0; d < block->size(); ++d) {
        r.integer((*block)[d], indexed("block", d), s.block[d]);
      }
    }
  }
  r.get(j, "", "grid", s.grid);
  if (auto it = j.find("constants"); it != j.end()) read_constants(r, *it, s);
  if (const Json* lets = r.array(j, "", "lets"); within(lets, "lets", kMaxLets)) {
    for (size_t i = 0; i < lets->size(); ++i) {
      const std::string path = indexed("lets", i);
      Let let;
      if (r.object((*lets)[i], path, {"name", "expr", "type"})) {
        if (!(*lets)[i].contains("name")) r.error(join(path, "name"), "missing");
        if (!(*lets)[i].contains("expr")) r.error(join(path, "expr"), "missing");
        r.get((*lets)[i], path, "name", let.name);
        r.get((*lets)[i], path, "expr", let.expr);
        r.get((*lets)[i], path, "type", let.type);
      }
      s.lets.push_back(let);
    }
  }
  if (const Json* steps = r.array(j, "", "steps"); within(steps, "steps", kMaxSteps)) {
    for (size_t i = 0; i < steps->size(); ++i) {
      s.steps.push_back(read_step(r, (*steps)[i], indexed("steps", i)));
    }
  }
}

}  // namespace

ScenarioLoad scenario_from_json(std::string_view json_text) {
  ScenarioLoad out;
  std::optional<Json> parsed = detail::parse_strict_json(json_text, "a scenario", out.errors);
  if (!parsed) return out;
  const Json& j = *parsed;
  Scenario s;
  s.constants.clear();
  s.lets.clear();
  s.steps.clear();
  try {
    Reader r(out.errors);
    read_scenario(r, j, s);
  } catch (const std::bad_alloc&) {  // under a memory limit: not the file's content
    out.errors.push_back({"", 0, detail::kOutOfMemoryReading});
  } catch (const std::exception& e) {  // defensive: nlohmann type errors must never escape
    out.errors.push_back({"", 0, std::string("unexpected JSON content: ") + e.what()});
  }
  if (!out.errors.empty()) {
    limit_diagnostics(out.errors);
    return out;
  }
  out.errors = check(s);
  if (out.errors.empty())
    if (std::optional<Diagnostic> d = check_open_step(s)) out.errors.push_back(*d);
  if (out.errors.empty()) out.scenario = std::move(s);
  return out;
}

// [SECTION] Scenario -> JSON

namespace detail {

Json scenario_to_json_value(const Scenario& s) {
  Json j;
  j["name"] = s.name;
  if (!s.title.empty()) j["title"] = s.title;
  if (!s.description.empty()) j["description"] = s.description;
  if (!s.source.empty()) j["source"] = s.source;
  j["arch"] = s.arch;
  Json tiles = Json::array();
  for (const TileDecl& t : s.tiles) {
    Json jt;
    jt["name"] = t.name;
    jt["elem"] = t.elem;
    if (t.cute) {
      jt["layout"] = t.layout_text();  // dims are its extents, its swizzle is composed in it
    } else {
      jt["dims"] = t.dims;
      jt["pad"] = t.pad;
    }
    jt["base"] = t.base;
    jt["dynamic"] = t.dynamic;
    if (!t.cute && (t.swizzle.bits != 0 || t.swizzle.base != 0 || t.swizzle.shift != 0)) {
      jt["swizzle"] =
          Json{{"bits", t.swizzle.bits}, {"base", t.swizzle.base}, {"shift", t.swizzle.shift}};
      if (t.swizzle_on_address) jt["swizzle"]["on"] = "address";
    }
    tiles.push_back(std::move(jt));
  }
  j["tiles"] = std::move(tiles);
  j["block"] = Json::array({s.block[0], s.block[1], s.block[2]});
  j["grid"] = s.grid;
  Json constants = Json::array();
  for (const Constant& c : s.constants)
    constants.push_back(Json{{"name", c.name}, {"value", c.value}});
  j["constants"] = std::move(constants);
  Json lets = Json::array();
  for (const Let& l : s.lets) {
    Json j{{"name", l.name}, {"expr", l.expr}};
    if (!l.type.empty()) j["type"] = l.type;
    lets.push_back(std::move(j));
  }
  j["lets"] = std::move(lets);
  Json steps = Json::array();
  for (const Step& st : s.steps) {
    Json js;
    js["kind"] = st.kind_text();
    if (!st.tile.empty()) js["tile"] = st.tile;
    if (!st.index.empty()) js["index"] = st.index;
    if (!st.guard.empty()) js["guard"] = st.guard;
    if (!st.value.empty()) js["value"] = st.value;
    if (!st.source.empty()) js["source"] = st.source;
    if (!st.label.empty()) js["label"] = st.label;
    if (!st.loop_var.empty() || st.loop_from != 0 || st.loop_to != 0 || st.loop_step != 1) {
      js["loop"] = Json{
          {"var", st.loop_var}, {"from", st.loop_from}, {"to", st.loop_to}, {"step", st.loop_step}};
    }
    steps.push_back(std::move(js));
  }
  j["steps"] = std::move(steps);
  if (s.open_step != -1 && !check_open_step(s)) j["open_step"] = s.open_step;
  return j;
}

}  // namespace detail

std::string scenario_to_json(const Scenario& s) {
  // Invalid UTF-8 (text typed on a command line) is replaced, never thrown.
  return detail::scenario_to_json_value(s).dump(2, ' ', false,
                                                detail::Json::error_handler_t::replace) +
         "\n";
}

// [SECTION] Files

ScenarioLoad load_scenario_file(const std::string& path) {
  ScenarioLoad out;
  TextRead text = read_text_file(path, kMaxScenarioBytes);
  if (!text.text) {
    out.errors.push_back({"", 0, "cannot read the scenario file: " + text.error});
    return out;
  }
  out = scenario_from_json(*text.text);
  if (out.scenario && out.scenario->name == Scenario{}.name) {
    // A file without "name" is named after its stem, as presets are.
    std::string stem = path.substr(path.find_last_of("/\\") + 1);
    if (size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    // A file's name may hold any byte but '/': a Latin-1 byte, a newline. The name made of it is
    // printable (each such byte a '?'), not refused: the user gave no name.
    out.scenario->name = replace_controls(stem, '?');
  }
  return out;
}

}  // namespace bankviz
