// The cp.async pipeline (3 or more shared stages, SIMT and mma families; perf notes §28): tiles of
// every 4-, 8- and 16-byte type forced onto every layout (conjugates included), ragged M, N and K,
// K far beyond the stages (each stage refilled many times), K splits, beta zero or not, checked
// against the float64 reference and the real cuBLAS on fresh data with NaN-poisoned C; and the
// same tiles' 16-byte vector copies at ragged edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
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

// 16-byte vector copies (the launcher's `_vc` variant, perf notes §41, and along K for f64 mma
// tiles at least 64 wide, §60): leading dimensions of whole vectors so that the launcher takes
// them, with M, N and K ending mid-vector so that the copies at the matrix's edges read part of a
// vector and zero-fill the rest, every layout.
TEST(AsyncCopy, VectorCopiesAtRaggedEdgesMatchTheReference) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x7EC5ull);
  constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T};
  // Tiles whose A tile splits into 16-byte vectors evenly over their threads (gen::copy_vector).
  constexpr AsyncCase kVectorCases[] = {
      {"Sgemm", "simt 128 128 8 8 8 4 1 0 3"}, {"Sgemm", "simt 128 64 8 8 4 4 1 0 4"},
      {"Dgemm", "mma 64 128 8 32 64 1 1 0 3"},  {"Dgemm", "mma 32 32 16 16 16 1 1 0 3"},
      {"Cgemm", "simt 64 32 8 4 2 2 1 0 3"},
  };
  auto whole_vectors = [&](std::int64_t rows) { return (rows + 3) / 4 * 4 + 4 * static_cast<std::int64_t>(rng() % 2); };
  int checked = 0, vectored = 0;
  for (const AsyncCase& c : kVectorCases)
    for (cublasOperation_t ta : kOps)
      for (cublasOperation_t tb : kOps)
        for (int rep = 0; rep < 2; ++rep) {
          std::string forced = c.spec;
          forced.replace(forced.size() - 5, 1, rep == 1 ? "3" : "1");  // the KG field
          ForcedTile f(forced);
          ASSERT_TRUE(f.accepted()) << forced;
          const Entry& e = entry_named(c.entry);
          std::uniform_int_distribution<std::int64_t> q(8, 80);
          Gemm g{ta, tb, 4 * q(rng) + 1 + static_cast<std::int64_t>(rng() % 3), 4 * q(rng) + 3,
                 4 * q(rng) + 1 + static_cast<std::int64_t>(rng() % 3), 0, 0, 0, {0.75, 0.5}, {0, 0}};
          if (rep == 1) g.k += 400;
          if (rng() % 2) g.beta = {-0.5, 0.25};
          g.lda = whole_vectors(a_rows(g));
          g.ldb = whole_vectors(b_rows(g));
          g.ldc = leading_dim(g.m, rng() % 2, rng);
          const CheckResult r = check_gemm(e, g, h.get(), rng);
          EXPECT_EQ(r.failure, "") << forced << ": " << describe(e, g) << " -> " << r.kernel;
          const bool vc = r.kernel.find("_vc") != std::string::npos;
          // op(A) = A stores A M-contiguous: its copies are vectors. TN stores both K-contiguous:
          // vectors along K only in the f64 mma tile 64 and 128 wide.
          const bool k_vectors = std::string(c.entry) == "Dgemm" && forced.rfind("mma 64 128", 0) == 0;
          if (ta == CUBLAS_OP_N) {
            EXPECT_TRUE(vc) << forced << ": " << describe(e, g) << " -> " << r.kernel;
          } else if (tb == CUBLAS_OP_N) {
            EXPECT_EQ(vc, k_vectors) << forced << " -> " << r.kernel;
          }
          vectored += vc;
          ++checked;
        }
  std::printf("[ async   ] %d forced calls checked, %d with vector copies\n", checked, vectored);
}

// Vector copies are decided per operand: with one operand's leading dimension an odd number of
// elements (its vectors would straddle 16 bytes), the other, aligned one keeps its vectors
// (`_vca`: A only, `_vcb`: B only) and the misaligned one copies single elements.
TEST(AsyncCopy, AnAlignedOperandKeepsItsVectorsBesideAMisalignedOne) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x0DDull);
  // NT: both operands M/N-contiguous; Dgemm NN: A along M, B along K (f64 K vectors, §60).
  struct Mixed {
    const char* entry;
    const char* spec;
    cublasOperation_t ta, tb;
    int per_vector;  // elements per 16 bytes
  };
  constexpr Mixed kMixed[] = {
      {"Sgemm", "simt 128 128 8 8 8 4 1 0 3", CUBLAS_OP_N, CUBLAS_OP_T, 4},
      {"Dgemm", "mma 64 128 8 32 64 1 1 0 3", CUBLAS_OP_N, CUBLAS_OP_N, 2},
      {"Dgemm", "mma 64 128 8 32 64 1 1 0 3", CUBLAS_OP_T, CUBLAS_OP_N, 2},
  };
  int checked = 0;
  for (const Mixed& c : kMixed)
    for (bool a_aligned : {true, false}) {
      ForcedTile f(c.spec);
      ASSERT_TRUE(f.accepted()) << c.spec;
      const Entry& e = entry_named(c.entry);
      std::uniform_int_distribution<std::int64_t> q(40, 90);
      Gemm g{c.ta, c.tb, 4 * q(rng) + 1, 4 * q(rng) + 3, 4 * q(rng) + 2, 0, 0, 0, {0.75, 0.5}, {-0.5, 0.25}};
      auto whole = [&](std::int64_t rows) { return (rows + c.per_vector - 1) / c.per_vector * c.per_vector; };
      auto odd = [&](std::int64_t rows) { return whole(rows) + 1; };
      g.lda = a_aligned ? whole(a_rows(g)) : odd(a_rows(g));
      g.ldb = a_aligned ? odd(b_rows(g)) : whole(b_rows(g));
      g.ldc = g.m + 1;
      const CheckResult r = check_gemm(e, g, h.get(), rng);
      EXPECT_EQ(r.failure, "") << c.spec << ": " << describe(e, g) << " -> " << r.kernel;
      // TN's A is K-contiguous: vectors only in f64 mma tiles (here 64 wide), as B's of NN.
      const std::string want = a_aligned ? "_vca" : "_vcb";
      EXPECT_NE(r.kernel.find(want), std::string::npos) << c.spec << ": " << describe(e, g) << " -> " << r.kernel;
      ++checked;
    }
  std::printf("[ async   ] %d calls with one operand misaligned checked\n", checked);
}

// Sgemm with each forced spec in every op pair of N and T: M and N from `side`, K from `deep`,
// leading dimensions of A and B whole 16-byte vectors, beta zero or not; each checked, and its
// kernel name holding every one of `names`. Returns the calls checked.
int check_forced_f32(const Handle& h, std::mt19937_64& rng, std::initializer_list<const char*> specs,
                     std::uniform_int_distribution<std::int64_t> side, std::uniform_int_distribution<std::int64_t> deep,
                     std::initializer_list<const char*> names) {
  const Entry& e = entry_named("Sgemm");
  auto whole = [](std::int64_t rows) { return (rows + 3) / 4 * 4; };
  int checked = 0;
  for (const char* spec : specs)
    for (cublasOperation_t ta : {CUBLAS_OP_N, CUBLAS_OP_T})
      for (cublasOperation_t tb : {CUBLAS_OP_N, CUBLAS_OP_T}) {
        ForcedTile f(spec);
        EXPECT_TRUE(f.accepted()) << spec;
        Gemm g{ta, tb, side(rng), side(rng), deep(rng), 0, 0, 0, {0.75, 0.5}, {0, 0}};
        if (rng() % 2) g.beta = {-0.5, 0.25};
        g.lda = whole(a_rows(g));
        g.ldb = whole(b_rows(g));
        g.ldc = leading_dim(g.m, rng() % 2, rng);
        const CheckResult r = check_gemm(e, g, h.get(), rng);
        EXPECT_EQ(r.failure, "") << spec << ": " << describe(e, g) << " -> " << r.kernel;
        for (const char* name : names) EXPECT_NE(r.kernel.find(name), std::string::npos) << spec << " -> " << r.kernel;
        ++checked;
      }
  return checked;
}

// f32 K splits copying unbounded inside the matrix (perf notes §145): forced onto ragged M, N and
// deep K in every op pair with 16-byte aligned leading dimensions, and as the dispatcher runs deep
// reductions (its one-wave split; a split on a tile 128 wide and 64 or more the other way copies
// unbounded wherever it copies vectors).
TEST(AsyncCopy, F32SplitsCopyingUnboundedMatchTheReference) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x5B1Full);
  const Entry& e = entry_named("Sgemm");
  auto whole = [](std::int64_t rows) { return (rows + 3) / 4 * 4; };
  int checked = check_forced_f32(
      h, rng, {"simt 128 128 8 8 8 4 3 0 3 1 -1 1 1 1", "simt 128 64 8 8 8 4 5 0 4 1 -1 1 1 1"},
      std::uniform_int_distribution<std::int64_t>(130, 300), std::uniform_int_distribution<std::int64_t>(1500, 3000),
      {"_ub", " kg="});
  // The dispatcher's own plans for deep reductions (whatever tile it picks).
  const struct {
    cublasOperation_t ta, tb;
    std::int64_t m, n, k;
  } kDeep[] = {{CUBLAS_OP_N, CUBLAS_OP_T, 256, 128, 40000}, {CUBLAS_OP_N, CUBLAS_OP_N, 200, 200, 30000},
               {CUBLAS_OP_T, CUBLAS_OP_T, 250, 130, 30000}};
  int unbounded = 0;
  for (const auto& d : kDeep) {
    Gemm g{d.ta, d.tb, d.m, d.n, d.k, 0, 0, 0, {1, 0}, {0.5, 0}};
    g.lda = whole(a_rows(g));
    g.ldb = whole(b_rows(g));
    g.ldc = g.m;
    const CheckResult r = check_gemm(e, g, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    int ml = 0, nl = 0, ms = 0, ns = 0;
    const bool simt = std::sscanf(r.kernel.c_str(), "simt_s_%*2s_%dx%dx%*d_%dx%d", &ml, &nl, &ms, &ns) == 4;
    const bool lowered = simt && r.kernel.find(" kg=") != std::string::npos && std::max(ml, nl) >= 128 &&
                         std::min(ml, nl) >= 64 && std::max(ms, ns) <= 8 && r.kernel.find("_vc") != std::string::npos;
    if (lowered) {
      EXPECT_NE(r.kernel.find("_ub"), std::string::npos) << describe(e, g) << " -> " << r.kernel;
    }
    unbounded += r.kernel.find("_ub") != std::string::npos;
    ++checked;
  }
  // The bundled H200 model splits the first two on 128-wide tiles of 8 x 8 thread tiles.
  EXPECT_GE(unbounded, 1) << "no dispatched deep split copied unbounded";
  std::printf("[ async   ] %d f32 splits checked, %d of the dispatcher's deep ones unbounded\n", checked, unbounded);
}

// The wide f32 tiles (128 x 256 of 8 x 16 thread tiles, 256 x 128 of 16 x 8; one block an SM, perf
// notes §146) with unbounded copies, forced onto ragged shapes in every op pair, and as the
// dispatcher takes them for C that divides into one wave of them (NT 1536 x 2816, NN 2816 x 1536:
// 132 blocks each, K 1024).
TEST(AsyncCopy, WideF32TilesMatchTheReference) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x256ull);
  const Entry& e = entry_named("Sgemm");
  int checked = check_forced_f32(
      h, rng, {"simt 128 256 8 8 16 4 1 0 3 1 -1 1 1 1", "simt 256 128 8 16 8 4 1 0 3 1 -1 1 1 1"},
      std::uniform_int_distribution<std::int64_t>(260, 600), std::uniform_int_distribution<std::int64_t>(40, 400),
      {"_ub"});
  const struct {
    cublasOperation_t ta, tb;
    std::int64_t m, n;
    const char* tile;
  } kDispatched[] = {{CUBLAS_OP_N, CUBLAS_OP_T, 1536, 2816, "_128x256x8_8x16_"},
                     {CUBLAS_OP_N, CUBLAS_OP_N, 2816, 1536, "_256x128x8_16x8_"}};
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  for (const auto& d : kDispatched) {
    if (sms != 132) break;  // one wave of these blocks on the H100 / H200 only
    Gemm g{d.ta, d.tb, d.m, d.n, 1024, 0, 0, 0, {1, 0}, {0.5, 0}};
    g.lda = a_rows(g);
    g.ldb = b_rows(g);
    g.ldc = g.m;
    const CheckResult r = check_gemm(e, g, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    EXPECT_NE(r.kernel.find(d.tile), std::string::npos) << describe(e, g) << " -> " << r.kernel;
    ++checked;
  }
  std::printf("[ async   ] %d calls on wide f32 tiles checked\n", checked);
}

}  // namespace
}  // namespace gputest
