// The wgmma family (f16/bf16 on sm_90): every catalogued wgmma tile forced onto every layout,
// ragged M, N and K (K not a multiple of U, K shorter than the pipeline), K splits, beta zero or
// not, alpha zero at times, each checked against the float64 reference and the real cuBLAS on fresh data with
// NaN-poisoned C, through all three epilogues (with ldc a multiple of 8, C loaded (beta != 0) and
// stored through its tensor map, clipped by the engine where M is a multiple of 8; staged 16-byte
// stores for the other blocks inside C with ldc a multiple of 8; else the common one), in launch
// order or rastered;
// and the dispatcher's own
// choice of wgmma where it can run, on aligned copies of the operands where it cannot read them as
// they are (a leading dimension not a multiple of 8) and copying pays, and another family where it
// does not.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

bool is_sm90() {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.major == 9 && p.minor == 0;
}

#define SKIP_WITHOUT_SM90()                                           \
  do {                                                                \
    SKIP_WITHOUT_GPU();                                               \
    if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code"; \
  } while (0)

// A leading dimension for `rows` that keeps every 16-byte copy aligned: a multiple of 8, padded
// or not.
std::int64_t aligned_ld(std::int64_t rows, std::mt19937_64& rng) {
  const std::int64_t base = (std::max<std::int64_t>(rows, 1) + 7) / 8 * 8;
  return base + 8 * static_cast<std::int64_t>(rng() % 2);
}

// The call with A and B 16-byte aligned (leading dimensions set here) and a packed C, checked
// against the reference; the dispatcher must have run a wgmma kernel.
CheckResult check_dispatched_wgmma(const Entry& e, Gemm& g, cublasHandle_t h, std::mt19937_64& rng) {
  g.lda = aligned_ld(a_rows(g), rng);
  g.ldb = aligned_ld(b_rows(g), rng);
  g.ldc = g.m;
  const CheckResult r = check_gemm(e, g, h, rng);
  EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
  EXPECT_EQ(r.kernel.rfind("wgmma_", 0), 0u) << describe(e, g) << " ran " << r.kernel;
  return r;
}

constexpr const char* kHalfEntries[] = {"Hgemm", "GemmEx_R16F_C32F", "GemmEx_R16BF_C32F"};
constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T};

TEST(Wgmma, EveryTileLayoutAndEdgeMatchesTheReference) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x36A3ull);
  // The catalogue's tiles (generator/tile_catalog.cpp), other stage counts, two 64-row tiles per
  // warpgroup, warpgroups side by side along N, four warpgroups, the shallow-K plan's tile, and
  // the narrow streaming plan's 128x64 of two warpgroups along M (perf notes §107), the deep
  // 65-128-wide plan's 64x128 s6 (§114), the 129-192-wide plan's 192-wide blocks (§116), the
  // 192-row blocks of three warpgroups (§117), the wave model's 64x256 s4 and 256x128 s4 (§121).
  const char* kSpecs[] = {"wgmma 128 256 64 64 256 1 1 0 3", "wgmma 128 128 64 64 128 1 1 0 4",
                          "wgmma 64 128 64 64 128 1 1 0 4",  "wgmma 64 64 64 64 64 1 1 0 4",
                          "wgmma 128 128 64 64 128 1 1 0 3", "wgmma 64 64 64 64 64 1 1 0 6",
                          "wgmma 128 256 64 128 128 1 1 0 3", "wgmma 256 128 64 64 128 1 1 0 3",
                          "wgmma 64 128 64 64 128 1 1 0 2",  "wgmma 128 64 64 64 64 1 1 0 6",
                          "wgmma 64 128 64 64 128 1 1 0 6",  "wgmma 128 192 64 64 192 1 1 0 5",
                          "wgmma 64 192 64 64 192 1 1 0 6",  "wgmma 192 128 64 64 128 1 1 0 5",
                          "wgmma 192 64 64 64 64 1 1 0 6",   "wgmma 64 256 64 64 256 1 1 0 4",
                          "wgmma 256 128 64 64 128 1 1 0 4"};
  int checked = 0;
  for (const char* spec : kSpecs)
    for (cublasOperation_t ta : kOps)
      for (cublasOperation_t tb : kOps)
        for (int rep = 0; rep < 3; ++rep) {
          std::string forced = spec;
          const int kg = rep == 2 ? 3 : 1;
          forced.replace(forced.size() - 5, 1, std::to_string(kg));  // the KG field
          // Half the time the launch order in row-tile pairs (KL 1, RASTER 2, KS 1): the blocks'
          // tiles are remapped, which every store path must follow.
          if (rng() % 2) forced += " 1 2 1";
          ForcedTile f(forced);
          ASSERT_TRUE(f.accepted()) << forced;
          const Entry& e = entry_named(kHalfEntries[rng() % std::size(kHalfEntries)]);
          // rep 0: ragged everything, K below one K-step possible; 1: exact multiples; 2: split.
          std::uniform_int_distribution<std::int64_t> mn(1, 300), kd(1, 400);
          Gemm g{ta, tb, mn(rng), mn(rng), kd(rng), 0, 0, 0, {1.25, 0}, {0, 0}};
          if (rep == 1) {
            g.m = 256;
            g.n = 256;
            g.k = 192;
          }
          if (rep == 2) g.k = 600 + static_cast<std::int64_t>(rng() % 300);
          // M a multiple of 8 half the time: ragged blocks then go through C's tensor map
          // (clipped by the engine), else only the blocks inside C do.
          if (rep == 0 && rng() % 2) g.m = (g.m + 7) / 8 * 8;
          if (rng() % 2) g.beta = {-0.5, 0};
          // alpha = 0 at times: the blocks skip the loop but must still set up the barrier the
          // epilogue's load of C waits on.
          if (rng() % 8 == 0) g.alpha = {0, 0};
          g.lda = aligned_ld(a_rows(g), rng);
          g.ldb = aligned_ld(b_rows(g), rng);
          // ldc a multiple of 8 (always for the exact shapes): the blocks wholly inside C take the
          // staged 16-byte stores, the others the common epilogue.
          g.ldc = rep == 1 || rng() % 2 ? aligned_ld(g.m, rng) : leading_dim(g.m, rng() % 2, rng);
          const CheckResult r = check_gemm(e, g, h.get(), rng);
          EXPECT_EQ(r.failure, "") << forced << ": " << describe(e, g) << " -> " << r.kernel;
          EXPECT_EQ(r.kernel.rfind("wgmma_", 0), 0u) << forced << " ran " << r.kernel;
          ++checked;
        }
  std::printf("[ wgmma   ] %d forced calls checked\n", checked);
}

// C's pointer off 16-byte alignment (1-7 elements into its buffer) with ldc a multiple of 8: the
// host makes no tensor map of C and the kernel's own check sends every block to the common
// epilogue (neither the tensor-map path nor the staged 16-byte stores); 8 elements in, C is
// aligned again and takes the tensor-map path. Both betas, every layout, M a multiple of 8 (the
// shapes whose edge blocks the map would take) and not.
TEST(Wgmma, CPointerOffSixteenBytesMatchesTheReference) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x36A5ull);
  int i = 0;
  for (const char* name : kHalfEntries)
    for (cublasOperation_t ta : kOps)
      for (cublasOperation_t tb : kOps)
        for (std::int64_t offset : {1 + static_cast<std::int64_t>(rng() % 7), std::int64_t{8}}) {
          const Entry& e = entry_named(name);
          Gemm g{ta, tb, i % 2 ? 136 : 133, 200, 160, 0, 0, 0, {1, 0}, {i % 3 ? -0.5 : 0.0, 0}};
          g.lda = aligned_ld(a_rows(g), rng);
          g.ldb = aligned_ld(b_rows(g), rng);
          g.ldc = aligned_ld(g.m, rng);
          CheckOptions opt;
          opt.c_offset = offset;
          const CheckResult r = check_gemm(e, g, h.get(), rng, opt);
          EXPECT_EQ(r.failure, "") << describe(e, g) << " C offset " << offset << " -> " << r.kernel;
          EXPECT_EQ(r.kernel.rfind("wgmma_", 0), 0u) << describe(e, g) << " ran " << r.kernel;
          ++i;
        }
}

TEST(Wgmma, DispatcherUsesWgmmaWhereOperandsAllowIt) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x36A4ull);
  for (const char* name : kHalfEntries)
    for (cublasOperation_t ta : kOps)
      for (cublasOperation_t tb : kOps) {
        const Entry& e = entry_named(name);
        Gemm g{ta, tb, 520, 384, 1000, 0, 0, 0, {1, 0}, {0.5, 0}};
        CheckResult r = check_dispatched_wgmma(e, g, h.get(), rng);
        // An odd leading dimension: TMA cannot read A; on a call this small (0.02 GFLOP)
        // copying it into an aligned one does not pay (operand_pack.hpp), another family serves it.
        g = {ta, tb, 200, 184, 300, 0, 0, 0, {1, 0}, {0.5, 0}};
        g.lda = a_rows(g) + 1;
        g.ldb = aligned_ld(b_rows(g), rng);
        g.ldc = g.m;
        r = check_gemm(e, g, h.get(), rng);
        EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
        EXPECT_NE(r.kernel.rfind("wgmma_", 0), 0u) << describe(e, g) << " ran " << r.kernel;
      }
}

// Above the packing rule's bounds (operand_pack.hpp: 2^28 flops, 112 flops per copied element),
// an operand TMA cannot read (odd leading dimension) is copied into an aligned workspace and the
// call runs wgmma on the copy: A, B or both, every layout, a padded ld too, ragged M, N and K,
// beta zero or not. The call record names the copies (" packed=A").
TEST(Wgmma, MisalignedOperandsRunOnAlignedCopiesWherePackingPays) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x9AC4ull);
  int turn = 0;
  for (cublasOperation_t ta : kOps)
    for (cublasOperation_t tb : kOps)
      for (const char* which : {"A", "B", "AB"}) {
        const Entry& e = entry_named(kHalfEntries[turn++ % std::size(kHalfEntries)]);
        // 0.32-0.37 GFLOP, 18% above the floor at least (the float64 reference takes about a
        // second a call).
        Gemm g{ta, tb, 515, 341 + static_cast<std::int64_t>(rng() % 60), 901, 0, 0, 0, {1, 0},
               {rng() % 2 ? 0.5 : 0.0, 0}};
        g.lda = aligned_ld(a_rows(g), rng);
        g.ldb = aligned_ld(b_rows(g), rng);
        // Odd: the tight one where the stored rows are odd, else one past it.
        auto odd_ld = [&](std::int64_t rows) {
          return rows % 2 ? rows + 2 * static_cast<std::int64_t>(rng() % 2) : rows + 1;
        };
        const std::string w = which;
        if (w.find('A') != std::string::npos) g.lda = odd_ld(a_rows(g));
        if (w.find('B') != std::string::npos) g.ldb = odd_ld(b_rows(g));
        g.ldc = leading_dim(g.m, rng() % 2, rng);
        const CheckResult r = check_gemm(e, g, h.get(), rng);
        EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
        EXPECT_EQ(r.kernel.rfind("wgmma_", 0), 0u) << describe(e, g) << " ran " << r.kernel;
        EXPECT_TRUE(r.kernel.ends_with(" packed=" + w)) << describe(e, g) << " ran " << r.kernel;
      }
}

// Below the rule's 112 flops a copied element, a misaligned operand stays where it is: a thin C
// (2001 x 40, 0.32 GFLOP, 80 flops an element of A) and a thin M (40 x 2001, B misaligned) run
// another family, checked against the reference.
TEST(Wgmma, ThinCallsDoNotCopyTheirMisalignedOperand) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x9AC5ull);
  const Entry& e = entry_named("Hgemm");
  for (const Gemm& shape : {Gemm{CUBLAS_OP_N, CUBLAS_OP_N, 2001, 40, 2000, 0, 0, 0, {1, 0}, {0.5, 0}},
                            Gemm{CUBLAS_OP_N, CUBLAS_OP_T, 40, 2001, 2000, 0, 0, 0, {1, 0}, {0, 0}}}) {
    Gemm g = shape;
    g.lda = a_rows(g);  // 2001 (NN) or 40 (NT)
    g.ldb = b_rows(g);  // 2000 (NN) or 2001 (NT)
    g.ldc = g.m;
    const CheckResult r = check_gemm(e, g, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    EXPECT_EQ(r.kernel.find("packed"), std::string::npos) << describe(e, g) << " ran " << r.kernel;
    EXPECT_NE(r.kernel.rfind("wgmma_", 0), 0u) << describe(e, g) << " ran " << r.kernel;
  }
}

// A deep reduction onto a C of one tile: the 2048-deep slices would leave most SMs idle, so the
// dispatcher takes shallower ones (perf notes §49); the many-slice split must still match the
// reference (ragged M, N, K; beta not zero).
TEST(Wgmma, DeepReductionOntoOneTileSplitsPastThe2048Floor) {
  SKIP_WITHOUT_SM90();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x49D2ull);
  const Entry& e = entry_named("Hgemm");
  Gemm g{CUBLAS_OP_N, CUBLAS_OP_T, 40, 56, 30001, 0, 0, 0, {1, 0}, {0.5, 0}};
  const CheckResult r = check_dispatched_wgmma(e, g, h.get(), rng);
  const std::size_t at = r.kernel.find(" kg=");
  ASSERT_NE(at, std::string::npos) << r.kernel;
  EXPECT_GT(std::stoi(r.kernel.substr(at + 4)), 30001 / 2048) << r.kernel;
}

struct StreamingCase {
  cublasOperation_t ta, tb;
  std::int64_t m, n, k;
  const char* tile;  // a piece of the kernel's name
  bool split;
};

// Each case through the dispatcher, checked against the reference, must run `tile`, split or not.
// The float64 host reference costs ~2.5 s per GFLOP: calls above 2^31 multiply-adds run for one
// entry each, in turn, the others for all three.
void check_streaming_cases(std::initializer_list<StreamingCase> cases, std::uint64_t salt) {
  Handle h;
  std::mt19937_64 rng(test_seed() ^ salt);
  std::size_t turn = 0;
  for (const StreamingCase& c : cases) {
    const bool deep = c.m * c.n * c.k > (std::int64_t{1} << 31);
    const char* only = deep ? kHalfEntries[turn++ % std::size(kHalfEntries)] : nullptr;
    for (const char* name : kHalfEntries) {
      if (only && name != only) continue;
      const Entry& e = entry_named(name);
      Gemm g{c.ta, c.tb, c.m, c.n, c.k, 0, 0, 0, {1, 0}, {rng() % 2 ? 0.5 : 0.0, 0}};
      const CheckResult r = check_dispatched_wgmma(e, g, h.get(), rng);
      EXPECT_NE(r.kernel.find(c.tile), std::string::npos) << describe(e, g) << " ran " << r.kernel;
      EXPECT_EQ(r.kernel.find(" kg=") != std::string::npos, c.split) << describe(e, g) << " ran " << r.kernel;
    }
  }
}

// GEMV-like calls (a C at most 16 wide, a long operand of 2^24 elements or more) run the narrow
// streaming plan: 128x64 blocks for a narrow N, 64x128 for a narrow M, K split (perf notes §107);
// 17-64 wide with K no longer than the long side, unsplit: the same blocks from a long side of
// 8192 (§109), 64x64 below it (§111).
TEST(Wgmma, NarrowStreamingCallsMatchTheReference) {
  SKIP_WITHOUT_SM90();
  check_streaming_cases({{CUBLAS_OP_T, CUBLAS_OP_N, 8191, 1, 4103, "128x64x64", true},
                         {CUBLAS_OP_N, CUBLAS_OP_N, 4100, 13, 4333, "128x64x64", true},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 7, 5000, 4097, "64x128x64", true},
                         {CUBLAS_OP_N, CUBLAS_OP_N, 8200, 41, 4333, "128x64x64", false},
                         {CUBLAS_OP_T, CUBLAS_OP_T, 64, 8200, 4097, "64x128x64", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 4100, 37, 4099, "_64x64x64_", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 29, 6001, 4111, "_64x64x64_", false}},
                        0x5E17ull);
}

// 65-128 wide, likewise unsplit, in blocks 128 wide on the narrow side (§112); 128x128 s6 for a
// narrow N up to 96 wide of a long side from 8192, and from K = 8192 64x128 s6 (B K-contiguous)
// or 128x128 s6 (B N-contiguous) (§114). (A test of its own, so that the GPU tests' shards
// balance: these calls' references take most of a minute.)
TEST(Wgmma, Calls65To128WideStreamingMatchTheReference) {
  SKIP_WITHOUT_SM90();
  check_streaming_cases({{CUBLAS_OP_N, CUBLAS_OP_N, 4133, 97, 4111, "_64x128x64_", false},
                         {CUBLAS_OP_T, CUBLAS_OP_T, 121, 5001, 4099, "_128x64x64_", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 8200, 75, 4103, "_128x128x64_64x128_s6", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 67, 8200, 8193, "_64x128x64_64x128_s6", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 8200, 99, 8193, "_128x128x64_64x128_s6", false}},
                        0x65A8ull);
}

// 129-256 wide, unsplit in the largest block that fills the SMs, 192 wide for a narrow N up to
// 192 (§116); a narrow M of 192 in 192-row blocks, a narrow N 257-384 in 128x192 s5 (§117);
// 385-512 wide in 128x256 s4 where that grid is one wave (§118); a narrow M 288-384 in 192x128 s5
// (§119).
TEST(Wgmma, Calls129To512WideStreamingMatchTheReference) {
  SKIP_WITHOUT_SM90();
  check_streaming_cases({{CUBLAS_OP_N, CUBLAS_OP_N, 4100, 161, 4099, "_64x192x64_64x192_s6", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 12000, 137, 1400, "_128x192x64_64x192_s5", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 12100, 200, 1390, "_128x256x64_64x256_s4", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 136, 4100, 4100, "_64x128x64_64x128_s6", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 192, 6001, 2800, "_192x64x64_64x64_s6", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 192, 12001, 1400, "_192x128x64_64x128_s5", false},
                         {CUBLAS_OP_N, CUBLAS_OP_N, 6001, 257, 2800, "_128x192x64_64x192_s5", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 6001, 390, 2850, "_128x256x64_64x256_s4", false},
                         {CUBLAS_OP_T, CUBLAS_OP_N, 301, 6001, 2850, "_192x128x64_64x128_s5", false}},
                        0x1296ull);
}

// A ragged narrow M 129-191 and 513-768 wide, unsplit in the tile whose grid is done first
// counted in waves (§121): 64x192 s6, 64x256 s4, 256x128 s4.
TEST(Wgmma, RaggedNarrowMAnd513To768WideStreamingMatchTheReference) {
  SKIP_WITHOUT_SM90();
  check_streaming_cases({{CUBLAS_OP_T, CUBLAS_OP_T, 150, 6001, 4100, "_64x192x64_64x192_s6", false},
                         {CUBLAS_OP_N, CUBLAS_OP_T, 176, 20481, 820, "_64x256x64_64x256_s4", false},
                         {CUBLAS_OP_N, CUBLAS_OP_N, 6001, 530, 2800, "_256x128x64_64x128_s4", false}},
                        0x121Aull);
}

// K deeper than the long side, unsplit in the wave model's pick where its grid fills the SMs
// (§122): a ragged narrow M in 64x128 s6, 4200 deep.
TEST(Wgmma, DeeperThanTheLongSideStreamingMatchesTheReference) {
  SKIP_WITHOUT_SM90();
  check_streaming_cases({{CUBLAS_OP_T, CUBLAS_OP_N, 150, 4100, 4200, "_64x128x64_64x128_s6", false}}, 0x122Dull);
}

}  // namespace
}  // namespace gputest
