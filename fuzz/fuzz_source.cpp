// fuzz_source: a line of a user's CUDA source as a scenario (core/from_source.h), what
// `bankviz-cli profile --scenario-of-line` and the app's K window call on any .cu file.
//
// The input's first four bytes choose the launch, the rest is the source text:
//   byte 0: the line (1 + byte); byte 1: the block (kBlocks); byte 2: the dynamic shared memory
//   (kDynamic); byte 3: the kernel's integer arguments (none, one, two or three given).
// Properties, besides no crash, leak, hang or undefined behaviour (ASan + UBSan):
// - a line either becomes a scenario or says why not (a non-empty reason without control bytes);
// - a scenario it gives passes check() and analyzes, its model figures are consistent
//   (ideal <= wavefronts, both 0 without instructions), and it saves with scenario_to_json() and
//   loads again.
// (Only the chosen line is followed: following every line of the kernel, as
// shared_lines_of_kernel() does, costs seconds per input under the sanitizers when a loop runs to
// its limits; tests/core/test_from_source.cpp covers shared_lines_of_kernel().)
#include <cstdint>
#include <string>
#include <string_view>

#include "bankviz/analysis.h"
#include "bankviz/from_source.h"
#include "bankviz/scenario.h"
#include "check.h"

using namespace bankviz;

namespace {

constexpr int64_t kBlocks[][3] = {{32, 1, 1}, {256, 1, 1}, {32, 32, 1}, {16, 16, 1},
                                  {64, 4, 1}, {8, 8, 4},   {1, 1, 1},   {1024, 1, 1}};
constexpr int64_t kDynamic[] = {0, 128, 1024, 2048, 4096, 49152, 3, 65536};

bool printable(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint32_t line = 1u + data[0];
  SourceLaunch launch;
  for (int d = 0; d < 3; ++d) launch.block[d] = kBlocks[data[1] % 8][d];
  launch.dynamic_shared = kDynamic[data[2] % 8];
  for (int a = 0; a < data[3] % 4; ++a)
    launch.args.push_back(Value::of(CType::Int, a == 0 ? 64 : a == 1 ? -1 : 2147483647));
  const std::string_view src(reinterpret_cast<const char*>(data) + 4, size - 4);

  const SourceScenario one = scenario_from_source_line(src, line, launch, "k.cu");
  if (!one.scenario) {
    FUZZ_CHECK(!one.why.empty(), "a line refused without a reason");
    FUZZ_CHECK(printable(one.why), "a reason with a control byte: " + one.why);
  } else {
    const Scenario& s = *one.scenario;
    FUZZ_CHECK(one.why.empty(), "a scenario and a reason: " + one.why);
    FUZZ_CHECK(check(s).empty(), "the scenario does not check: " + check(s).front().format());
    FUZZ_CHECK(analyze(s).analysis.has_value(), "the scenario does not analyze");
    const ModelFigures m = model_figures(s);
    FUZZ_CHECK(m.ideal <= m.wavefronts && m.instructions >= 0 && m.ideal >= 0,
               "model figures: " + std::to_string(m.instructions) + " " +
                   std::to_string(m.wavefronts) + " " + std::to_string(m.ideal));
    FUZZ_CHECK(m.instructions > 0 || m.wavefronts == 0, "wavefronts without an instruction");
    const std::string saved = scenario_to_json(s);
    FUZZ_CHECK(scenario_from_json(saved).scenario.has_value(),
               "the scenario saved does not load:\n" + saved);
  }

  return 0;
}
