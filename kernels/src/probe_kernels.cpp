// probe_kernels.cpp: the probe kernels' fixed text (probe_kernels.h). No CUDA here: the text is
// checked with NVRTC alone on machines without a GPU (tests/kernels/test_counters.cpp).
#include "probe_kernels.h"

namespace bankviz::detail {

namespace {

constexpr const char* kPrologue = R"(
#define PROBE_BEGIN(NAME)                                                                  \
  extern "C" __global__ void NAME(const unsigned* addr, unsigned mask, unsigned* sink,     \
                                  const unsigned char* src) {                              \
    extern __shared__ __align__(128) unsigned char smem[];                                 \
    const unsigned lane = threadIdx.x;                                                     \
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + addr[lane]; \
    const bool active = (mask >> lane) & 1u;                                               \
    unsigned v0 = lane, v1 = 0, v2 = 0, v3 = 0;
#define PROBE_END                    \
    sink[lane] = v0 ^ v1 ^ v2 ^ v3; \
  }
)";

// PTX type and register list of a plain access of `width` bytes.
struct PlainForm {
  int width;
  const char* load;   // the load's asm
  const char* store;  // the store's asm
};
const PlainForm kPlain[] = {
    {1, R"(asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(v0) : "r"(a));)",
     R"(asm volatile("st.volatile.shared.u8 [%0], %1;" ::"r"(a), "r"(s));)"},
    {2, R"(asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=r"(v0) : "r"(a));)",
     R"(asm volatile("st.volatile.shared.u16 [%0], %1;" ::"r"(a), "r"(s));)"},
    {4, R"(asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v0) : "r"(a));)",
     R"(asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(s));)"},
    {8,
     R"(asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a));)",
     R"(asm volatile("st.volatile.shared.v2.u32 [%0], {%1,%2};" ::"r"(a), "r"(s), "r"(s));)"},
    {16,
     R"(asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a));)",
     R"(asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(s), "r"(s), "r"(s), "r"(s));)"},
};

}  // namespace

std::string probe_plain_name(int width) {
  return "probe_ls_" + std::to_string(width);
}
std::string probe_op_name(const OpSpec& op) {
  if (op.op == Op::CpAsync) return "probe_cp_" + std::to_string(op.width);
  return std::string(op.op == Op::LdMatrix ? "probe_ldsm_x" : "probe_stsm_x") +
         std::to_string(op.matrices) + (op.trans ? "_t" : "");
}

std::string probe_family_source(int family, std::string* first) {
  std::string src = kPrologue;
  auto kernel = [&](const std::string& name, const std::string& body) {
    if (first->empty()) *first = name;
    src += "PROBE_BEGIN(" + name + ")\n" + body + "\nPROBE_END\n";
  };
  if (family == 0) {
    for (const PlainForm& f : kPlain)
      kernel(probe_plain_name(f.width),
             std::string("if (active) { ") + f.load +
                 " }\n__syncwarp();\nif (active) { const unsigned s = lane "
                 "+ 1; " +
                 f.store + " }");
    kernel("probe_atom",
           R"(if (active) asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(v0) : "r"(a));)");
    return src;
  }
  const char* regs[] = {"", "{%0}", "{%0,%1}", "", "{%0,%1,%2,%3}"};
  const char* outs[] = {"", R"("=r"(v0))", R"("=r"(v0), "=r"(v1))", "",
                        R"("=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3))"};
  const char* ins[] = {"", R"("r"(v0))", R"("r"(v0), "r"(v1))", "",
                       R"("r"(v0), "r"(v1), "r"(v2), "r"(v3))"};
  const char* sregs[] = {"", "{%1}", "{%1,%2}", "", "{%1,%2,%3,%4}"};
  for (int n : {1, 2, 4}) {
    for (bool t : {false, true}) {
      const std::string shape = std::string(".m8n8.x") + std::to_string(n) + (t ? ".trans" : "");
      OpSpec spec;
      spec.matrices = n;
      spec.trans = t;
      if (family == 1) {
        spec.op = Op::LdMatrix;
        kernel(probe_op_name(spec), "asm volatile(\"ldmatrix.sync.aligned" + shape +
                                        ".shared.b16 " + regs[n] + ", [%" + std::to_string(n) +
                                        "];\" : " + outs[n] + " : \"r\"(a));");
      } else {
        spec.op = Op::StMatrix;
        kernel(probe_op_name(spec),
               "v1 = lane + 32; v2 = lane + 64; v3 = lane + 96;\n"
               "asm volatile(\"stmatrix.sync.aligned" +
                   shape + ".shared.b16 [%0], " + sregs[n] + ";\" :: \"r\"(a), " + ins[n] + ");");
      }
    }
  }
  if (family == 1) {
    for (int w : {4, 8, 16}) {
      OpSpec spec;
      spec.op = Op::CpAsync;
      spec.width = w;
      kernel(probe_op_name(spec),
             "if (active) asm volatile(\"cp.async.ca.shared.global [%0], [%1], " +
                 std::to_string(w) + ";\" :: \"r\"(a), \"l\"(src + addr[32 + lane]));\n" +
                 "asm volatile(\"cp.async.commit_group;\");\n"
                 "asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\");\n__syncwarp();");
    }
  }
  return src;
}

int probe_family_min_cc(int family) {
  constexpr int kMinCc[kProbeFamilies] = {70, 80, 90};
  return family >= 0 && family < kProbeFamilies ? kMinCc[family] : 0;
}

const char* probe_family_what(int family) {
  constexpr const char* kWhat[kProbeFamilies] = {"plain loads, stores and atomics",
                                                 "ldmatrix and cp.async", "stmatrix"};
  return family >= 0 && family < kProbeFamilies ? kWhat[family] : "?";
}

std::vector<std::string> probe_family_kernels(const std::string& source) {
  std::vector<std::string> names;
  for (size_t at = 0; (at = source.find("PROBE_BEGIN(", at)) != std::string::npos;) {
    at += 12;
    std::string name = source.substr(at, source.find(')', at) - at);
    if (name != "NAME") names.push_back(std::move(name));  // not the macro's own definition
  }
  return names;
}

}  // namespace bankviz::detail
