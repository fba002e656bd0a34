// test_nvcc.cpp: a user's kernel compiled as the user compiles it (nvcc.h, issue 30 item 2): the
// flags bankviz passes on and the ones it refuses, and where the toolkit has nvcc (no GPU needed)
// the compile itself: the kernel found among the cubin's functions, its line table naming the
// user's file, and nvcc's own words for a kernel that does not compile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bankviz/compiled.h"
#include "bankviz/nvcc.h"
#include "bankviz/profile.h"

namespace bankviz {
namespace {

std::vector<std::string> flags(const std::string& text, std::string* arch = nullptr) {
  std::string a, error;
  auto f = parse_nvcc_flags(text, arch ? arch : &a, &error);
  EXPECT_TRUE(f.has_value()) << text << ": " << error;
  return f.value_or(std::vector<std::string>{});
}

std::string refusal(const std::string& text) {
  std::string a, error;
  auto f = parse_nvcc_flags(text, &a, &error);
  EXPECT_FALSE(f.has_value()) << text << " was taken";
  return error;
}

TEST(NvccFlags, FlagsThatShapeTheCodeArePassedOnOneArgumentEach) {
  EXPECT_EQ(flags("-O2  -lineinfo\t-use_fast_math"),
            (std::vector<std::string>{"-O2", "-lineinfo", "-use_fast_math"}));
  EXPECT_EQ(
      flags("-I include -D TILE=32 -DPAD -U NDEBUG -std=c++17"),
      (std::vector<std::string>{"-Iinclude", "-DTILE=32", "-DPAD", "-UNDEBUG", "-std=c++17"}));
  EXPECT_EQ(flags("-Xptxas -O3,-v --ptxas-options=-O1 -maxrregcount 64 -ftz=true -G"),
            (std::vector<std::string>{"-Xptxas=-O3,-v", "-Xptxas=-O1", "-maxrregcount=64",
                                      "-ftz=true", "-G"}));
  EXPECT_TRUE(flags("").empty());
  // -arch is the GPU's: kept aside, checked against the device where the kernel runs.
  std::string arch;
  EXPECT_EQ(flags("-arch=sm_90a -O3", &arch), (std::vector<std::string>{"-O3"}));
  EXPECT_EQ(arch, "sm_90a");
  EXPECT_TRUE(flags("--gpu-architecture compute_90", &arch).empty());
  EXPECT_EQ(arch, "sm_90");
  // The default is one of them.
  EXPECT_EQ(flags(kDefaultNvccFlags), (std::vector<std::string>{"-O3", "-lineinfo"}));
}

TEST(NvccFlags, FlagsThatWouldRunOrWriteSomethingElseAreRefusedByName) {
  for (const char* f : {"-o /etc/passwd", "-ccbin /tmp/evil", "-Xcompiler -fplugin=x.so", "--run",
                        "-Xlinker -rpath", "--options-file f", "-include x.h", "-odir /", "--keep",
                        "-lcuda", "-x cu", "-E"}) {
    const std::string e = refusal(f);
    EXPECT_NE(e.find("--nvcc-flags: \"" + std::string(f).substr(0, std::string(f).find(' '))),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("not a flag bankviz passes to nvcc"), std::string::npos) << e;
  }
  EXPECT_NE(refusal("-DA;rm").find("macro definition"), std::string::npos);
  EXPECT_NE(refusal("-DA=$(x)").find("macro definition"), std::string::npos);
  EXPECT_NE(refusal("-std=c++98").find("C++ standard"), std::string::npos);
  EXPECT_NE(refusal("-maxrregcount=5").find("16 to 255"), std::string::npos);
  EXPECT_NE(refusal("-Xptxas -fake").find("ptxas"), std::string::npos);
  EXPECT_NE(refusal("-arch=gfx90a").find("architecture"), std::string::npos);
  EXPECT_NE(refusal("-D").find("needs a value"), std::string::npos);
  EXPECT_NE(refusal("-Xptxas").find("needs a value"), std::string::npos);
  EXPECT_NE(refusal(std::string("-O3 -D\x01")).find("control character"), std::string::npos);
}

// [SECTION] With the toolkit's nvcc (no GPU) ======================================================

struct Kernel {
  std::filesystem::path dir;
  ProfileRequest q;
  explicit Kernel(const std::string& source, const std::string& kernel) {
    dir = std::filesystem::temp_directory_path() /
          ("bankviz-nvcc-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    q.file_name = (dir / "user kernel.cu").string();
    std::ofstream(q.file_name) << source;
    q.source = source;
    q.kernel = kernel;
  }
  ~Kernel() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

#define REQUIRE_NVCC()                                                \
  std::string nvcc_why;                                               \
  const std::string nvcc = profile_nvcc(ProfileRequest{}, &nvcc_why); \
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc to compile with (" << nvcc_why << ")"

const char* kKernels = R"(#include "tile.h"
extern "C" __global__ void plain(float* o) { __shared__ float t[32]; t[threadIdx.x] = 1; o[0] = t[31 - threadIdx.x]; }
namespace ns { __global__ void inner(int* o) { o[threadIdx.x] = 2; } }
template <class T, int N> __global__ void tiled(T* o) {
  __shared__ T t[N][N];
  t[threadIdx.x % N][0] = T(TILE);
  __syncthreads();
  o[threadIdx.x] = t[0][threadIdx.x % N];
}
template __global__ void tiled<float, 4>(float*);
template __global__ void tiled<double, 8>(double*);
__global__ void over(int* o) { o[0] = 1; }
__global__ void over(float* o) { o[0] = 1; }
)";

TEST(NvccBuild, TheKernelIsFoundAmongTheCubinsFunctionsByItsCppName) {
  REQUIRE_NVCC();
  Kernel k(kKernels, "plain");
  std::ofstream(k.dir / "tile.h") << "#define TILE 3\n";  // beside the kernel, as users keep it
  UserBuild b = nvcc_build(k.q, nvcc, "sm_90");
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_TRUE(b.by_nvcc);
  EXPECT_EQ(b.lowered, "plain");
  EXPECT_NE(b.compiled_by.find("-arch=sm_90 -O3 -lineinfo"), std::string::npos) << b.compiled_by;
  std::string why;
  EXPECT_EQ(kernel_symbol(b.cubin, "ns::inner", &why), "_ZN2ns5innerEPi") << why;
  EXPECT_EQ(kernel_symbol(b.cubin, "tiled<float, 4>", &why), "_Z5tiledIfLi4EEvPT_") << why;
  EXPECT_EQ(kernel_symbol(b.cubin, "tiled<double,8>", &why), "_Z5tiledIdLi8EEvPT_") << why;
  // Two instances or two overloads: the user must say which.
  EXPECT_EQ(kernel_symbol(b.cubin, "tiled", &why), "");
  EXPECT_NE(why.find("names 2 functions"), std::string::npos) << why;
  EXPECT_NE(why.find("tiled<float,4>"), std::string::npos) << why;
  EXPECT_EQ(kernel_symbol(b.cubin, "over", &why), "");
  EXPECT_NE(why.find("names 2 functions"), std::string::npos) << why;
  EXPECT_EQ(kernel_symbol(b.cubin, "missing", &why), "");
  EXPECT_NE(why.find("no __global__ function named \"missing\""), std::string::npos) << why;
  EXPECT_EQ(kernel_symbol(std::vector<char>(100, 'x'), "plain", &why), "");
}

TEST(NvccBuild, ItsLineTableNamesTheUsersFileAndLine) {
  REQUIRE_NVCC();
  Kernel k(kKernels, "plain");
  std::ofstream(k.dir / "tile.h") << "#define TILE 3\n";
  UserBuild b = nvcc_build(k.q, nvcc, "sm_90");
  ASSERT_TRUE(b.error.empty()) << b.error;
  std::string why;
  const std::string listing = disassemble(b.cubin, &why);
  if (listing.empty()) GTEST_SKIP() << "no nvdisasm: " << why;
  bool line3 = false;
  for (const SassInstruction& i : parse_nvdisasm(listing))
    if (i.shared() && same_file(i.file, k.q.file_name) && i.line == 2) line3 = true;
  EXPECT_TRUE(line3) << listing.substr(0, 2000);
}

TEST(NvccBuild, TheUsersFlagsReachNvccAndItsWordsReachTheUser) {
  REQUIRE_NVCC();
  Kernel k("__global__ void k(int* o) {\n  o[0] = SHIFT + undefined_name;\n}\n", "k");
  std::string arch, error;
  k.q.nvcc_flags = *parse_nvcc_flags("-O1 -DSHIFT=2", &arch, &error);
  UserBuild b = nvcc_build(k.q, nvcc, "sm_90");
  EXPECT_TRUE(b.cubin.empty());
  EXPECT_NE(b.error.find("undefined_name"), std::string::npos) << b.error;
  EXPECT_NE(b.error.find("user kernel.cu(2)"), std::string::npos) << b.error;  // the user's line
  EXPECT_EQ(b.error.find("bankviz-record-"), std::string::npos) << b.error;    // not ours
  // -lineinfo is added where the user's flags have no line table; -arch must be the GPU's.
  EXPECT_NE(b.compiled_by.find("-O1 -DSHIFT=2 -lineinfo"), std::string::npos) << b.compiled_by;
  k.q.nvcc_arch = "sm_80";
  b = nvcc_build(k.q, nvcc, "sm_90");
  EXPECT_NE(b.error.find("-arch=sm_80; this GPU is sm_90"), std::string::npos) << b.error;
  // Without nvcc asked for, NVRTC compiles it and says so; asked for by name it does not.
  k.q.nvcc_arch.clear();
  k.q.compiler = ProfileCompiler::Nvrtc;
  std::string why;
  EXPECT_EQ(profile_nvcc(k.q, &why), "");
  EXPECT_EQ(why, "--compiler nvrtc");
  EXPECT_TRUE(nvrtc_may_stand_in(k.q));
  k.q.compiler = ProfileCompiler::Nvcc;
  EXPECT_FALSE(nvrtc_may_stand_in(k.q));
  k.q.compiler = ProfileCompiler::Auto;
  k.q.nvcc_flags_given = true;
  EXPECT_FALSE(nvrtc_may_stand_in(k.q));  // --nvcc-flags were given
  k.q.nvcc_flags_given = false;
  EXPECT_TRUE(nvrtc_may_stand_in(k.q));
  EXPECT_EQ(nvcc_failed("nvcc: the kernel does not compile (-O3):\nk.cu(2): error: x\nmore"),
            "nvcc failed: nvcc: the kernel does not compile (-O3): k.cu(2): error: x");
}

}  // namespace
}  // namespace bankviz
