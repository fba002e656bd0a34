// probe_kernels.h (internal): the probe kernels probe_records() runs (probe.h), as fixed CUDA text
// for NVRTC. One shared access per kernel, through `ld/st.volatile.shared`, `atom.shared.add`,
// `ldmatrix`/`stmatrix ...shared.b16` or `cp.async.ca.shared.global`, at base + addr[lane] in a
// dynamic shared buffer (128-byte aligned); the addresses come from a device buffer, never from
// text. Every kernel takes (const unsigned* addr, unsigned mask, unsigned* sink,
// const unsigned char* src): addr holds a record's kRecordWords words, the lanes' shared addresses
// then their global sources, byte offsets into src, which only cp.async reads (each lane its own,
// as tools/matrix-suite/probe.cu's S0..S31 did for the cpsource suite). They are the kernels that
// measured the committed suites (tools/hopper-suite/probe.cu, tools/matrix-suite/probe.cu), written
// for NVRTC.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bankviz/access.h"

namespace bankviz::detail {

// Family 0: plain loads and stores, atomics (every GPU). Family 1: ldmatrix (sm_75) and cp.async
// (sm_80). Family 2: stmatrix (sm_90). One module each, so a GPU without an instruction loses
// only its family.
inline constexpr int kProbeFamilies = 3;
// Words of the address buffer per record: 32 shared addresses, then 32 global sources.
inline constexpr size_t kRecordWords = 64;
// The family's source; *first gets its first kernel's name (NVRTC's name expression).
std::string probe_family_source(int family, std::string* first);
int probe_family_min_cc(int family);        // major * 10 + minor
const char* probe_family_what(int family);  // "ldmatrix and cp.async"
std::vector<std::string> probe_family_kernels(const std::string& source);  // names, in order

// The kernel that runs a record: "probe_ls_8" (a load, then a store, of 8 bytes), "probe_atom",
// "probe_ldsm_x4_t", "probe_stsm_x2", "probe_cp_16".
std::string probe_plain_name(int width);
std::string probe_op_name(const OpSpec& op);

}  // namespace bankviz::detail
