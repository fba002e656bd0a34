// fuzz_records: the record parser of `bankviz-cli wavefronts` (core/records.h). The input is a
// records file: lines "NAME WIDTH MASK A0 .. A31", comments and blank lines.
//
// Lines are read and parsed as the CLI reads and parses them; each access that parses is served on
// every architecture. Properties, besides no crash, leak or undefined behaviour (ASan + UBSan):
// - a parse either fails with a message or gives a valid access (validate() is empty);
// - count_wavefronts() and serve() agree; serve()'s record is consistent: one detail per
//   wavefront, no bank conflict exactly when wavefronts == ideal, no more ideal than actual
//   wavefronts, no inactive lane served and every active lane served.
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "bankviz/access.h"
#include "bankviz/arch.h"
#include "bankviz/records.h"
#include "check.h"

using namespace bankviz;

namespace {

void check_access(const WarpAccess& a, const std::string& line) {
  for (const Arch& arch : all_archs()) {
    for (Op op : {Op::Load, Op::Store}) {
      const AccessResult r = serve(arch, op, a);
      const std::string where = std::string(arch.id) + ": " + line;
      FUZZ_CHECK(count_wavefronts(arch, op, a) == r.wavefronts, "count != serve: " + where);
      FUZZ_CHECK(static_cast<int>(r.detail.size()) == r.wavefronts, "detail size: " + where);
      FUZZ_CHECK((r.conflict_banks == 0) == (r.wavefronts == r.ideal), "conflicts: " + where);
      FUZZ_CHECK(r.ideal <= r.wavefronts, "ideal > wavefronts: " + where);
      FUZZ_CHECK((a.mask == 0) == (r.wavefronts == 0), "wavefronts without lanes: " + where);
      uint32_t served = 0;
      for (const Wavefront& w : r.detail) {
        FUZZ_CHECK((w.lanes & ~a.mask) == 0, "an inactive lane is served: " + where);
        served |= w.lanes;
      }
      FUZZ_CHECK(served == a.mask, "an active lane is not served: " + where);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::istringstream in{std::string(text)};
  std::string line;
  for (LineRead read; (read = read_record_line(in, line)) != LineRead::End;) {
    FUZZ_CHECK(line.size() <= kMaxRecordLineBytes, "a line over the cap was kept");
    if (read == LineRead::TooLong) continue;
    if (!is_record_line(line)) continue;
    std::string name;
    WarpAccess a;
    const std::string error = parse_record(line, name, a);
    if (!error.empty()) continue;
    FUZZ_CHECK(!name.empty(), "a record without a name: " + line);
    FUZZ_CHECK(validate(a).empty(), "a parsed record is invalid: " + validate(a));
    check_access(a, line);
  }
  return 0;
}
