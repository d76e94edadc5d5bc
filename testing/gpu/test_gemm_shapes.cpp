// Every entry point x every op combination x random shapes; edge shapes; split-K shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <random>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

// Sizes that stress edges: 1, primes, tile sizes and one past them.
constexpr std::int64_t kSizes[] = {1, 2, 3, 5, 7, 13, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 191, 257};

// alpha/beta pairs cycled through the cases: plain, scaled, alpha = 0, beta = 0 (C is NaN then).
const cd kAlpha[] = {{1, 0}, {-1.5, 0.25}, {0.5, -1}, {0, 0}, {2, 0}, {1, 0}};
const cd kBeta[] = {{0, 0}, {1, 0}, {-0.75, 0.5}, {0.5, 0}, {0, 0}, {0.25, 1}};

class GemmShapes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    handle_ = std::make_unique<Handle>();
    rng_.seed(test_seed() ^ std::hash<std::string>{}(GetParam()));
  }
  bool is_64() const { return GetParam().find("_64") != std::string::npos; }
  std::int64_t pick_size() { return kSizes[rng_() % std::size(kSizes)]; }

  // The kernel that ran (its name), after checking the result and that the name holds must_contain.
  std::string run(const Gemm& g, const CheckOptions& opt = {}, const char* must_contain = nullptr) {
    const Entry& e = entry_named(GetParam());
    const CheckResult r = check_gemm(e, g, handle_->get(), rng_, opt);
    ++cases_;
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    if (must_contain && r.failure.empty()) {
      EXPECT_NE(r.kernel.find(must_contain), std::string::npos) << describe(e, g) << " ran " << r.kernel;
    }
    return r.kernel;
  }

  Gemm make(cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n, std::int64_t k, bool pad,
            int scalars) {
    Gemm g{ta, tb, m, n, k, 0, 0, 0, kAlpha[scalars % 6], kBeta[scalars % 6]};
    g.lda = leading_dim(a_rows(g), pad, rng_);
    g.ldb = leading_dim(b_rows(g), pad, rng_);
    g.ldc = leading_dim(m, pad, rng_);
    return g;
  }

  std::unique_ptr<Handle> handle_;  // made once a GPU is known to exist
  std::mt19937_64 rng_;
  int cases_ = 0;
};

// All nine op pairs, random shapes from the edge sizes, some with padded leading dimensions.
TEST_P(GemmShapes, RandomShapesAllOps) {
  const int per_pair = is_64() ? 2 : 5;
  int i = 0;
  for (cublasOperation_t ta : kOps)
    for (cublasOperation_t tb : kOps)
      for (int r = 0; r < per_pair; ++r, ++i) {
        const Gemm g = make(ta, tb, pick_size(), pick_size(), pick_size(), (i % 3) == 1, i);
        run(g);
        if (HasFailure()) return;  // one clear failure beats hundreds of echoes
      }
  RecordProperty("cases", cases_);
}

// Larger and ragged: several blocks in each direction, partial tiles at both edges. The last
// three are big enough for the heuristic to take each type's larger tiles (>= 132 blocks of
// 64x64, 64x32 or 128-wide tiles), so every catalogued tile runs somewhere.
TEST_P(GemmShapes, MultiBlockShapes) {
  const struct {
    std::int64_t m, n, k;
  } shapes[] = {{300, 200, 77}, {129, 515, 64}, {1000, 17, 129}, {17, 1000, 33},
                {257, 257, 257}, {600, 600, 13}, {705, 705, 9}, {1409, 1409, 17}};
  std::set<std::string> tiles;
  int i = 0;
  for (const auto& s : shapes) {
    const cublasOperation_t ta = kOps[i % 3], tb = kOps[(i / 3 + i) % 3];
    const Entry& e = entry_named(GetParam());
    const Gemm g = make(ta, tb, s.m, s.n, s.k, i % 2 == 0, i == 3 ? 1 : i);  // alpha != 0 throughout
    const CheckResult r = check_gemm(e, g, handle_->get(), rng_, {});
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    // "simt_s_nn_64x64x8_4x4_v4": the tile is the fourth and fifth '_'-separated fields.
    const auto p = r.kernel.find('_', r.kernel.find('_', r.kernel.find('_') + 1) + 1);
    if (p != std::string::npos) tiles.insert(r.kernel.substr(p + 1, r.kernel.find('_', p + 1) - p - 1));
    ++i;
  }
  // generator/tile_catalog.cpp: three tiles for f32, c32, f16 and bf16, two for f64 and c64.
  const Entry& e = entry_named(GetParam());
  const std::size_t catalogued = e.elem == Elem::F64 || e.elem == Elem::C64 ? 2 : 3;
  EXPECT_GE(tiles.size(), catalogued) << "the larger tiles never ran";
}

// C at most 16 (f32: 32) wide on one side with a long operand to stream: the dispatcher's narrow
// tiles (f32, f64, c64: "x16x" in a narrow N's kernel name, "_16x" in a narrow M's, K split;
// f32's 32-wide ones "x32x8" and "_32x256"), ragged edges and K not a multiple of the K-step,
// every op pair of the long operand's layouts. K is deep enough that even f32's 256-long blocks
// split to give every SM one (else no narrow plan).
TEST_P(GemmShapes, NarrowShapes) {
  const Entry& e = entry_named(GetParam());
  const bool narrow_tile = e.elem == Elem::F32 || e.elem == Elem::F64 || e.elem == Elem::C64;
  const struct {
    std::int64_t m, n, k;
  } shapes[] = {{2600, 13, 1701}, {1030, 16, 4099}, {9, 1500, 3903}, {16, 1777, 4001}, {1500, 29, 2003},
                {31, 1500, 2003}};
  int i = 0;
  for (const auto& s : shapes)
    for (cublasOperation_t ta : {CUBLAS_OP_N, CUBLAS_OP_T})
      for (cublasOperation_t tb : {CUBLAS_OP_N, CUBLAS_OP_T}) {
        const bool narrow_n = s.n <= s.m;
        const bool wide = std::min(s.m, s.n) > 16;
        // 17-32 wide: only f32 has a narrow plan there; the other types' float64 references of
        // these shapes would cost a GPU test shard ~30 s each and test nothing new.
        if (wide && e.elem != Elem::F32) continue;
        ++i;
        const Gemm g = make(ta, tb, s.m, s.n, s.k, i % 2 == 1, i % 3 == 0 ? 1 : i);  // alpha != 0
        // c64's mirrored tile is not legal (8-row warp tiles): narrow M runs the catalogue's; at
        // 17-32 only f32 has a narrow tile.
        const bool expect = narrow_tile && (narrow_n || e.elem != Elem::C64) && (!wide || e.elem == Elem::F32);
        const char* name = wide ? (narrow_n ? "x32x8" : "_32x256") : (narrow_n ? "x16x" : "_16x");
        run(g, {}, expect ? name : nullptr);
        if (HasFailure()) return;
      }
}

// C a little wider than the narrow tiles on one side, the other side and K long: f64's and c64's
// skinny tiles (plan_skinny: f64 33-64 wide "64x32x32" and 113-128 "128x64x32", c64 17-32
// "32x32x32", 33-64 "32x64x16", 65-96 "64x32x8" and 97-128 "64x64x8" in four stages, f64 81-96
// "64x32x16"; mirrored for a narrow M, every tile both ways), ragged edges, K not a multiple of
// the K-step and split in whole rounds, the long operand N and T; f64's 64x32x16 blocks with clamped
// edges ("_ce", dispatch's clamp_edges_fit: C ending mid-tile in N, NN, TN with A in vectors and a
// fused split), no other plan; f64's NT tile for 97-112 wide. Sizes near the plan's minimum
// (1024): c64's float64 reference of 1500x100x1100 took 10 s a case. Other types run their usual
// plans and are not asked here.
TEST_P(GemmShapes, SkinnyShapes) {
  const Entry& e = entry_named(GetParam());
  if (e.elem != Elem::F64 && e.elem != Elem::C64) GTEST_SKIP() << "no skinny tile for this type";
  const bool z = e.elem == Elem::C64;
  const struct {
    std::int64_t m, n, k;
    const char* tile;  // as the kernel name spells it
    bool clamped = false;
  } shapes[] = {{1030, z ? 53 : 50, 1025, z ? "32x64x16" : "64x32x32"},
                {z ? 41 : 45, 1031, 1029, z ? "64x32x16" : "32x64x32"},
                {1033, z ? 29 : 121, 1027, z ? "32x32x32" : "128x64x32"},
                {z ? 27 : 126, 1029, 1031, z ? "32x32x32" : "64x128x32"},
                {1035, z ? 101 : 61, 1033, z ? "64x64x8_64x16_s4" : "64x32x32"},
                {z ? 77 : 39, 1037, 1030, z ? "32x64x8_16x32_s4" : "32x64x32"},
                {1036, z ? 77 : 90, 1029, z ? "64x32x8_32x16_s4" : "64x32x16_16x32_s3", !z},
                {z ? 101 : 85, 1039, 1034, z ? "64x64x8_16x64_s4" : "32x64x16_32x16_s3"}};
  int i = 0;
  for (const auto& s : shapes)
    for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T}) {
      ++i;
      const bool narrow_n = s.n <= s.m;  // the long operand: A for a narrow N, B for a narrow M
      const Gemm g = make(narrow_n ? op : CUBLAS_OP_N, narrow_n ? CUBLAS_OP_N : op, s.m, s.n, s.k, i % 2 == 1,
                          i % 3 == 0 ? 1 : i);  // alpha != 0
      const std::string ran = run(g, {}, s.tile);
      auto has = [&](const char* part) { return ran.find(part) != std::string::npos; };
      EXPECT_EQ(has("_ce"), s.clamped && (has("_nn_") || (has("_vc") && has("_fs")))) << ran;
      if (HasFailure()) return;
    }
  if (z) return;
  // TN with A in 16-byte vectors (lda = K even, unpadded) and a fused split: clamped too.
  const std::string tn = run(make(CUBLAS_OP_T, CUBLAS_OP_N, 1036, 90, 1032, false, 2), {}, "tn_64x32x16_16x32_s3_vc");
  EXPECT_NE(tn.find("_ce_fs"), std::string::npos) << tn;
  // f64 NT 97-112 wide with N narrow: 64x64x16 of 32x32 warp tiles (plan_skinny's NT tile), split.
  run(make(CUBLAS_OP_N, CUBLAS_OP_T, 1030, 100, 1040, true, 2), {}, "nt_64x64x16_32x32_s3");
}

// K = 0 (C = beta C), m or n = 0 (nothing written), 1x1x1, alpha = 0, beta = 0 with NaN in C.
TEST_P(GemmShapes, EdgeCases) {
  run(make(CUBLAS_OP_N, CUBLAS_OP_N, 37, 11, 0, false, 1));  // K = 0, beta = 1
  run(make(CUBLAS_OP_T, CUBLAS_OP_N, 37, 11, 0, true, 0));   // K = 0, beta = 0: C becomes 0
  run(make(CUBLAS_OP_N, CUBLAS_OP_T, 0, 11, 5, false, 1));   // quick return
  run(make(CUBLAS_OP_N, CUBLAS_OP_N, 11, 0, 5, true, 2));
  run(make(CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, false, 2));
  run(make(CUBLAS_OP_C, CUBLAS_OP_T, 1, 1, 1, true, 0));
  run(make(CUBLAS_OP_T, CUBLAS_OP_C, 61, 59, 53, true, 3));  // alpha = 0: C = beta C
  Gemm g = make(CUBLAS_OP_N, CUBLAS_OP_N, 45, 23, 19, false, 0);
  g.alpha = {0, 0};  // alpha = 0 and beta = 0: exact zeros over NaN
  run(g);
}

// A K split of 4 forced onto a small tile of the entry's family (tensor cores where the type has
// them): the dispatcher's own pick splits only where its model or heuristic expects a gain, and
// these cases are about the split's arithmetic (beta once, the reduction, device scalars).
std::string forced_split(const Entry& e) {
  const bool mma = e.elem != Elem::F32 && e.elem != Elem::C32;
  return mma ? "mma 32 32 16 16 16 1 4 0 1" : "simt 32 32 8 2 2 1 4 0 1";
}

// Few tiles and deep K, split over blocks and reduced (kg > 1 in the kernel name).
TEST_P(GemmShapes, SplitK) {
  const ForcedTile split(forced_split(entry_named(GetParam())));
  ASSERT_TRUE(split.accepted());
  const struct {
    std::int64_t m, n, k;
  } shapes[] = {{32, 32, 3000}, {17, 5, 4099}, {64, 48, 2048}, {1, 1, 1000}};
  int i = 0;
  for (const auto& s : shapes) {
    const cublasOperation_t ta = kOps[i % 3], tb = kOps[(i + 1) % 3];
    const int scalars[] = {1, 2, 4, 5};  // all with alpha != 0: the split sum is observed
    run(make(ta, tb, s.m, s.n, s.k, i % 2 == 1, scalars[i]), {}, " kg=");
    ++i;
  }
}

// The same split with the handle's atomics allowed (cublasSetAtomicsMode): S, D, C, Z add the
// slices into C atomically (KernelConfig::atomic_add, "_at" in the kernel name) after C = beta C
// (beta = 0 over NaN, beta = 1 with no scaling, complex beta); the other types keep the reduction.
TEST_P(GemmShapes, AtomicSplitK) {
  const Entry& e = entry_named(GetParam());
  const ForcedTile split(forced_split(e));
  ASSERT_TRUE(split.accepted());
  ASSERT_EQ(cublasSetAtomicsMode(handle_->get(), CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
  const bool atomic = e.elem == Elem::F32 || e.elem == Elem::F64 || e.elem == Elem::C32 || e.elem == Elem::C64;
  const struct {
    std::int64_t m, n, k;
  } shapes[] = {{32, 32, 3000}, {17, 5, 4099}, {64, 48, 2048}, {1, 1, 1000}};
  int i = 0;
  for (const auto& s : shapes) {
    const cublasOperation_t ta = kOps[(i + 1) % 3], tb = kOps[i % 3];
    const int scalars[] = {0, 1, 2, 4};  // beta 0 (NaN C), 1, complex, 0 with alpha 2
    run(make(ta, tb, s.m, s.n, s.k, i % 2 == 0, scalars[i]), {}, atomic ? "_at kg=" : " kg=");
    ++i;
  }
}

// Scalars read from device memory (CUBLAS_POINTER_MODE_DEVICE), split-K included.
TEST_P(GemmShapes, DevicePointerMode) {
  CheckOptions opt;
  opt.device_scalars = true;
  run(make(CUBLAS_OP_N, CUBLAS_OP_T, 70, 45, 33, true, 2), opt);
  run(make(CUBLAS_OP_T, CUBLAS_OP_N, 13, 200, 7, false, 0), opt);
  {
    const ForcedTile split(forced_split(entry_named(GetParam())));
    ASSERT_TRUE(split.accepted());
    run(make(CUBLAS_OP_C, CUBLAS_OP_N, 16, 16, 2000, false, 1), opt, " kg=");
  }
  run(make(CUBLAS_OP_N, CUBLAS_OP_N, 20, 20, 0, false, 2), opt);  // K = 0 with device beta
}

// Z's 64x64x8 tile of 64x16 warp tiles in two register stages, forced: the launcher's late-fetch
// loop ("_lf", dispatch's late_fetch_fits: K or its slices at least 256 deep, no conjugated
// operand) against the reference, ragged and padded, beta zero or not, split; short K, a
// conjugated operand and shallow slices run the start-of-step fetch.
TEST(GemmShapesZ, PlanarSquaresFetchLateWhereKIsDeep) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0x1F7ull);
  const Entry& e = entry_named("Zgemm");
  const struct {
    cublasOperation_t ta, tb;
    std::int64_t m, n, k;
    int kg;
    bool late;
  } cases[] = {{CUBLAS_OP_N, CUBLAS_OP_N, 300, 290, 777, 1, true},  {CUBLAS_OP_T, CUBLAS_OP_N, 257, 131, 300, 1, true},
               {CUBLAS_OP_T, CUBLAS_OP_T, 190, 300, 256, 1, true},  {CUBLAS_OP_N, CUBLAS_OP_T, 130, 200, 255, 1, false},
               {CUBLAS_OP_C, CUBLAS_OP_N, 300, 200, 600, 1, false}, {CUBLAS_OP_N, CUBLAS_OP_C, 200, 300, 600, 1, false},
               {CUBLAS_OP_N, CUBLAS_OP_N, 200, 220, 40, 1, false},  {CUBLAS_OP_N, CUBLAS_OP_T, 260, 250, 2000, 3, true},
               {CUBLAS_OP_N, CUBLAS_OP_N, 260, 250, 600, 3, false}};
  int i = 0;
  for (const auto& c : cases) {
    const ForcedTile f("mma 64 64 8 64 16 1 " + std::to_string(c.kg) + " 0 2");
    ASSERT_TRUE(f.accepted());
    Gemm g{c.ta, c.tb, c.m, c.n, c.k, 0, 0, 0, kAlpha[i % 6 == 3 ? 1 : i % 6], kBeta[i % 6]};
    g.lda = leading_dim(a_rows(g), i % 2, rng);
    g.ldb = leading_dim(b_rows(g), i % 3 == 0, rng);
    g.ldc = leading_dim(c.m, i % 2 == 0, rng);
    ++i;
    const CheckResult r = check_gemm(e, g, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, g) << " -> " << r.kernel;
    EXPECT_NE(r.kernel.find("_64x64x8_64x16_s2"), std::string::npos) << describe(e, g) << " ran " << r.kernel;
    EXPECT_EQ(r.kernel.find("_lf") != std::string::npos, c.late) << describe(e, g) << " ran " << r.kernel;
    EXPECT_EQ(r.kernel.find(" kg=") != std::string::npos, c.kg > 1) << describe(e, g) << " ran " << r.kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(AllEntries, GemmShapes, ::testing::ValuesIn(entry_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gputest
