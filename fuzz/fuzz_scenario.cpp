// fuzz_scenario: the scenario loader (core/scenario.h) and its save/reload round trip. The input
// is a scenario file's text (JSON, docs/SCENARIO.md).
//
// A scenario that loads is saved with scenario_to_json() (what the app and `source` write) and
// loaded again. Properties, besides no crash, leak or undefined behaviour (ASan + UBSan):
// - a load that fails says why (at least one diagnostic, each with a message);
// - what was saved loads again, into the same scenario field by field, and saves to the same
//   text (the round trip is exact);
// - the reloaded scenario analyzes exactly as the original: both fail with the same messages or
//   both give the same analysis, compared field by field (every field analysis_to_json() writes
//   is one of them or follows from them with the architecture). Serializing both to JSON and
//   comparing the texts took most of the matmul-tile32 seed's 7.6 s under ASan (two 20 MB
//   texts), near the 10 s an input may take (fuzz.sh).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"
#include "bankviz/text.h"
#include "check.h"

using namespace bankviz;

namespace {

std::string messages(const std::vector<Diagnostic>& errors) {
  std::string out;
  for (const Diagnostic& d : errors) out += d.format() + "\n";
  return out;
}

// Field by field, so that a field the writer forgets is caught even when both texts agree.
bool same(const TileDecl& a, const TileDecl& b) {
  return a.name == b.name && a.elem == b.elem && a.dims == b.dims && a.pad == b.pad &&
         a.base == b.base && a.dynamic == b.dynamic && a.swizzle.bits == b.swizzle.bits &&
         a.swizzle.base == b.swizzle.base && a.swizzle.shift == b.swizzle.shift &&
         a.swizzle_on_address == b.swizzle_on_address && a.cute == b.cute;
}
bool same(const Step& a, const Step& b) {
  return a.kind == b.kind && a.tile == b.tile && a.index == b.index && a.guard == b.guard &&
         a.value == b.value && a.source == b.source && a.label == b.label &&
         a.loop_var == b.loop_var && a.loop_from == b.loop_from && a.loop_to == b.loop_to &&
         a.loop_step == b.loop_step;
}
bool same(const Let& a, const Let& b) {
  return a.name == b.name && a.expr == b.expr && a.type == b.type;
}
bool same(const Constant& a, const Constant& b) {
  return a.name == b.name && a.value == b.value;
}
// The analysis's parts that come in vectors, compared below (declared before the template that
// compares vectors finds them).
bool same(const StepInfo& a, const StepInfo& b);
bool same(const LaneWord& a, const LaneWord& b);
bool same(const Wavefront& a, const Wavefront& b);
bool same(const WarpStep& a, const WarpStep& b);
bool same(const Issue& a, const Issue& b);
bool same(const Hazard& a, const Hazard& b);
template <typename T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}
bool same(const Scenario& a, const Scenario& b) {
  return a.name == b.name && a.title == b.title && a.description == b.description &&
         a.source == b.source && a.arch == b.arch && same(a.tiles, b.tiles) &&
         a.block[0] == b.block[0] && a.block[1] == b.block[1] && a.block[2] == b.block[2] &&
         a.grid == b.grid && same(a.constants, b.constants) && same(a.lets, b.lets) &&
         same(a.steps, b.steps);
}

// The analysis, field by field (analysis.h, access.h, trace.h, hazard.h).
bool same(const StepInfo& a, const StepInfo& b) {
  return a.step == b.step && a.iteration == b.iteration && a.kind == b.kind && a.tile == b.tile &&
         a.label == b.label;
}
bool same(const WarpAccess& a, const WarpAccess& b) {
  return a.width == b.width && a.mask == b.mask && a.addr == b.addr &&
         a.has_source == b.has_source && a.source == b.source;
}
bool same(const LaneWord& a, const LaneWord& b) {
  return a.lane == b.lane && a.word == b.word && a.bank == b.bank && a.shared == b.shared;
}
bool same(const Wavefront& a, const Wavefront& b) {
  return a.lanes == b.lanes && same(a.words, b.words) && a.banks == b.banks && a.extra == b.extra;
}
bool same(const AccessResult& a, const AccessResult& b) {
  return a.wavefronts == b.wavefronts && a.ideal == b.ideal && same(a.detail, b.detail) &&
         a.bank_passes == b.bank_passes && a.conflict_banks == b.conflict_banks &&
         a.busiest_bank == b.busiest_bank;
}
bool same(const WarpStep& a, const WarpStep& b) {
  return a.warp == b.warp && same(a.access, b.access) && a.element == b.element &&
         same(a.result, b.result);
}
bool same(const Issue& a, const Issue& b) {
  return a.step == b.step && a.warp == b.warp && a.lane == b.lane && a.message == b.message;
}
bool same(const AccessRef& a, const AccessRef& b) {
  return a.step == b.step && a.warp == b.warp && a.lane == b.lane;
}
bool same(const Hazard& a, const Hazard& b) {
  return a.kind == b.kind && a.tile == b.tile && a.element == b.element && same(a.first, b.first) &&
         same(a.second, b.second) && a.lanes == b.lanes && a.message == b.message;
}
bool same(const Hazards& a, const Hazards& b) {
  return a.racing == b.racing && a.racing_accesses == b.racing_accesses &&
         same(a.examples, b.examples) && a.pairs == b.pairs &&
         a.unnamed_writers == b.unnamed_writers &&
         std::equal(std::begin(a.counts), std::end(a.counts), std::begin(b.counts));
}
bool same(const Analysis& a, const Analysis& b) {
  if (a.arch != b.arch || !same(a.scenario, b.scenario) || a.warps.size() != b.warps.size())
    return false;
  for (size_t i = 0; i < a.warps.size(); ++i)
    if (!same(a.warps[i], b.warps[i])) return false;
  return same(a.steps, b.steps) && same(a.issues, b.issues) && same(a.hazards, b.hazards) &&
         a.out_of_bounds == b.out_of_bounds;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ScenarioLoad first = scenario_from_json(text);
  if (!first.scenario) {
    FUZZ_CHECK(!first.errors.empty(), "a failed load without a diagnostic");
    for (const Diagnostic& d : first.errors) FUZZ_CHECK(!d.message.empty(), d.format());
    return 0;
  }
  FUZZ_CHECK(first.errors.empty(), messages(first.errors));
  const Scenario& s = *first.scenario;

  const std::string saved = scenario_to_json(s);
  const ScenarioLoad second = scenario_from_json(saved);
  FUZZ_CHECK(second.scenario,
             "the saved scenario does not load:\n" + messages(second.errors) + "saved:\n" + saved);
  FUZZ_CHECK(same(s, *second.scenario), "the reloaded scenario differs; saved:\n" + saved);
  const std::string saved_again = scenario_to_json(*second.scenario);
  FUZZ_CHECK(saved == saved_again, "saving the reloaded scenario gives other text:\n" + saved +
                                       "\nthen:\n" + saved_again);

  const AnalysisResult a = analyze(s);
  const AnalysisResult b = analyze(*second.scenario);
  FUZZ_CHECK(a.analysis.has_value() == b.analysis.has_value(),
             "one analyzes, the other does not:\n" + messages(a.errors) + messages(b.errors));
  if (a.analysis) {
    FUZZ_CHECK(same(*a.analysis, *b.analysis), "the reloaded scenario analyzes differently");
  } else {
    FUZZ_CHECK(!a.errors.empty(), "a failed analysis without a diagnostic");
    FUZZ_CHECK(messages(a.errors) == messages(b.errors), messages(a.errors) + messages(b.errors));
  }
  return 0;
}
