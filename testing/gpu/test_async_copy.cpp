// The cp.async pipeline (3 or more shared stages, SIMT and mma families; perf notes §28): tiles of
// every 4-, 8- and 16-byte type forced onto every layout (conjugates included), ragged M, N and K,
// K far beyond the stages (each stage refilled many times), K splits, beta zero or not, checked
// against the float64 reference and the real cuBLAS on fresh data with NaN-poisoned C.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

struct AsyncCase {
  const char* entry;
  const char* spec;  // "family ML NL U MS NS VEC KG PAD STAGES", KG replaced per repetition
};

// The catalogue's tiles with cp.async stages, the deepest stage count that fits, and small ones.
constexpr AsyncCase kCases[] = {
    {"Sgemm", "simt 128 128 8 8 8 4 1 0 4"}, {"Sgemm", "simt 64 64 8 4 4 4 1 0 3"},
    {"Sgemm", "simt 32 32 8 2 2 2 1 0 6"},   {"Dgemm", "mma 128 64 8 64 32 1 1 0 4"},
    {"Dgemm", "mma 64 64 16 32 32 1 1 0 3"}, {"Dgemm", "mma 32 32 16 16 16 1 1 0 4"},
    {"Cgemm", "simt 64 32 8 4 2 2 1 0 3"},   {"Zgemm", "mma 64 32 8 32 16 1 1 0 4"},
    {"Zgemm", "mma 32 32 16 16 16 1 1 0 3"},
};

TEST(AsyncCopy, EveryTileLayoutAndEdgeMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xA5C0ull);
  constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  int checked = 0;
  for (const AsyncCase& c : kCases)
    for (cublasOperation_t ta : kOps)
      for (cublasOperation_t tb : kOps)
        for (int rep = 0; rep < 3; ++rep) {
          std::string forced = c.spec;
          const int kg = rep == 2 ? 3 : 1;
          forced.replace(forced.size() - 5, 1, std::to_string(kg));  // the KG field
          ForcedTile f(forced);
          ASSERT_TRUE(f.accepted()) << forced;
          const Entry& e = entry_named(c.entry);
          // rep 0: ragged, K from below one K-step to a few stages; 1: exact multiples, deep K;
          // 2: split.
          std::uniform_int_distribution<std::int64_t> mn(1, 300), kd(1, 100);
          Gemm g{ta, tb, mn(rng), mn(rng), kd(rng), 0, 0, 0, {1.25, -0.5}, {0, 0}};
          if (rep == 1) {
            g.m = 256;
            g.n = 128;
            g.k = 512;
          }
          if (rep == 2) g.k = 600 + static_cast<std::int64_t>(rng() % 300);
          if (rng() % 2) g.beta = {-0.5, 0.75};
          g.lda = leading_dim(a_rows(g), rng() % 2, rng);
          g.ldb = leading_dim(b_rows(g), rng() % 2, rng);
          g.ldc = leading_dim(g.m, rng() % 2, rng);
          const CheckResult r = check_gemm(e, g, h.get(), rng);
          EXPECT_EQ(r.failure, "") << forced << ": " << describe(e, g) << " -> " << r.kernel;
          const std::string stages = "_s" + forced.substr(forced.size() - 1);
          EXPECT_NE(r.kernel.find(stages), std::string::npos) << forced << " ran " << r.kernel;
          ++checked;
        }
  std::printf("[ async   ] %d forced calls checked\n", checked);
}

}  // namespace
}  // namespace gputest
