// ptxblas_describe_gemm: which kernel would be generated, answered without a GPU. Kernel names
// come from generator/kernel_config.cpp (simt_<type>[16]_<opa><opb>_<tile>); the plan from
// dispatch/heuristic.cpp with the reference 132 multiprocessors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "shim_loader.hpp"

namespace cpushim {
namespace {

std::string describe_line(const char* type, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k,
                          int* rc = nullptr) {
  char buf[512];
  std::memset(buf, '#', sizeof buf);
  const int r = describe(type, ta, tb, m, n, k, buf, sizeof buf);
  if (rc) *rc = r;
  if (r != 0) return {};
  EXPECT_NE(std::memchr(buf, '\0', sizeof buf), nullptr) << "not NUL-terminated";
  return std::string(buf, strnlen(buf, sizeof buf));
}

struct TypeName {
  const char* type;    // ptxblas_describe_gemm's name
  const char* prefix;  // kernel name prefix
  bool complex;
};
// SIMT for f32 and c32; the tensor-core (mma) family wherever an exact mma instruction exists.
const TypeName kTypes[] = {{"S", "simt_s_", false}, {"D", "mma_d_", false},  {"C", "simt_c_", true},
                           {"Z", "mma_z_", true},   {"H", "mma_h16_", false}, {"H32", "mma_h_", false},
                           {"B", "mma_b_", false}};

char kernel_op(char op, bool complex) {
  const char lower = static_cast<char>(op - 'A' + 'a');
  return lower == 'c' && !complex ? 't' : lower;  // real types: C is T
}

class Describe : public ::testing::TestWithParam<std::tuple<int, char, char>> {};

TEST_P(Describe, NamesTheKernel) {
  const auto [ti, ta, tb] = GetParam();
  const TypeName& t = kTypes[ti];
  int rc = -2;
  const std::string line = describe_line(t.type, ta, tb, 1000, 1000, 1000, &rc);
  ASSERT_EQ(rc, 0);
  const std::string prefix = std::string(t.prefix) + kernel_op(ta, t.complex) + kernel_op(tb, t.complex) + "_";
  EXPECT_EQ(line.rfind(prefix, 0), 0u) << line << " does not start with " << prefix;
  static const std::regex form(
      R"((simt|mma)_[a-z0-9]+_[ntc]{2}_\d+x\d+x\d+_\d+x\d+(_v\d+)?(_p)?(_s\d)?( kg=\d+)?: \d+ bytes of PTX, \d+ threads, \d+ B shared, ~\d+ registers)");
  EXPECT_TRUE(std::regex_match(line, form)) << line;
  // Lower-case op letters are accepted and mean the same.
  EXPECT_EQ(describe_line(t.type, static_cast<char>(ta - 'A' + 'a'), static_cast<char>(tb - 'A' + 'a'), 1000, 1000,
                          1000),
            line);
}

INSTANTIATE_TEST_SUITE_P(TypesAndOps, Describe,
                         ::testing::Combine(::testing::Range(0, 7), ::testing::Values('N', 'T', 'C'),
                                            ::testing::Values('N', 'T', 'C')),
                         [](const auto& info) {
                           std::string t = kTypes[std::get<0>(info.param)].type;
                           return t + "_" + std::get<1>(info.param) + std::get<2>(info.param);
                         });

TEST(DescribeArgs, UnknownTypeOrOpIsRejectedAndWritesNothing) {
  struct Bad {
    const char* type;
    char ta, tb;
  };
  const Bad bad[] = {{"X", 'N', 'N'},  {"", 'N', 'N'},    {"s", 'N', 'N'},  {"H16", 'N', 'N'}, {"SS", 'N', 'N'},
                     {nullptr, 'N', 'N'}, {"S", 'Q', 'N'}, {"S", 'N', 'Q'}, {"Z", '\0', 'N'}, {"D", 'N', 'H'}};
  for (const Bad& b : bad) {
    SCOPED_TRACE(std::string("type ") + (b.type ? b.type : "(null)") + " ops " + std::to_string(b.ta) + "," +
                 std::to_string(b.tb));
    char buf[64];
    std::memset(buf, '#', sizeof buf);
    EXPECT_EQ(describe(b.type, b.ta, b.tb, 64, 64, 64, buf, sizeof buf), -1);
    for (char ch : buf) ASSERT_EQ(ch, '#') << "wrote into the buffer";
  }
}

TEST(DescribeArgs, ZeroLengthOrNullBufferIsLeftAlone) {
  char buf[16];
  std::memset(buf, '#', sizeof buf);
  EXPECT_EQ(describe("S", 'N', 'N', 64, 64, 64, buf, 0), 0);
  for (char ch : buf) EXPECT_EQ(ch, '#');
  EXPECT_EQ(describe("S", 'N', 'N', 64, 64, 64, nullptr, 0), 0);
  EXPECT_EQ(describe("S", 'N', 'N', 64, 64, 64, nullptr, 100), 0);
}

TEST(DescribeArgs, SmallBufferTruncatesWithNul) {
  const std::string full = describe_line("D", 'T', 'N', 300, 200, 100);
  ASSERT_GT(full.size(), 8u);
  for (std::size_t len : {std::size_t{1}, std::size_t{2}, std::size_t{8}}) {
    char buf[32];
    std::memset(buf, '#', sizeof buf);
    EXPECT_EQ(describe("D", 'T', 'N', 300, 200, 100, buf, len), 0);
    EXPECT_EQ(buf[len - 1], '\0');
    EXPECT_EQ(std::string(buf), full.substr(0, len - 1));
    for (std::size_t i = len; i < sizeof buf; ++i) ASSERT_EQ(buf[i], '#') << "wrote past buflen at " << i;
  }
}

// Empty problems are described (nothing to split); negative or beyond-32-bit sizes are refused.
TEST(DescribeArgs, EmptyNegativeAndHugeSizes) {
  char buf[256];
  for (const std::int64_t v : {std::int64_t{0}}) {
    EXPECT_EQ(describe("S", 'N', 'N', v, 32, 64, buf, sizeof buf), 0);
    EXPECT_EQ(describe("S", 'N', 'N', 32, v, 64, buf, sizeof buf), 0);
    EXPECT_EQ(describe("S", 'N', 'N', 32, 32, v, buf, sizeof buf), 0);
    EXPECT_EQ(std::string(buf).find(" kg="), std::string::npos) << buf;
  }
  for (const std::int64_t v : {std::int64_t{-1}, std::int64_t{-5}, std::int64_t{1} << 40}) {
    EXPECT_EQ(describe("S", 'N', 'N', v, 32, 64, buf, sizeof buf), -1) << v;
    EXPECT_EQ(describe("S", 'N', 'N', 32, v, 64, buf, sizeof buf), -1) << v;
    EXPECT_EQ(describe("S", 'N', 'N', 32, 32, v, buf, sizeof buf), -1) << v;
  }
}

int kg_of(const std::string& line) {
  const std::size_t p = line.find(" kg=");
  return p == std::string::npos ? 1 : std::stoi(line.substr(p + 4));
}

// Few output tiles and a deep K: the heuristic splits K over blocks (32x32 tiles give one block
// for 132 SMs; K = 60000 allows up to 468 slices of >= 128).
TEST(DescribePlan, SmallOutputDeepKSplitsK) {
  const std::string line = describe_line("S", 'N', 'T', 32, 32, 60000);
  EXPECT_NE(line.find(" kg="), std::string::npos) << line;
  EXPECT_GE(kg_of(line), 2) << line;
  EXPECT_LE(kg_of(line), 256) << line;
  EXPECT_EQ(line.rfind("simt_s_nt_32x32x", 0), 0u) << line;
  for (const char* t : {"D", "C", "Z", "H", "H32", "B"})
    EXPECT_GE(kg_of(describe_line(t, 'N', 'N', 32, 32, 60000)), 2) << t;
}

TEST(DescribePlan, NoSplitWhenTilesFillTheGpuOrKIsShallow) {
  const std::string big = describe_line("S", 'N', 'N', 4096, 4096, 4096);
  EXPECT_EQ(big.find("kg="), std::string::npos) << big;
  EXPECT_EQ(big.rfind("simt_s_nn_128x128x", 0), 0u) << big;
  const std::string shallow = describe_line("S", 'N', 'N', 32, 32, 200);  // < 2 slices of 128
  EXPECT_EQ(shallow.find("kg="), std::string::npos) << shallow;
}

}  // namespace
}  // namespace cpushim

namespace cpushim {
namespace {

// ptxblas_force_tile's spec: family, ML NL U MS NS VEC and an optional kg >= 1; NULL or "" clear.
TEST(ForceTile, ParsesSpecs) {
  EXPECT_EQ(force_tile("mma 128 64 16 32 32 1"), 0);
  EXPECT_EQ(force_tile("simt 64 64 8 4 4 4 8"), 0);
  EXPECT_EQ(force_tile("mma 64 64 8 32 32 1 1 1 2"), 0);  // store_pad, two stages
  EXPECT_EQ(force_tile("mma 64 64 8 32 32 1 1 2 1"), -1);  // store_pad is 0 or 1
  EXPECT_EQ(force_tile(""), 0);
  EXPECT_EQ(force_tile(nullptr), 0);
  EXPECT_EQ(force_tile("wgmma 128 128 64 64 128 1 1 0 4"), 0);  // legality is judged per call
  EXPECT_EQ(force_tile("wgmma 64 64 64 64 64 1 1 0 2 1 -1 1 4"), 0);   // four batch entries a block
  EXPECT_EQ(force_tile("wgmma 64 64 64 64 64 1 1 0 2 1 -1 1 0"), -1);  // batch_tiles >= 1
  EXPECT_EQ(force_tile("simt 256 128 8 16 8 4 1 0 3 1 -1 1 1 1"), 0);   // unbounded copies
  EXPECT_EQ(force_tile("simt 256 128 8 16 8 4 1 0 3 1 -1 1 1 2"), -1);  // unbounded is 0 or 1
  EXPECT_EQ(force_tile("tcgen05 128 64 16 32 32 1"), -1);
  EXPECT_EQ(force_tile("mma 128 64 16"), -1);
  EXPECT_EQ(force_tile("simt 64 64 8 4 4 4 0"), -1);
  EXPECT_EQ(force_tile("bogus"), -1);
}

// ptxblas_set_benchmark_top_k: 0 to 16, or negative for the configuration's value.
TEST(BenchmarkTopK, AcceptsItsRange) {
  EXPECT_EQ(set_benchmark_top_k(4), 0);
  EXPECT_EQ(set_benchmark_top_k(16), 0);
  EXPECT_EQ(set_benchmark_top_k(17), -1);
  EXPECT_EQ(set_benchmark_top_k(0), 0);
  EXPECT_EQ(set_benchmark_top_k(-1), 0);
}

}  // namespace
}  // namespace cpushim
