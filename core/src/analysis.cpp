// analysis.cpp: Scenario -> Analysis. The trace (trace.h) gives every lane's element and byte for
// every executed step; this serves each warp instruction through the bank model (access.h) and
// reports the trace's out-of-bounds lanes and the hazard model's races (hazard.h).
//
// [SECTION] analyze()
// [SECTION] Analysis totals
#include "bankviz/analysis.h"

#include <algorithm>
#include <string_view>

namespace bankviz {

// [SECTION] analyze()

OpSpec compiled_op(const Scenario& s, int step, const Arch& arch) {
  const Step& st = s.steps[static_cast<size_t>(step)];
  const TileDecl* t = s.find_tile(st.tile);
  OpSpec o = st.op(t ? t->elem_bytes() : 4);
  // ptxas turns atom.shared.add.u32 [a], 1 (the result unused, as in every kernel bankviz
  // generates) into ATOMS.POPC.INC.32 for sm_90 (cuobjdump, CUDA 13.0): lanes on one address
  // merge. Measured on an H100: the histogram's atomic step counts 25.20 wavefronts per block
  // over 1056 blocks, the ATOMS.ADD rule 28.31, this one 25.21. Only Hopper's rules are
  // measured, so only there.
  // The value as the compiler folds it: "(1)", "2 - 1", "0x1", "(int)1", "1ll" and a constant
  // named ONE are the constant 1 (trace.h folded_constant()), converted to the element's type.
  if (o.op == Op::Atomic && arch.measured && t) {
    const ElemType& e = t->type();
    if (e.bytes == 4 && e.lanes == 1 && !e.is_float()) {
      const CType to = e.comp_kind == CompKind::SInt ? CType::Int : CType::UInt;
      const std::optional<Value> v = folded_constant(s, st.value, to);
      if (v && v->bits == 1) o.op = Op::AtomicInc;
    }
  }
  return o;
}

AnalysisResult analyze(const Scenario& s, const Arch* arch_override) {
  return analyze(s, arch_override, TraceOptions{});
}

namespace {

// One warp of an executed memory step through the bank model: "" and its result (with its
// detail, or only the counts), or why validate() refuses the access (then it serves nothing).
std::string serve_warp(const Arch& arch, const OpSpec& op, const TraceStep& ts, const WarpTrace& wt,
                       WarpStep& ws, bool detail = true, ServeMemo* memo = nullptr) {
  ws.access.width = op.width;
  ws.access.mask = wt.mask;
  ws.access.addr = wt.byte;
  ws.access.has_source = ts.has_source;  // else coalesced: WarpAccess::source_of()
  if (ts.has_source)
    for (size_t l = 0; l < kWarpSize; ++l)
      ws.access.source[l] = wt.chunk[l] * static_cast<uint32_t>(op.width);
  std::copy(wt.element.begin(), wt.element.end(), ws.element.begin());
  if (ws.access.mask == 0) return {};
  if (detail) memo = nullptr;  // the memo keeps the counts only
  if (const StepFigures* f = memo ? memo->find(arch, op.op, ws.access) : nullptr) {
    ws.result.wavefronts = f->wavefronts;  // what count_access() gave it: the counts alone
    ws.result.ideal = f->ideal;
    return {};
  }
  if (std::string bad = validate(op.op, ws.access); !bad.empty()) {
    ws.access.mask = 0;
    ws.element.fill(-1);
    return bad;
  }
  ws.result = detail ? serve(arch, op.op, ws.access) : count_access(arch, op.op, ws.access);
  if (memo) memo->keep(op.op, ws.access, {ws.result.wavefronts, ws.result.ideal, 1});
  return {};
}

// One warp through the bank model for its counts: serve_warp() without the detail, as figures
// (an instruction when it has an active lane and validate() accepts it).
StepFigures serve_counts(const Arch& arch, const OpSpec& op, const TraceStep& ts,
                         const WarpTrace& wt, WarpStep& ws, ServeMemo* memo = nullptr) {
  ws.result = {};
  serve_warp(arch, op, ts, wt, ws, false, memo);
  return {ws.result.wavefronts, ws.result.ideal, ws.access.mask != 0 ? 1 : 0};
}

uint64_t mix(uint64_t h, uint64_t w) {
  return (h ^ w) * 0x9E3779B97F4A7C15ull;
}

}  // namespace

size_t ServeMemo::Hash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.op) << 40 ^ static_cast<uint64_t>(k.width) << 32 ^ k.mask;
  for (size_t l = 0; l < kWarpSize; l += 2)
    h = mix(h, static_cast<uint64_t>(k.addr[l]) << 32 | k.addr[l + 1]);
  if (k.has_source)
    for (size_t l = 0; l < kWarpSize; l += 2)
      h = mix(h, static_cast<uint64_t>(k.source[l]) << 32 | k.source[l + 1]);
  return static_cast<size_t>(h ^ h >> 29);
}

void ServeMemo::set(Op op, const WarpAccess& a) {
  key_.op = op, key_.width = a.width, key_.mask = a.mask, key_.has_source = a.has_source;
  key_.addr = a.addr;
  if (a.has_source)
    key_.source = a.source;
  else
    key_.source.fill(0);
}

const StepFigures* ServeMemo::find(const Arch& arch, Op op, const WarpAccess& a) {
  if (arch_ != &arch) seen_.clear(), arch_ = &arch;
  set(op, a);
  const auto it = seen_.find(key_);
  return it == seen_.end() ? nullptr : &it->second;
}

void ServeMemo::keep(Op op, const WarpAccess& a, const StepFigures& f) {
  if (seen_.size() >= kMaxEntries) return;
  set(op, a);
  seen_.emplace(key_, f);
}

StepFigures serve_step(const Scenario& s, const Arch& arch, const TraceStep& ts, ServeMemo* memo) {
  StepFigures f;
  if (ts.warps.empty()) return f;
  const OpSpec op = compiled_op(s, ts.info.step, arch);
  WarpStep ws;
  for (const WarpTrace& wt : ts.warps) f += serve_counts(arch, op, ts, wt, ws, memo);
  return f;
}

namespace {

// What tells two warp accesses of a trace apart for relayout_warp() and the bank model: the
// executed step's tile and instruction (compiled_op(): its width places the lanes, and the op
// and width serve them), the active lanes, each lane's element (what is re-placed), byte (what
// is served where nothing is re-placed) and source.
struct AccessKey {
  int tile = -1;
  Op op = Op::Load;
  int width = 0;
  uint32_t mask = 0;
  bool has_source = false;
  std::array<int32_t, kWarpSize> element{};
  std::array<uint32_t, kWarpSize> byte{}, chunk{};
  bool operator==(const AccessKey&) const = default;
};

struct AccessKeyHash {
  size_t operator()(const AccessKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.op) << 40 ^ static_cast<uint64_t>(k.width) << 32 ^ k.mask;
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(k.tile)) << 1 | (k.has_source ? 1 : 0));
    for (size_t l = 0; l < kWarpSize; l += 2) {
      h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(k.element[l])) << 32 |
                     static_cast<uint32_t>(k.element[l + 1]));
      h = mix(h, static_cast<uint64_t>(k.byte[l]) << 32 | k.byte[l + 1]);
      if (k.has_source) h = mix(h, static_cast<uint64_t>(k.chunk[l]) << 32 | k.chunk[l + 1]);
    }
    return static_cast<size_t>(h ^ h >> 29);
  }
};

}  // namespace

TraceVariants::TraceVariants(const Scenario& s, const Arch& arch, const Trace& t)
    : s_(s), arch_(arch), t_(t) {
  std::unordered_map<AccessKey, uint32_t, AccessKeyHash> groups;
  AccessKey key;
  for (size_t exec = 0; exec < t.steps.size(); ++exec) {
    const TraceStep& ts = t.steps[exec];
    if (ts.warps.empty()) continue;
    const OpSpec op = compiled_op(s, ts.info.step, arch);
    key.tile = ts.info.tile, key.op = op.op, key.width = op.width, key.has_source = ts.has_source;
    for (size_t w = 0; w < ts.warps.size(); ++w) {
      const WarpTrace& wt = ts.warps[w];
      key.mask = wt.mask, key.element = wt.element, key.byte = wt.byte;
      if (ts.has_source) key.chunk = wt.chunk;
      const auto [it, fresh] = groups.try_emplace(key, static_cast<uint32_t>(reps_.size()));
      if (fresh) reps_.emplace_back(static_cast<uint32_t>(exec), static_cast<uint32_t>(w));
      group_.push_back(it->second);
    }
  }
}

std::optional<std::vector<StepFigures>> TraceVariants::figures(const Scenario& changed,
                                                               int tile) const {
  if (tile < 0 || static_cast<size_t>(tile) >= s_.tiles.size()) return std::nullopt;
  const TileDecl& traced = s_.tiles[static_cast<size_t>(tile)];
  // A trace with no warp access: relayout() still says whether the change is one it can tell.
  if (reps_.empty() && !relayout(changed, tile, traced, t_)) return std::nullopt;
  std::vector<StepFigures> group(reps_.size());
  WarpTrace wt;
  WarpStep ws;
  for (size_t g = 0; g < reps_.size(); ++g) {
    const auto [exec, w] = reps_[g];
    if (!relayout_warp(changed, tile, traced, t_, exec, w, wt)) return std::nullopt;
    const TraceStep& ts = t_.steps[exec];
    group[g] = serve_counts(arch_, compiled_op(changed, ts.info.step, arch_), ts, wt, ws);
  }
  std::vector<StepFigures> out(t_.steps.size());
  size_t next = 0;
  for (size_t exec = 0; exec < t_.steps.size(); ++exec)
    for (size_t w = 0; w < t_.steps[exec].warps.size(); ++w) out[exec] += group[group_[next++]];
  return out;
}

AnalysisResult analyze(const Scenario& s, const Arch* arch_override, const TraceOptions& block) {
  TraceResult tr = trace(s, block);
  if (!tr.trace) {
    AnalysisResult out;
    out.errors = std::move(tr.errors);
    return out;
  }
  return analyze(s, arch_override, std::move(*tr.trace));
}

AnalysisResult analyze(const Scenario& s, const Arch* arch_override, Trace t, ServeDetail detail) {
  AnalysisResult out;
  const Arch* arch = arch_override ? arch_override : find_arch(s.arch);
  if (arch == nullptr) {  // check() already rejects this; kept for safety
    out.errors.push_back({"arch", 0, "unknown architecture '" + s.arch + "'"});
    return out;
  }
  Analysis a;
  a.scenario = s;
  a.arch = arch;
  a.issues = t.issues;
  a.out_of_bounds = t.out_of_bounds;
  const int warps = static_cast<int>(s.warps());
  ServeMemo memo;  // counts only: a warp access met again is not served again
  for (size_t exec = 0; exec < t.steps.size(); ++exec) {
    const TraceStep& ts = t.steps[exec];
    a.steps.push_back(ts.info);
    std::vector<WarpStep>& row = a.warps.emplace_back(static_cast<size_t>(warps));
    const OpSpec op = ts.warps.empty() ? OpSpec{} : compiled_op(s, ts.info.step, *arch);
    for (int w = 0; w < warps; ++w) {
      WarpStep& ws = row[static_cast<size_t>(w)];
      ws.warp = w;
      ws.access.mask = 0;
      ws.element.fill(-1);
      if (ts.warps.empty()) continue;  // __syncthreads()
      if (std::string bad = serve_warp(*arch, op, ts, ts.warps[static_cast<size_t>(w)], ws,
                                       detail == ServeDetail::Full, &memo);
          !bad.empty())
        a.issues.push_back(
            {static_cast<int>(exec), w, -1, "step " + std::to_string(exec) + ": " + bad});
    }
  }
  a.hazards = find_hazards(s, t);
  for (const Hazard& h : a.hazards.examples)
    a.issues.push_back({h.second.step, h.second.warp, h.second.lane, h.message});
  // More racing step pairs than examples, or pairs behind a slot's many writers left unnamed.
  if (a.hazards.pairs > static_cast<int64_t>(a.hazards.examples.size()) ||
      a.hazards.unnamed_writers) {
    std::string counts;
    for (HazardKind k : {HazardKind::ReadAfterWrite, HazardKind::WriteAfterRead,
                         HazardKind::WriteAfterWrite, HazardKind::AtomicVsPlain}) {
      if (a.hazards.count(k) == 0) continue;
      counts += std::string(counts.empty() ? "" : ", ") + std::to_string(a.hazards.count(k)) + " " +
                hazard_kind_name(k);
    }
    a.issues.push_back(
        {-1, -1, -1,
         "races: " + std::to_string(a.hazards.racing_accesses) + " racing lane accesses in all (" +
             counts + "), " + std::to_string(a.hazards.pairs) + " racing step pairs, " +
             std::to_string(a.hazards.examples.size()) + " of them named above" +
             (a.hazards.unnamed_writers ? " (at least: so many steps write one slot between two "
                                          "barriers that some pairs are left unnamed)"
                                        : "")});
  }
  out.analysis = std::move(a);
  return out;
}

// [SECTION] Analysis totals

int Analysis::warp_count() const {
  return static_cast<int>(scenario.warps());
}

int Analysis::step_wavefronts(int step) const {
  int sum = 0;
  if (step < 0 || step >= static_cast<int>(warps.size())) return 0;
  for (const WarpStep& ws : warps[static_cast<size_t>(step)]) sum += ws.result.wavefronts;
  return sum;
}

int Analysis::step_ideal(int step) const {
  int sum = 0;
  if (step < 0 || step >= static_cast<int>(warps.size())) return 0;
  for (const WarpStep& ws : warps[static_cast<size_t>(step)]) sum += ws.result.ideal;
  return sum;
}

int Analysis::step_instructions(int step) const {
  int n = 0;
  if (step < 0 || step >= static_cast<int>(warps.size())) return 0;
  for (const WarpStep& ws : warps[static_cast<size_t>(step)]) n += ws.access.mask != 0 ? 1 : 0;
  return n;
}

double Analysis::step_per_request(int step) const {
  return StepFigures{step_wavefronts(step), step_ideal(step), step_instructions(step)}
      .per_request();
}

OpSpec Analysis::step_op(int step) const {
  const StepInfo& info = steps[static_cast<size_t>(step)];
  if (info.tile < 0) return {};
  return compiled_op(scenario, info.step, *arch);
}

int Analysis::total_wavefronts() const {
  int sum = 0;
  for (int i = 0; i < static_cast<int>(warps.size()); ++i) sum += step_wavefronts(i);
  return sum;
}

int Analysis::total_ideal() const {
  int sum = 0;
  for (int i = 0; i < static_cast<int>(warps.size()); ++i) sum += step_ideal(i);
  return sum;
}

std::vector<StepFigures> Analysis::step_figures() const {
  std::vector<StepFigures> out(warps.size());
  for (size_t i = 0; i < warps.size(); ++i)
    for (const WarpStep& ws : warps[i])
      out[i] += {ws.result.wavefronts, ws.result.ideal, ws.access.mask != 0 ? 1 : 0};
  return out;
}

int Analysis::worst_step() const {
  return bankviz::worst_step(steps, step_figures());
}

int worst_step(const std::vector<StepInfo>& steps, const std::vector<StepFigures>& figures) {
  int best = -1;
  double best_ratio = -1;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind == StepKind::Sync) continue;
    const StepFigures f = i < figures.size() ? figures[i] : StepFigures{};
    const double ratio = f.ideal > 0 ? static_cast<double>(f.wavefronts) / f.ideal : 0;
    if (ratio > best_ratio) best = static_cast<int>(i), best_ratio = ratio;
  }
  return best;
}

}  // namespace bankviz
