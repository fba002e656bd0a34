// trace.cpp: Scenario -> Trace, the one per-thread evaluator (trace.h).
//
// [SECTION] Threads and labels
// [SECTION] Binding: one scope of typed names per step
// [SECTION] trace()
//
// Cost: every expression is parsed and bound once; lets are evaluated once per thread (not once
// per step) and the ones a step reads are copied into the thread's slots; thread coordinates are
// computed once. The hot loop allocates nothing per lane. The total is bounded (kMaxEvaluations)
// and checked before evaluating.
#include "bankviz/trace.h"

#include <algorithm>
#include <limits>

namespace bankviz {

// [SECTION] Threads and labels ===================================================================

ThreadIndex thread_of(int64_t tid, const int64_t block[3]) {
  return {tid % block[0], (tid / block[0]) % block[1], tid / (block[0] * block[1])};
}

std::string thread_text(const ThreadIndex& t) {
  return "thread (" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) +
         ")";
}

namespace {

std::string step_label(const Step& st, int64_t iteration) {
  std::string label = st.label;
  if (label.empty()) {
    label = st.kind == StepKind::Sync ? "__syncthreads()" : st.kind_text() + " " + st.index;
  }
  if (!st.loop_var.empty()) label += " (" + st.loop_var + "=" + std::to_string(iteration) + ")";
  return label;
}

// "tile[3][33]" for an issue message.
std::string element_text(const TileDecl& t, const std::vector<Value>& subs) {
  std::string out = t.name;
  for (const Value& v : subs) out += '[' + v.text() + ']';
  return out;
}

constexpr int kMaxBoundsIssuesPerStep = 8;

// Where a lane's integer subscripts put it in a tile under one instruction: the bounds of the
// padded extents, the element (row-major over them), its byte, and the wide instructions'
// alignment and whole row or copy in the tile. trace() and relayout() both place lanes here.
struct Placer {
  Placer(const TileDecl& tile, const OpSpec& op)
      : padded(tile.padded_dims()),
        layout(tile.layout()),
        width(op.width),
        elem_bytes(tile.elem_bytes()),
        span(std::max<int64_t>(1, op.width / tile.elem_bytes())),
        storage(tile.storage_elements()) {
    // fits() without a division per lane: for an offset x >= 0 from the base,
    // x / elem_bytes + span <= storage  <=>  x <= (storage - span) * elem_bytes + elem_bytes - 1.
    const int64_t rows = storage - span;
    if (rows < 0)
      fit_limit = -1;
    else if (__builtin_mul_overflow(rows, elem_bytes, &fit_limit) ||
             __builtin_add_overflow(fit_limit, elem_bytes - 1, &fit_limit))
      fit_limit = std::numeric_limits<int64_t>::max();  // every x an int64_t holds fits
  }
  std::vector<int64_t> padded;
  TileLayout layout;
  int64_t width, elem_bytes, span, storage;
  int64_t fit_limit = 0;  // the largest byte offset from the base that fits()

  // The first subscript outside its padded extent, or n when all are inside.
  size_t first_out_of_bounds(const int64_t* subs, size_t n) const {
    for (size_t d = 0; d < n; ++d)
      if (subs[d] < 0 || subs[d] >= padded[d]) return d;
    return n;
  }
  int64_t element(const int64_t* subs, size_t n) const {
    int64_t elem = 0;
    for (size_t d = 0; d < n; ++d) elem = elem * padded[d] + subs[d];
    return elem;
  }
  uint32_t byte(int64_t elem) const { return static_cast<uint32_t>(layout.byte_offset(elem)); }
  // A wide instruction (a vector, a matrix row, a copy) on its own alignment.
  bool aligned(uint32_t byte) const {
    return width <= elem_bytes || byte % static_cast<uint32_t>(width) == 0;
  }
  // The access's whole width inside the tile's storage.
  bool fits(uint32_t byte) const {
    const int64_t x = static_cast<int64_t>(byte) - layout.base;
    if (x >= 0) return x <= fit_limit;
    return x / elem_bytes + span <= storage;
  }
};

// [SECTION] Binding: one scope of typed names per step ===========================================

// Constants, then lets in order (each sees the constants and the lets before it). A step's scope
// adds its own loop variable (int) in the slot after the lets: as in C, a loop variable exists
// only inside its own loop.
struct Scope {
  Symbols symbols;          // constants and lets
  std::vector<Value> base;  // the constants' values, then a slot per let
  std::vector<BoundExpr> lets;
  std::vector<CType> let_types;
  size_t first_let = 0;  // slot of the first let
};

struct BoundStep {
  const Step* step = nullptr;
  int index = 0;
  int tile = -1;
  int loop_slot = -1;
  std::vector<BoundExpr> subscripts;
  std::vector<CType> subscript_types;  // subscripts[d].type()
  std::optional<BoundExpr> guard, value, source;
  std::vector<size_t> lets_read;  // the lets (0-based) its expressions name: copied per thread
  int64_t cost = 0;               // nodes evaluated per thread per execution
};

// Binds `text` (already known to parse) or reports why its names do not bind.
std::optional<BoundExpr> bind_text(const Expr& e, const Symbols& symbols, const std::string& path,
                                   std::vector<Diagnostic>& errors) {
  BindResult b = bind(e, symbols);
  if (!b.bound) errors.push_back({path, b.error.column, b.error.message});
  return std::move(b.bound);
}

// Binds the constants and lets; stops at the first let that does not bind.
Scope make_scope(const Scenario& s, size_t lets, std::vector<Diagnostic>& errors) {
  Scope sc;
  for (const Constant& c : s.constants) {
    sc.symbols.add(c.name, c.type());
    sc.base.push_back(Value::of(c.type(), c.value));
  }
  sc.first_let = sc.base.size();
  for (size_t k = 0; k < lets && k < s.lets.size(); ++k) {
    const Let& l = s.lets[k];
    ExprParse p = parse_expr(l.expr);
    if (!p.expr) {
      errors.push_back({"lets[" + std::to_string(k) + "].expr", p.error.column, p.error.message});
      return sc;
    }
    std::optional<BoundExpr> b =
        bind_text(*p.expr, sc.symbols, "lets[" + std::to_string(k) + "].expr", errors);
    if (!b) return sc;
    const CType type = l.type.empty() ? b->type() : parse_ctype(l.type).value_or(b->type());
    sc.symbols.add(l.name, type);
    sc.base.push_back(Value::of(type, 0));
    sc.lets.push_back(std::move(*b));
    sc.let_types.push_back(type);
  }
  return sc;
}

}  // namespace

std::vector<CType> let_types(const Scenario& s) {
  std::vector<Diagnostic> errors;
  return make_scope(s, s.lets.size(), errors).let_types;
}

std::optional<Value> folded_constant(const Scenario& s, std::string_view text, CType to) {
  const ExprParse p = parse_expr(text);
  if (!p.expr || p.expr->uses_builtin()) return std::nullopt;
  Env env;
  for (const Constant& c : s.constants) env.names[c.name] = Value::of(c.type(), c.value);
  std::vector<std::string> wanted = p.expr->names();
  bool lets_needed = false;
  for (const std::string& n : wanted) lets_needed |= env.names.count(n) == 0;
  if (lets_needed) {
    // The lets in order, each folded where it can be (a let shadows a constant of its name); a
    // let that reads a thread's value is left out, and so is any expression naming it.
    const std::vector<CType> types = let_types(s);
    for (size_t k = 0; k < types.size(); ++k) {
      env.names.erase(s.lets[k].name);
      const ExprParse lp = parse_expr(s.lets[k].expr);
      if (!lp.expr || lp.expr->uses_builtin()) continue;
      if (const std::optional<Value> v = lp.expr->eval(env))
        env.names[s.lets[k].name] = convert(*v, types[k]);
    }
  }
  const std::optional<Value> v = p.expr->eval(env);
  if (!v) return std::nullopt;
  return convert(*v, to);
}

bool uses_block_index(const Scenario& s) {
  auto uses = [](const std::string& text) {
    ExprParse p = parse_expr(text);
    return p.expr && p.expr->uses_block_index();
  };
  for (const Let& l : s.lets)
    if (uses(l.expr)) return true;
  for (const Step& st : s.steps) {
    if (!st.guard.empty() && uses(st.guard)) return true;
    if (!st.value.empty() && uses(st.value)) return true;
    if (!st.source.empty() && uses(st.source)) return true;
    for (const Expr& e : parse_subscripts(st.index, "").subscripts)
      if (e.uses_block_index()) return true;
  }
  return false;
}

// [SECTION] trace() ==============================================================================

namespace {

// Every step's expressions, bound in the step's scope (its loop variable in the slot after the
// lets); the lets each reads and the nodes it evaluates per thread.
std::vector<BoundStep> bind_steps(const Scenario& s, const Scope& sc,
                                  std::vector<Diagnostic>& errors) {
  std::vector<BoundStep> steps;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    BoundStep bs;
    bs.step = &st;
    bs.index = static_cast<int>(i);
    Symbols symbols = sc.symbols;
    if (!st.loop_var.empty()) bs.loop_slot = symbols.add(st.loop_var, CType::Int);
    const std::string path = "steps[" + std::to_string(i) + "].";
    if (st.is_memory()) {
      const TileDecl* tile = s.find_tile(st.tile);
      bs.tile = static_cast<int>(tile - s.tiles.data());
      for (const Expr& e : parse_subscripts(st.index, tile->name).subscripts) {
        if (auto b = bind_text(e, symbols, path + "index", errors)) {
          bs.subscript_types.push_back(b->type());
          bs.subscripts.push_back(std::move(*b));
        }
      }
      if (!st.guard.empty())
        bs.guard = bind_text(*parse_expr(st.guard).expr, symbols, path + "guard", errors);
      if (!st.value.empty())
        bs.value = bind_text(*parse_expr(st.value).expr, symbols, path + "value", errors);
      if (!st.source.empty())
        bs.source = bind_text(*parse_expr(st.source).expr, symbols, path + "source", errors);
    }
    std::vector<int> read;
    auto note = [&](const BoundExpr& e) {
      bs.cost += e.cost();
      for (int slot : e.slots()) read.push_back(slot);
    };
    for (const BoundExpr& e : bs.subscripts) note(e);
    if (bs.guard) note(*bs.guard);
    if (bs.value) note(*bs.value);
    if (bs.source) note(*bs.source);
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    for (int slot : read) {
      const auto first = static_cast<int>(sc.first_let);
      if (slot >= first && slot < first + static_cast<int>(sc.lets.size()))
        bs.lets_read.push_back(static_cast<size_t>(slot - first));
    }
    bs.cost += static_cast<int64_t>(bs.lets_read.size());
    steps.push_back(std::move(bs));
  }
  return steps;
}

// The work budget, before any evaluation: a scenario within every count limit can still ask for
// billions of evaluations (long guards on many thread-steps); say so instead of hanging.
bool within_budget(const Scenario& s, const Scope& sc, const std::vector<BoundStep>& steps,
                   std::vector<Diagnostic>& errors) {
  int64_t let_cost = 0;
  for (const BoundExpr& e : sc.lets) let_cost += e.cost();
  int64_t step_cost = 0;  // every count is capped by check(): no overflow in int64
  for (const BoundStep& bs : steps)
    step_cost += bs.step->iterations() * std::max<int64_t>(1, bs.cost);
  const int64_t total = s.threads() * (let_cost + step_cost);
  if (total > kMaxEvaluations) {
    errors.push_back(
        {"steps", 0,
         "the scenario needs " + std::to_string(total) +
             " expression evaluations (threads x executed steps x expression size, lets " +
             "included); at most " + std::to_string(kMaxEvaluations) +
             " are modelled: shorten the expressions, or use fewer loop iterations or threads"});
    return false;
  }
  return true;
}

// One executed memory step's facts, the same for every lane.
struct ExecStep {
  const BoundStep& bs;
  const Step& st;
  int64_t iteration = 0;
  int exec = 0;
  TraceStep& ts;
  const TileDecl& tile;
  Placer place;
  int comps = 1;
  OpSpec op;
  uint32_t address_lanes = 0;
  const StepKindInfo& kind;
  int values = 1;
  std::string path;
  int bounds_issues = 0;
};

// One block's evaluation: thread coordinates, the lets once per thread, then every executed
// step, warp and lane.
struct Tracer {
  Tracer(const Scenario& sc_, const Scope& scope, TraceResult& result, int64_t block_index,
         int64_t grid)
      : s(sc_),
        sc(scope),
        out(result),
        threads(sc_.threads()),
        warps(static_cast<int>(sc_.warps())),
        nlets(scope.lets.size()) {
    t.block_index = block_index;
    t.grid = grid;
    for (int d = 0; d < 3; ++d) env.blockDim[d] = static_cast<uint32_t>(s.block[d]);
    env.blockIdx[0] = static_cast<uint32_t>(block_index);
    env.gridDim[0] = static_cast<uint32_t>(grid);
    env.slots = sc.base;
    env.slots.emplace_back();  // a step's loop variable
    tidx.resize(static_cast<size_t>(threads));
    for (int64_t tid = 0; tid < threads; ++tid)
      tidx[static_cast<size_t>(tid)] = thread_of(tid, s.block);
  }

  const Scenario& s;
  const Scope& sc;
  TraceResult& out;
  Trace t;
  const int64_t threads;
  const int warps;
  const size_t nlets;
  Env env;
  std::vector<ThreadIndex> tidx;
  std::vector<Value> let_values;  // [thread][let]
  std::vector<Value> subs;
  std::vector<int64_t> isubs;  // subs as integers
  ExprError lane_error;

  std::string where(int64_t tid) const {
    std::string w = thread_text(tidx[static_cast<size_t>(tid)]);
    if (t.grid > 1) w = "block " + std::to_string(t.block_index) + ", " + w;
    return w;
  }
  void enter(int64_t tid) {
    const ThreadIndex& ti = tidx[static_cast<size_t>(tid)];
    env.threadIdx[0] = static_cast<uint32_t>(ti.x);
    env.threadIdx[1] = static_cast<uint32_t>(ti.y);
    env.threadIdx[2] = static_cast<uint32_t>(ti.z);
  }
  void fail(const ExecStep& c, const char* field, const ExprError& err, int64_t tid) {
    std::string w = where(tid);
    if (!c.st.loop_var.empty()) w += ", " + c.st.loop_var + "=" + std::to_string(c.iteration);
    out.errors.push_back({c.path + field, err.column, w + ": " + err.message});
  }
  bool evaluate_lets();
  bool step(const BoundStep& bs, int64_t iteration);
  bool trace_lane(ExecStep& c, WarpTrace& wt, int w, int lane);
  bool copy_source(ExecStep& c, WarpTrace& wt, int lane, int64_t tid);
};

// cp.async: the chunk the lane copies, its "source" (or the thread's linear index), which must
// lie inside the kernel's input (kSourceBytes). False after an error (out.errors).
bool Tracer::copy_source(ExecStep& c, WarpTrace& wt, int lane, int64_t tid) {
  int64_t chunk = tid;
  if (c.bs.source) {
    ExprError err;
    const std::optional<Value> v = c.bs.source->eval(env, &err);
    if (!v) {
      fail(c, "source", err, tid);
      return false;
    }
    const std::optional<int64_t> n = v->to_int64();
    const int64_t chunks = kSourceBytes / c.st.copy_bytes;
    if (!n || *n < 0 || *n >= chunks) {
      fail(c, "source",
           {0, "the source chunk is " + v->text() +
                   ", outside the kernel's input: " + c.st.kind_text() + " copies chunk 0 to " +
                   std::to_string(chunks - 1) + " (" + std::to_string(kSourceBytes) + " bytes of " +
                   std::to_string(c.st.copy_bytes) + ")"},
           tid);
      return false;
    }
    chunk = *n;
  }
  wt.chunk[static_cast<size_t>(lane)] = static_cast<uint32_t>(chunk);
  return true;
}

// Lets: once per thread, in order, converted to their declared type as an initialization does.
bool Tracer::evaluate_lets() {
  let_values.resize(static_cast<size_t>(threads) * nlets);
  for (int64_t tid = 0; tid < threads; ++tid) {
    enter(tid);
    for (size_t k = 0; k < nlets; ++k) {
      ExprError err;
      std::optional<Value> v = sc.lets[k].eval(env, &err);
      if (!v) {
        out.errors.push_back(
            {"lets[" + std::to_string(k) + "].expr", err.column, where(tid) + ": " + err.message});
        return false;
      }
      const Value typed = convert(*v, sc.let_types[k]);
      env.slots[sc.first_let + k] = typed;
      let_values[static_cast<size_t>(tid) * nlets + k] = typed;
    }
  }
  return true;
}

// One executed step: every warp and lane of the block. False after an error (out.errors).
bool Tracer::step(const BoundStep& bs, int64_t iteration) {
  const Step& st = *bs.step;
  if (bs.loop_slot >= 0)
    env.slots[static_cast<size_t>(bs.loop_slot)] = Value::of(CType::Int, iteration);
  const int exec = static_cast<int>(t.steps.size());
  TraceStep& ts = t.steps.emplace_back();
  ts.info = {bs.index, iteration, st.kind, bs.tile, step_label(st, iteration)};
  ts.value_type = bs.value ? bs.value->type() : CType::UInt;
  ts.has_source = bs.source.has_value();
  if (!st.is_memory()) return true;  // __syncthreads(): a barrier, no access

  const TileDecl& tile = s.tiles[static_cast<size_t>(bs.tile)];
  const int comps = tile.type().lanes;

  // The instruction: which lanes give an address (matrix rows: lanes 0..8N-1; every lane of
  // the warp still takes part and, for stmatrix, supplies data), how wide each access is.
  const OpSpec op = st.op(tile.elem_bytes());
  const uint32_t address_lanes = op.lanes(~0u);
  // Values a lane supplies: a vector element's components, or stmatrix's 2 halves per matrix.
  const StepKindInfo& kind = st.info();
  const int values = kind.variant == StepVariant::Matrices ? 2 * st.matrices : comps;
  subs.resize(bs.subscripts.size());
  isubs.resize(bs.subscripts.size());
  ts.warps.resize(static_cast<size_t>(warps));
  ExecStep c{bs,
             st,
             iteration,
             exec,
             ts,
             tile,
             Placer(tile, op),
             comps,
             op,
             address_lanes,
             kind,
             values,
             "steps[" + std::to_string(bs.index) + "].",
             0};
  for (int w = 0; w < warps; ++w) {
    WarpTrace& wt = ts.warps[static_cast<size_t>(w)];
    wt.element.fill(-1);
    for (int lane_index = 0; lane_index < kWarpSize; ++lane_index) {
      // The last warp of a partial block: its lanes past the block stay inactive.
      if (int64_t{w} * kWarpSize + lane_index >= threads) break;
      if (!trace_lane(c, wt, w, lane_index)) return false;
    }
  }
  const int bounds_issues = c.bounds_issues;
  if (bounds_issues > kMaxBoundsIssuesPerStep) {
    t.issues.push_back({exec, -1, -1,
                        "step " + std::to_string(exec) + " (" + ts.info.label +
                            "): " + std::to_string(bounds_issues - kMaxBoundsIssuesPerStep) +
                            " more out-of-bounds accesses not listed"});
  }
  return true;
}

// One lane of an executed memory step: its guard, subscripts, bounds, alignment and value.
// False after an error (out.errors); an out-of-bounds lane is an issue and stays inactive.
bool Tracer::trace_lane(ExecStep& c, WarpTrace& wt, int w, int lane) {
  const BoundStep& bs = c.bs;
  const Step& st = c.st;
  const TileDecl& tile = c.tile;
  const Placer& place = c.place;
  const OpSpec& op = c.op;
  const uint32_t address_lanes = c.address_lanes;
  const StepKindInfo& kind = c.kind;
  const int values = c.values;
  const int exec = c.exec;
  const TraceStep& ts = c.ts;
  int& bounds_issues = c.bounds_issues;
  const int64_t tid = int64_t{w} * kWarpSize + lane;
  enter(tid);
  for (size_t k : bs.lets_read)
    env.slots[sc.first_let + k] = let_values[static_cast<size_t>(tid) * nlets + k];
  ExprError& err = lane_error;  // reused: a lane allocates nothing
  uint64_t bits = 0;
  if (bs.guard) {
    if (!bs.guard->eval_bits(env, bits, &err)) {
      fail(c, "guard", err, tid);
      return false;
    }
    if (bits == 0) return true;  // if (guard) false: the lane sits this instruction out
  }
  const bool gives_address = ((address_lanes >> lane) & 1u) != 0;
  // A lane of a matrix instruction that gives no row address: stmatrix still takes its
  // registers; ldmatrix gives it a fragment (kernels/reference.h); it accesses nothing.
  if (!gives_address && !kind.value) return true;
  // (subscripts) -> element offset, row-major over the padded extents.
  size_t bad = subs.size();
  if (gives_address) {
    for (size_t d = 0; d < subs.size(); ++d) {
      if (!bs.subscripts[d].eval_bits(env, bits, &err)) {
        fail(c, "index", err, tid);
        return false;
      }
      subs[d] = Value{bs.subscript_types[d], bits};
      // A subscript no int64_t holds is out of bounds as -1 is.
      isubs[d] = subs[d].to_int64().value_or(-1);
    }
    bad = place.first_out_of_bounds(isubs.data(), isubs.size());
  }
  if (bad < subs.size()) {
    // Out of bounds is undefined behaviour in CUDA: report it, never model it.
    if (bounds_issues++ < kMaxBoundsIssuesPerStep) {
      t.issues.push_back({exec, w, lane,
                          "step " + std::to_string(exec) + " (" + ts.info.label +
                              "): " + where(tid) + ": " + element_text(tile, subs) +
                              " is out of bounds: subscript " + std::to_string(bad + 1) + " is " +
                              subs[bad].text() + ", outside [0," +
                              std::to_string(place.padded[bad]) + ")"});
    }
    ++t.out_of_bounds;
    return true;
  }
  int64_t elem = 0;
  uint32_t byte = 0;
  if (gives_address) {
    elem = place.element(isubs.data(), isubs.size());
    byte = place.byte(elem);
    // The wide instructions need their own alignment (undefined behaviour otherwise: a
    // misaligned-address fault on the GPU), and their whole row or copy in the tile.
    if (!place.aligned(byte)) {
      fail(c, "index",
           {0, std::string(kind.width == StepWidth::Copy ? "the destination of "
                                                         : "the row address of ") +
                   st.kind_text() + ", " + element_text(tile, subs) + " at byte " +
                   std::to_string(byte) + ", is not " + std::to_string(op.width) + "-byte aligned"},
           tid);
      return false;
    }
    if (!place.fits(byte)) {
      if (bounds_issues++ < kMaxBoundsIssuesPerStep) {
        t.issues.push_back({exec, w, lane,
                            "step " + std::to_string(exec) + " (" + ts.info.label +
                                "): " + where(tid) + ": the " + std::to_string(op.width) +
                                " bytes from " + element_text(tile, subs) +
                                " run past the end of tile '" + tile.name + "'"});
      }
      ++t.out_of_bounds;
      return true;
    }
  }
  if (kind.value) {
    Value v{CType::UInt, static_cast<uint64_t>(tid)};  // default: the linear index
    if (bs.value) {
      if (!bs.value->eval_bits(env, bits, &err)) {
        fail(c, "value", err, tid);
        return false;
      }
      v = Value{c.ts.value_type, bits};  // bs.value->type()
    }
    // A vector element stores value, value + 1, ... in its components (codegen), and
    // stmatrix value, value + 1, ... in its registers' halves.
    if (values > 1 && ctype_signed(v.type)) {
      const int64_t max = ctype_bits(v.type) == 32 ? INT32_MAX : INT64_MAX;
      if (static_cast<int64_t>(v.bits) > max - (values - 1)) {
        const std::string what = kind.variant == StepVariant::Matrices
                                     ? "the " + st.kind_text() + " registers' halves"
                                     : "the " + std::string(tile.type().name) + "'s components";
        err = {1, what + " are value, value + 1, ...: value + " + std::to_string(values - 1) +
                      " = " + v.text() + " + " + std::to_string(values - 1) + " overflows " +
                      ctype_name(v.type)};
        {
          fail(c, "value", err, tid);
          return false;
        }
      }
    }
    wt.value[static_cast<size_t>(lane)] = v.bits;
  }
  if (!gives_address) return true;  // stmatrix: the registers only
  if (kind.from_global && !copy_source(c, wt, lane, tid)) return false;
  wt.mask |= 1u << lane;
  wt.element[static_cast<size_t>(lane)] = static_cast<int32_t>(elem);
  wt.byte[static_cast<size_t>(lane)] = byte;
  return true;
}

}  // namespace

namespace {

// What relayout() needs of the change before any lane: every lane of `t` kept its subscripts (none
// out of bounds), and the tile keeps its rank and element type.
bool can_relayout(const Scenario& changed, int tile, const TileDecl& traced, const Trace& t) {
  if (t.out_of_bounds != 0 || tile < 0 || static_cast<size_t>(tile) >= changed.tiles.size())
    return false;
  const TileDecl& now = changed.tiles[static_cast<size_t>(tile)];
  return now.dims.size() == traced.dims.size() && &now.type() == &traced.type();
}

// Re-places the active lanes of one warp of a step of the tile, in place: `place` is the changed
// tile's Placer for the step's instruction, `before` the padded extents the lanes were traced with.
bool replace_warp(const Placer& place, const std::vector<int64_t>& before, WarpTrace& wt) {
  const size_t rank = before.size();
  // The same padded extents (a swizzle changed): the same subscripts are the same element,
  // in bounds as before; only its byte moves.
  const bool same_extents = place.padded == before;
  std::array<int64_t, 3> subs{};  // a tile has 1 to 3 subscripts (check())
  if (rank > subs.size()) return false;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (((wt.mask >> lane) & 1u) == 0) continue;
    if (same_extents) {
      const uint32_t byte = place.byte(wt.element[static_cast<size_t>(lane)]);
      if (!place.aligned(byte) || !place.fits(byte)) return false;
      wt.byte[static_cast<size_t>(lane)] = byte;
      continue;
    }
    // element -> subscripts, row-major over the extents it was traced with (in bounds).
    int64_t rest = wt.element[static_cast<size_t>(lane)];
    for (size_t d = rank; d-- > 1;) {
      subs[d] = rest % before[d];
      rest /= before[d];
    }
    subs[0] = rest;
    if (place.first_out_of_bounds(subs.data(), rank) < rank) return false;
    const int64_t elem = place.element(subs.data(), rank);
    const uint32_t byte = place.byte(elem);
    if (!place.aligned(byte) || !place.fits(byte)) return false;
    wt.element[static_cast<size_t>(lane)] = static_cast<int32_t>(elem);
    wt.byte[static_cast<size_t>(lane)] = byte;
  }
  return true;
}

// The changed tile's Placer for executed step `ts`'s instruction.
Placer changed_placer(const Scenario& changed, int tile, const TraceStep& ts) {
  const TileDecl& now = changed.tiles[static_cast<size_t>(tile)];
  return Placer(now, changed.steps[static_cast<size_t>(ts.info.step)].op(now.elem_bytes()));
}

// Re-places the lanes of `ts` (a step of the tile, holding the trace's lanes) in place.
bool replace_lanes(const Scenario& changed, int tile, const std::vector<int64_t>& before,
                   TraceStep& ts) {
  const Placer place = changed_placer(changed, tile, ts);
  for (WarpTrace& wt : ts.warps)
    if (!replace_warp(place, before, wt)) return false;
  return true;
}

}  // namespace

std::optional<Trace> relayout(const Scenario& changed, int tile, const TileDecl& traced,
                              const Trace& t) {
  if (!can_relayout(changed, tile, traced, t)) return std::nullopt;
  const std::vector<int64_t> before = traced.padded_dims();
  Trace out = t;
  for (TraceStep& ts : out.steps)
    if (ts.info.tile == tile && !ts.warps.empty() && !replace_lanes(changed, tile, before, ts))
      return std::nullopt;
  return out;
}

bool relayout_step(const Scenario& changed, int tile, const TileDecl& traced, const Trace& t,
                   size_t exec, TraceStep& out) {
  if (!can_relayout(changed, tile, traced, t) || exec >= t.steps.size()) return false;
  out = t.steps[exec];
  return out.info.tile != tile || out.warps.empty() ||
         replace_lanes(changed, tile, traced.padded_dims(), out);
}

bool relayout_warp(const Scenario& changed, int tile, const TileDecl& traced, const Trace& t,
                   size_t exec, size_t warp, WarpTrace& out) {
  if (!can_relayout(changed, tile, traced, t) || exec >= t.steps.size() ||
      warp >= t.steps[exec].warps.size())
    return false;
  const TraceStep& ts = t.steps[exec];
  out = ts.warps[warp];
  return ts.info.tile != tile ||
         replace_warp(changed_placer(changed, tile, ts), traced.padded_dims(), out);
}

TraceResult trace(const Scenario& s, const TraceOptions& o) {
  TraceResult out;
  out.errors = check(s);
  if (!out.errors.empty()) return out;
  const int64_t grid = o.grid > 0 ? o.grid : s.grid;
  if (o.block_index < 0 || o.block_index >= grid || grid > UINT32_MAX) {
    out.errors.push_back({"grid", 0,
                          "block " + std::to_string(o.block_index) + " is not in a grid of " +
                              std::to_string(grid) + " blocks"});
    return out;
  }
  Scope sc = make_scope(s, s.lets.size(), out.errors);
  if (!out.errors.empty()) return out;
  const std::vector<BoundStep> steps = bind_steps(s, sc, out.errors);
  if (!out.errors.empty() || !within_budget(s, sc, steps, out.errors)) return out;

  Tracer tr(s, sc, out, o.block_index, grid);
  if (!tr.evaluate_lets()) return out;
  for (const BoundStep& bs : steps) {
    const Step& st = *bs.step;
    const int64_t n = st.iterations();
    for (int64_t it = 0; it < n; ++it) {
      const int64_t iteration = st.loop_var.empty() ? 0 : st.loop_from + it * st.loop_step;
      if (!tr.step(bs, iteration)) return out;
    }
  }
  out.trace = std::move(tr.t);
  return out;
}

}  // namespace bankviz
