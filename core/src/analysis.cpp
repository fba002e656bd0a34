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

namespace {

// The value expression is the constant 1 ("1", "1u", "1U"; spaces around allowed).
bool is_constant_one(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v == "1" || v == "1u" || v == "1U";
}

}  // namespace

OpSpec compiled_op(const Scenario& s, int step, const Arch& arch) {
  const Step& st = s.steps[static_cast<size_t>(step)];
  const TileDecl* t = s.find_tile(st.tile);
  OpSpec o = st.op(t ? t->elem_bytes() : 4);
  // ptxas turns atom.shared.add.u32 [a], 1 (the result unused, as in every kernel bankviz
  // generates) into ATOMS.POPC.INC.32 for sm_90 (cuobjdump, CUDA 13.0): lanes on one address
  // merge. Measured on an H100: the histogram's atomic step counts 25.20 wavefronts per block
  // over 1056 blocks, the ATOMS.ADD rule 28.31, this one 25.21. Only Hopper's rules are
  // measured, so only there.
  if (o.op == Op::Atomic && arch.measured && t && is_constant_one(st.value)) {
    const ElemType& e = t->type();
    if (e.bytes == 4 && e.lanes == 1 && !e.is_float()) o.op = Op::AtomicInc;
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
                       WarpStep& ws, bool detail = true) {
  ws.access.width = op.width;
  ws.access.mask = wt.mask;
  ws.access.addr = wt.byte;
  ws.access.has_source = ts.has_source;  // else coalesced: WarpAccess::source_of()
  if (ts.has_source)
    for (size_t l = 0; l < kWarpSize; ++l)
      ws.access.source[l] = wt.chunk[l] * static_cast<uint32_t>(op.width);
  std::copy(wt.element.begin(), wt.element.end(), ws.element.begin());
  if (ws.access.mask == 0) return {};
  if (std::string bad = validate(op.op, ws.access); !bad.empty()) {
    ws.access.mask = 0;
    ws.element.fill(-1);
    return bad;
  }
  ws.result = detail ? serve(arch, op.op, ws.access) : count_access(arch, op.op, ws.access);
  return {};
}

}  // namespace

size_t ServeMemo::Hash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.op) << 40 ^ static_cast<uint64_t>(k.width) << 32 ^ k.mask;
  auto mix = [&h](uint64_t w) { h = (h ^ w) * 0x9E3779B97F4A7C15ull; };
  for (size_t l = 0; l < kWarpSize; l += 2)
    mix(static_cast<uint64_t>(k.addr[l]) << 32 | k.addr[l + 1]);
  if (k.has_source)
    for (size_t l = 0; l < kWarpSize; l += 2)
      mix(static_cast<uint64_t>(k.source[l]) << 32 | k.source[l + 1]);
  return static_cast<size_t>(h ^ h >> 29);
}

StepFigures serve_step(const Scenario& s, const Arch& arch, const TraceStep& ts, ServeMemo* memo) {
  StepFigures f;
  if (ts.warps.empty()) return f;
  const OpSpec op = compiled_op(s, ts.info.step, arch);
  if (memo && memo->arch_ != &arch) memo->seen_.clear(), memo->arch_ = &arch;
  WarpStep ws;
  ServeMemo::Key key;
  for (const WarpTrace& wt : ts.warps) {
    if (memo) {
      // The access serve_warp() gives the model, as a key.
      key.op = op.op, key.width = op.width, key.mask = wt.mask, key.has_source = ts.has_source;
      key.addr = wt.byte;
      for (size_t l = 0; l < kWarpSize; ++l)
        key.source[l] = ts.has_source ? wt.chunk[l] * static_cast<uint32_t>(op.width) : 0;
      if (auto it = memo->seen_.find(key); it != memo->seen_.end()) {
        f.wavefronts += it->second.wavefronts;
        f.ideal += it->second.ideal;
        continue;
      }
    }
    ws.result = {};
    serve_warp(arch, op, ts, wt, ws, false);
    f.wavefronts += ws.result.wavefronts;
    f.ideal += ws.result.ideal;
    if (memo && memo->seen_.size() < ServeMemo::kMaxEntries)
      memo->seen_.emplace(key, StepFigures{ws.result.wavefronts, ws.result.ideal});
  }
  return f;
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
                                       detail == ServeDetail::Full);
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
             (a.hazards.unnamed_writers ? "; a slot written by more than 16 steps between two "
                                          "barriers leaves some pairs unnamed"
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
  const int n = step_instructions(step);
  return n > 0 ? static_cast<double>(step_wavefronts(step)) / n : 0.0;
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

int Analysis::worst_step() const {
  int best = -1;
  double best_ratio = -1;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    if (steps[static_cast<size_t>(i)].kind == StepKind::Sync) continue;
    const int ideal = step_ideal(i);
    const double ratio = ideal > 0 ? static_cast<double>(step_wavefronts(i)) / ideal : 0;
    if (ratio > best_ratio) best = i, best_ratio = ratio;
  }
  return best;
}

}  // namespace bankviz
