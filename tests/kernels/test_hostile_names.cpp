// Names a user may give (constants, lets, loop variables, tiles) against the kernel generated
// from them: every name is either refused by check() or generate_kernel() with a message, or the
// generated kernel compiles. A constant becomes a #define, so a name the generated code uses for
// itself (a helper's local `v`, `memcpy`, the tile), a C++ keyword or alternative token (`and`),
// a preprocessor word (`defined`) or a name reserved to the implementation (`__LINE__`,
// `__syncthreads`) would break it. Compiled with NVRTC alone: no GPU needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bankviz/codegen.h"
#include "bankviz/runner.h"
#include "helpers.h"

namespace bankviz {
namespace {

const std::vector<std::string> kHostile = {
    // what the generated helpers declare or call
    "v", "a", "b", "r", "T", "V", "ref", "value", "memcpy", "uint4", "atomicAdd", "atomicInc",
    "bits", "hash", "out", "tid", "sum", "rep", "offset", "tile", "idx", "BDIMX",
    // C++ and CUDA words
    "and", "or", "not", "xor", "bitand", "compl", "asm", "defined", "export", "mutable",
    "static_assert", "thread_local", "noexcept", "char16_t", "wchar_t", "requires", "concept",
    "co_await", "typeid", "__LINE__", "__FILE__", "__syncthreads", "__shared__", "__device__",
    "__global__", "__CUDA_ARCH__", "_Bool", "_Pragma", "__cvta_generic_to_shared", "threadIdx",
    "blockDim", "warpSize", "NULL", "main", "printf", "float4", "int2", "__half", "half",
    "make_float4", "min", "max", "abs", "size_t", "uint32_t", "alignas", "signed", "std"};

// Where a name goes in the scenario: a constant, a let used in the store's value, a loop
// variable, the tile.
enum class Role { Constant, Let, LoopVar, Tile };
const char* role_name(Role r) {
  switch (r) {
    case Role::Constant:
      return "constant";
    case Role::Let:
      return "let";
    case Role::LoopVar:
      return "loop variable";
    case Role::Tile:
      return "tile";
  }
  return "?";
}

Scenario with_name(Role role, const std::string& name) {
  Scenario s = test::preset("row-write-column-read");
  switch (role) {
    case Role::Constant:
      s.constants.push_back({name, 3});
      break;
    case Role::Let:
      s.lets.push_back({name, "threadIdx.x + 1", ""});
      s.steps[0].value = name;
      break;
    case Role::LoopVar:
      s.steps[2].loop_var = name;
      s.steps[2].loop_from = 0;
      s.steps[2].loop_to = 2;
      s.steps[2].index = "tile[threadIdx.x][(threadIdx.y + " + name + ") % 32]";
      break;
    case Role::Tile:
      s.tiles[0].name = name;
      for (Step& st : s.steps)
        if (st.index.rfind("tile[", 0) == 0) st.index = name + st.index.substr(4);
      break;
  }
  return s;
}

TEST(HostileNames, EveryNameIsRefusedOrItsKernelCompiles) {
  if (!built_with_cuda()) GTEST_SKIP() << "built without the CUDA toolkit (no NVRTC)";
  int refused = 0, compiled = 0;
  for (Role role : {Role::Constant, Role::Let, Role::LoopVar, Role::Tile}) {
    for (const std::string& name : kHostile) {
      SCOPED_TRACE(std::string(role_name(role)) + " named '" + name + "'");
      const Scenario s = with_name(role, name);
      if (!check(s).empty()) {
        ++refused;
        continue;
      }
      for (RunMode mode : {RunMode::Written, RunMode::Exposed}) {
        const GenerateResult g = generate_kernel(s, mode);
        if (!g.kernel) {
          ASSERT_FALSE(g.errors.empty());
          EXPECT_NE(g.errors[0].message.find(name), std::string::npos) << g.errors[0].format();
          ++refused;
          continue;
        }
        const CompileCheck c = compile_only(*g.kernel, "sm_90");
        EXPECT_TRUE(c.ok) << run_mode_name(mode)
                          << ": the generated kernel does not compile: " << c.message << "\n"
                          << c.log;
        ++compiled;
      }
    }
  }
  // Both outcomes happen: most words are refused, ordinary names compile.
  EXPECT_GT(refused, 0);
  EXPECT_GT(compiled, 0);
}

}  // namespace
}  // namespace bankviz
