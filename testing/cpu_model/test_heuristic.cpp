// The heuristic's plans (dispatch/heuristic.cpp) on an H100-sized device: tiles from the catalog,
// K split to fill the SMs, and the deep-reduction rule (a large tile, more slices).
#include <gtest/gtest.h>

#include "gemm_call.hpp"
#include "tile_catalog.hpp"
#include "wgmma_plan.hpp"

namespace {

using ptxblas::dispatch::Plan;
using ptxblas::dispatch::plan_gemm;
namespace gen = ptxblas::gen;
constexpr int kSms = 132;

Plan plan(gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k) {
  return plan_gemm(t, false, gen::Op::N, gen::Op::T, m, n, k, kSms);
}

}  // namespace

TEST(Heuristic, LargeSquaresTakeTheFirstTileWithoutSplit) {
  for (gen::DataType t : {gen::DataType::F32, gen::DataType::F64, gen::DataType::C64, gen::DataType::F16}) {
    const Plan p = plan(t, 4096, 4096, 4096);
    EXPECT_EQ(p.config.ml, gen::tile_catalog(t).front().ml);
    EXPECT_EQ(p.config.nl, gen::tile_catalog(t).front().nl);
    EXPECT_EQ(p.kg, 1);
  }
}

TEST(Heuristic, DeepOnlyTilesWaitForDeepK) {
  // D's 64x128 tile serves K >= 1024 (perf notes §37); LAPACK's shallow updates and panels keep
  // 128x64 (§29: 64x128 cost them 10%).
  for (std::int64_t k : {1024, 4096}) {
    const Plan p = plan(gen::DataType::F64, 4096, 4096, k);
    EXPECT_EQ(p.config.ml, 64) << k;
    EXPECT_EQ(p.config.nl, 128) << k;
  }
  for (std::int64_t k : {32, 256, 1023}) {
    const Plan p = plan(gen::DataType::F64, 4096, 4096, k);
    EXPECT_EQ(p.config.ml, 128) << k;
    EXPECT_EQ(p.config.nl, 64) << k;
  }
}

TEST(Heuristic, DeepReductionOntoSmallCTakesALargeTile) {
  // 256 x 256 x 60000: C holds four 128x128 blocks; 2 blocks per SM come from K.
  const Plan s = plan(gen::DataType::F32, 256, 256, 60000);
  EXPECT_EQ(s.config.ml, 128);
  EXPECT_EQ(s.config.nl, 128);
  EXPECT_EQ(s.kg, 66);
  EXPECT_EQ(s.kchunk % s.config.u, 0);
  const Plan d = plan(gen::DataType::F64, 256, 256, 60000);
  EXPECT_EQ(d.config.ml * d.config.nl, 128 * 64);
  EXPECT_EQ(d.kg, 33);
}

TEST(Heuristic, DeepReductionOntoTinyCKeepsSmallTiles) {
  // 64 x 64 x 60000: no tile fits four times; the smallest tile, K split to four blocks per SM.
  const gen::Tile& last = gen::tile_catalog(gen::DataType::F32).back();
  const Plan p = plan(gen::DataType::F32, 64, 64, 60000);
  EXPECT_EQ(p.config.ml, last.ml);
  EXPECT_EQ(p.kg, 132);
}

TEST(Heuristic, SkinnyShapesSplitKButNotBelowTheMinimumSlice) {
  const Plan p = plan(gen::DataType::F64, 2560, 16, 2560);  // not deep: K < 16 max(M, N)
  EXPECT_EQ(p.config.ml, gen::tile_catalog(gen::DataType::F64).back().ml);
  EXPECT_GT(p.kg, 1);
  EXPECT_GE(p.kchunk, 128);
  EXPECT_EQ(plan(gen::DataType::F64, 64, 64, 100).kg, 1);  // K below two minimum slices
}

TEST(Heuristic, SimtTakesALargerTileThatKCanFill) {
  // 1024^3: 128x128 leaves 64 blocks, and slices of 128 fill the SMs (64x64 alone fills them);
  // 8 slices (512 blocks) would leave a second wave part-empty: 4 (the oracle's choice).
  const Plan s = plan(gen::DataType::F32, 1024, 1024, 1024);
  EXPECT_EQ(s.config.ml, 128);
  EXPECT_EQ(s.config.nl, 128);
  EXPECT_EQ(s.kg, 4);
  // 2560 x 64 x 2560: 64x64 (C fills it) in 13 slices (whole waves) rather than 32x32 blocks in 4.
  const Plan skinny = plan(gen::DataType::F32, 2560, 64, 2560);
  EXPECT_EQ(skinny.config.ml, 64);
  EXPECT_EQ(skinny.config.nl, 64);
  EXPECT_EQ(skinny.kg, 13);
  // 2560 x 16 x 2560: no larger tile is three quarters full; the smallest, split.
  EXPECT_EQ(plan(gen::DataType::F32, 2560, 16, 2560).config.nl, 32);
}

TEST(Heuristic, MmaDoesNotSplitAFullWaveOfBigBlocks) {
  const Plan d = plan(gen::DataType::F64, 1024, 1024, 1024);  // 256 blocks of 64x64
  EXPECT_EQ(d.config.ml, 64);
  EXPECT_EQ(d.kg, 1);
  EXPECT_EQ(plan(gen::DataType::F16, 2048, 2048, 2048).kg, 1);
  // 512^3: small 32x32 blocks fill the wave too and stay unsplit since their copies run
  // cp.async (perf notes §52: 2 slices 14.1 TFLOP/s, unsplit 16.8).
  EXPECT_EQ(plan(gen::DataType::F64, 512, 512, 512).kg, 1);
  // Deep K next to C: split even with a full wave.
  EXPECT_GT(plan(gen::DataType::F64, 1024, 1024, 8192).kg, 1);
}

TEST(Heuristic, SimtSplitsItsLargestTilesOnlyToFillOneWave) {
  // 128x128 S blocks, two per SM (perf notes §33): 512 x 4096 gives 128 of them; K splits to fill
  // the 264 slots once, in slices of at least 768, never into a second wave.
  auto nn = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return plan_gemm(gen::DataType::F32, false, gen::Op::N, gen::Op::N, m, n, k, kSms);
  };
  for (std::int64_t k : {512, 1024}) {
    const Plan p = nn(512, 4096, k);
    EXPECT_EQ(p.config.ml * p.config.nl, 128 * 128) << k;
    EXPECT_EQ(p.kg, 1) << k;
  }
  for (std::int64_t k : {1536, 4096}) {
    const Plan p = nn(512, 4096, k);
    EXPECT_EQ(p.config.ml * p.config.nl, 128 * 128) << k;
    EXPECT_EQ(p.kg, 2) << k;
  }
  EXPECT_EQ(nn(1024, 4096, 1024).kg, 1);  // 256 blocks: one wave already
  EXPECT_EQ(plan(gen::DataType::F32, 2048, 2048, 2048).kg, 1);
  // Not where the blocks leave a round of one per SM part-empty: 1024^3's 64 blocks keep their 4
  // slices (test above), 1536^3's 144 their 3 (unsplit ran 18% slower).
  EXPECT_EQ(plan(gen::DataType::F32, 1024, 1024, 1024).kg, 4);
  EXPECT_EQ(plan(gen::DataType::F32, 1536, 1536, 1536).kg, 3);
}

TEST(Heuristic, SlicesFillWholeWaves) {
  // Z 256 x 256 x 60000: 16 blocks of 64x64, two per SM; 17 slices (two blocks per SM wanted)
  // would be one wave of 264 and 8 blocks more.
  const Plan z = plan(gen::DataType::C64, 256, 256, 60000);
  EXPECT_EQ(z.config.ml * z.config.nl, 64 * 64);
  EXPECT_EQ(z.kg, 16);
}

TEST(Heuristic, WavesCountTheBlocksAsTheyRunAndKeepTheFewerSlices) {
  auto nn = [](gen::DataType t, std::int64_t n) {
    return plan_gemm(t, false, gen::Op::N, gen::Op::N, 2560, n, 2560, kSms);
  };
  // Z 2560 x 32 x 2560: 80 blocks of 32x32x16, two per SM as catalogued but three with the
  // cp.async stages they run with: 4 slices fill one wave of 396 (6 would spill past it; x1.25 on
  // the H100, perf notes §36). ica-64 likewise: 130 slices of 4 blocks are 520 > 396.
  for (std::int64_t n : {16, 32}) {
    const Plan z = nn(gen::DataType::C64, n);
    EXPECT_EQ(z.config.ml * z.config.nl, 32 * 32) << n;
    EXPECT_EQ(z.kg, 4) << n;
  }
  EXPECT_EQ(plan(gen::DataType::C64, 64, 64, 60000).kg, 99);
  // D's 32x32x16 blocks run five per SM lowered, four as catalogued: the fewer slices stay (more
  // lost up to 20% on these shapes).
  EXPECT_EQ(nn(gen::DataType::F64, 32).kg, 6);
  EXPECT_EQ(nn(gen::DataType::F64, 64).kg, 3);
  EXPECT_EQ(nn(gen::DataType::F64, 128).kg, 1);
}

TEST(Heuristic, WgmmaTakesAWaveFifteenSixteenthsFull) {
  // wgmma's 128x256 tile runs one block per SM: 2048^2 in 128 blocks on 132 SMs, unsplit, beat
  // 128x128 in 256 blocks by 14% on the H100 (perf notes §24); 1024^2 leaves 128x256 too few.
  auto wg = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return ptxblas::dispatch::plan_over_tiles(gen::wgmma_catalog(), gen::DataType::F16, false, gen::Op::N,
                                              gen::Op::T, m, n, k, kSms, 512);
  };
  for (std::int64_t s : {2048, 4096, 8192}) {
    const Plan p = wg(s, s, s);
    EXPECT_EQ(p.config.ml, 128) << s;
    EXPECT_EQ(p.config.nl, 256) << s;
    EXPECT_EQ(p.kg, 1) << s;
  }
  const Plan p = wg(1024, 1024, 1024);
  EXPECT_EQ(p.config.ml * p.config.nl, 64 * 128);
  EXPECT_EQ(p.config.family, gen::Family::Wgmma);
}

TEST(Heuristic, WgmmaSplitsOnlyDeepReductions) {
  // Slices at least 2048 deep, and no deep-reduction tile rule: the oracle's H picks (§25).
  auto wg = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return ptxblas::dispatch::plan_over_tiles(gen::wgmma_catalog(), gen::DataType::F16, false, gen::Op::N,
                                              gen::Op::N, m, n, k, kSms, 2048);
  };
  for (std::int64_t n : {16, 32, 64, 128}) EXPECT_EQ(wg(2560, n, 2560).kg, 1) << n;
  const Plan ica = wg(256, 256, 60000);  // 16 blocks of 64x64, two per SM: one wave of slices
  EXPECT_EQ(ica.config.ml * ica.config.nl, 64 * 64);
  EXPECT_EQ(ica.kg, 16);
  // A C of a few tiles on a deep K: slices down to 512 until the blocks give each SM one (§49).
  const Plan tiny = wg(64, 64, 60000);
  EXPECT_EQ(tiny.kg, 105);  // 117 slices of 512 wanted, rounded up to whole 64-deep K-steps: 576
  EXPECT_EQ(tiny.kchunk, 576);
  const Plan four = wg(128, 128, 60000);
  EXPECT_EQ(four.kg * 4, 132);
  EXPECT_EQ(wg(64, 64, 20000).kg, 35);  // 39 slices of 512 wanted, 576 deep
  EXPECT_EQ(wg(64, 64, 4096).kg, 2);    // 2048-deep slices while they are fewer than 8
}

TEST(Heuristic, WgmmaShallowKTakesSmallTwoStageBlocks) {
  // One K-step per block: 64x128 with 2 stages, several blocks per SM (perf notes §27).
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_b = gen::Op::T;
  call.m = call.n = 4096;
  call.k = 32;
  Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
  EXPECT_EQ(p.config.ml, 64);
  EXPECT_EQ(p.config.nl, 128);
  EXPECT_EQ(p.config.stages, 2);
  EXPECT_EQ(p.kg, 1);
  call.k = 65;
  p = ptxblas::dispatch::plan_wgmma(call, kSms);
  EXPECT_EQ(p.config.ml * p.config.nl, 128 * 256);
}
