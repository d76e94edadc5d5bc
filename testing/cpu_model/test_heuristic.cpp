// The heuristic's plans (dispatch/heuristic.cpp) on an H100-sized device: tiles from the catalog,
// K split to fill the SMs, the deep-reduction rule (a large tile, more slices) and narrow C's own
// tiles.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>

#include "gemm_call.hpp"
#include "tile_catalog.hpp"
#include "wgmma_plan.hpp"
#include "wgmma_waves.hpp"

namespace {

using ptxblas::dispatch::Plan;
using ptxblas::dispatch::plan_gemm;
namespace gen = ptxblas::gen;
constexpr int kSms = 132;

Plan plan(gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k) {
  return plan_gemm(t, false, gen::Op::N, gen::Op::T, m, n, k, kSms);
}

// `call` at m x n x k runs the wgmma block ml x nl with `stages` stages in one slice; `row` is
// {m, n, k, ml, nl, stages}.
void expect_unsplit_wgmma(ptxblas::dispatch::GemmCall call, const std::array<std::int64_t, 6>& row) {
  const auto& [m, n, k, ml, nl, stages] = row;
  call.m = m, call.n = n, call.k = k;
  const Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                            (call.op_b == gen::Op::N ? "" : " B^T");
  EXPECT_EQ(p.config.ml, ml) << shape;
  EXPECT_EQ(p.config.nl, nl) << shape;
  EXPECT_EQ(p.config.stages, stages) << shape;
  EXPECT_EQ(p.kg, 1) << shape;
}

// `call` at m x n x k runs the catalogue's plan (slices at least 2048 deep, kWgmmaMinSliceK);
// returns it.
Plan expect_catalogue_wgmma(ptxblas::dispatch::GemmCall call, std::int64_t m, std::int64_t n, std::int64_t k) {
  call.m = m, call.n = n, call.k = k;
  const Plan catalogue = ptxblas::dispatch::plan_over_tiles(gen::wgmma_catalog(), call.data, false, call.op_a,
                                                            call.op_b, m, n, k, kSms, 2048);
  const Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  EXPECT_EQ(p.config.ml, catalogue.config.ml) << shape;
  EXPECT_EQ(p.config.nl, catalogue.config.nl) << shape;
  EXPECT_EQ(p.kg, catalogue.kg) << shape;
  return p;
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
  const Plan p = plan(gen::DataType::F64, 2560, 32, 2560);  // not deep: K < 16 max(M, N)
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
  // 2560 x 24 x 2560 (not narrow enough for the narrow tile): no larger tile is three quarters
  // full; the smallest, split.
  EXPECT_EQ(plan(gen::DataType::F32, 2560, 24, 2560).config.nl, 32);
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
  // The catalogue's tiles, as plan_gemm gives them where no narrow or skinny plan applies (its
  // K slices at least 128 deep); these widths now take the skinny plans (§94).
  auto nn = [](gen::DataType t, std::int64_t n) {
    return ptxblas::dispatch::plan_over_tiles(gen::tile_catalog(t), t, false, gen::Op::N, gen::Op::N, 2560, n, 2560,
                                              kSms, 128);
  };
  // Z 2560 x 32 x 2560: 80 blocks of 32x32x16, two per SM as catalogued but three with the
  // cp.async stages they run with: 4 slices fill one wave of 396 (6 would spill past it; x1.25 on
  // the H100, perf notes §36). ica-64 likewise: 130 slices of 4 blocks are 520 > 396.
  for (std::int64_t n : {24, 32}) {  // (a C 16 wide takes the narrow tile)
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

TEST(KSets, F64SmallWarpTilesSplitInHalfTheSlices) {
  // D's 32x32 blocks of 16x16 warp tiles where K splits: a 32-deep K-step in four accumulator
  // sets, half the slices (perf notes §92); not unsplit or in fewer than 4 slices (halved, they
  // would leave too few blocks), nor other tiles or types.
  using ptxblas::dispatch::with_k_sets;
  auto sets = [](gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k) {
    return with_k_sets(plan(t, m, n, k), m, n, k);
  };
  const Plan deepbench = sets(gen::DataType::F64, 2560, 32, 2560);
  EXPECT_EQ(deepbench.config.ml * deepbench.config.nl, 32 * 32);
  EXPECT_EQ(deepbench.config.u, 32);
  EXPECT_EQ(deepbench.config.ks, 4);
  EXPECT_EQ(deepbench.kg, 3);
  EXPECT_EQ(deepbench.kchunk % 32, 0);
  EXPECT_GE(deepbench.kchunk * deepbench.kg, 2560);
  const Plan ica = sets(gen::DataType::F64, 32, 32, 60000);
  EXPECT_EQ(ica.config.ks, 4);
  EXPECT_EQ(ica.kg, 125);
  const Plan unsplit = sets(gen::DataType::F64, 512, 512, 512);
  EXPECT_EQ(unsplit.kg, 1);
  EXPECT_EQ(unsplit.config.ks, 1);
  const Plan three = sets(gen::DataType::F64, 32, 32, 400);
  EXPECT_EQ(three.kg, 3);
  EXPECT_EQ(three.config.ks, 1);
  EXPECT_EQ(sets(gen::DataType::C64, 32, 32, 60000).config.ks, 1);
  EXPECT_EQ(sets(gen::DataType::F64, 2560, 128, 2560).config.ks, 1);
  // The heuristic's own plan stays as the model knows it (the K sets come after the choice).
  EXPECT_EQ(plan(gen::DataType::F64, 2560, 32, 2560).config.ks, 1);
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

TEST(Heuristic, WgmmaNarrowStreamingCallsTakeBlocks128LongAnd64Wide) {
  // GEMV-like calls (perf notes §107): a narrow N in 128x64 blocks of two 64x64 warpgroups, a
  // narrow M in 64x128 blocks, K split as for the catalogue.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::BF16;
  call.op_a = gen::Op::T;
  call.m = 8192, call.n = 1, call.k = 8192;
  Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
  EXPECT_EQ(p.config.family, gen::Family::Wgmma);
  EXPECT_EQ(p.config.ml, 128);
  EXPECT_EQ(p.config.nl, 64);
  EXPECT_EQ(p.config.ms, 64);
  EXPECT_EQ(p.config.ns, 64);
  EXPECT_EQ(p.config.stages, 6);
  EXPECT_EQ(p.kg, 2);  // 64 blocks in two slices (the probe's best, §107)
  EXPECT_TRUE(gen::why_illegal(p.config).empty()) << gen::why_illegal(p.config);
  call.m = 16, call.n = 8192, call.k = 4096;
  p = ptxblas::dispatch::plan_wgmma(call, kSms);
  EXPECT_EQ(p.config.ml, 64);
  EXPECT_EQ(p.config.nl, 128);
  EXPECT_EQ(p.config.stages, 4);
  EXPECT_EQ(p.kg, 2);
  // deepbench's 2560 x 16 x 2560 streams too little for it: the catalogue's 64x64 as before.
  call.m = 2560, call.n = 16, call.k = 2560;
  p = ptxblas::dispatch::plan_wgmma(call, kSms);
  EXPECT_EQ(p.config.ml * p.config.nl, 64 * 64);
}

TEST(Heuristic, WgmmaNarrowCallsUpTo64WideRunUnsplit) {
  // 17-64 wide (perf notes §109, §111, §124): one slice where K is no longer than the long side,
  // in the narrow blocks from a long side of 8192, in 64x64 s6 below it; a narrow N of a long side
  // of 8192 or more in 128x64 s6 unsplit at any K; otherwise the catalogue.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  auto plan = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    call.m = m, call.n = n, call.k = k;
    return ptxblas::dispatch::plan_wgmma(call, kSms);
  };
  // m, n, k, then the block's ml, nl and stages: 128x64 s6 for a narrow N, 64x128 s4 for a narrow
  // M, 64x64 s6 for a long side of 4096-8191.
  const std::array<std::int64_t, 6> taken[] = {
      {8192, 17, 8192, 128, 64, 6}, {8192, 32, 2048, 128, 64, 6}, {14336, 64, 4096, 128, 64, 6},
      {24, 14336, 4096, 64, 128, 4}, {64, 16384, 4096, 64, 128, 4}, {48, 8192, 8192, 64, 128, 4},
      {4096, 48, 4096, 64, 64, 6},   {8191, 32, 4096, 64, 64, 6},  {6144, 32, 6144, 64, 64, 6},
      {32, 4096, 4096, 64, 64, 6},   {40, 5120, 5120, 64, 64, 6},  {4096, 64, 4096, 64, 64, 6},
      {8192, 32, 16384, 128, 64, 6}, {8192, 64, 8193, 128, 64, 6}, {16384, 17, 200000, 128, 64, 6}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // Too deep a K below a long side of 8192 or for a narrow M, or too little streamed: the
  // catalogue's plan.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{8191, 32, 16384},
                         {32, 8192, 16384},
                         {64, 8192, 8193},
                         {4096, 32, 4097},
                         {4096, 32, 4095},
                         {16384, 32, 512}})
    expect_catalogue_wgmma(call, m, n, k);
  EXPECT_GT(plan(4096, 32, 4097).kg, 1);  // the bounds are tight: just outside, a split
  EXPECT_EQ(plan(4096, 65, 4096).config.nl, 128);  // 65 wide: §112's blocks 128 wide
}

TEST(Heuristic, WgmmaCallsUpTo128WideRunUnsplitWithTheNarrowSideInOneBlock) {
  // 65-128 wide (perf notes §112, §114): one slice where K is no longer than the long side, in
  // blocks 128 wide on the narrow side: 128x128 s6 for a narrow N up to 96 wide of a long side of
  // 8192 or more; otherwise below K = 8192 64x128 s4 (narrow N) or 128x64 s6 (narrow M), from it
  // 64x128 s6, but 128x128 s6 for a narrow N with B N-contiguous and from a long side of 12288.
  // Beyond that, the catalogue.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::BF16;
  call.op_a = gen::Op::T;
  // m, n, k, then the block's ml, nl and stages.
  const std::array<std::int64_t, 6> taken[] = {
      {4096, 65, 4096, 64, 128, 4},    {6144, 100, 6144, 64, 128, 4},   {8192, 128, 4096, 64, 128, 4},
      {8191, 96, 4096, 64, 128, 4},    {96, 8192, 4096, 128, 64, 6},    {128, 4096, 4096, 128, 64, 6},
      {96, 8192, 8191, 128, 64, 6},    {8192, 97, 8191, 64, 128, 4},    {8192, 96, 4096, 128, 128, 6},
      {14336, 72, 4096, 128, 128, 6},  {8192, 65, 8192, 128, 128, 6},   {16384, 96, 8192, 128, 128, 6},
      {8192, 97, 8192, 64, 128, 6},    {12287, 128, 8192, 64, 128, 6},  {96, 8192, 8192, 64, 128, 6},
      {128, 12287, 8192, 64, 128, 6},  {12288, 128, 12288, 128, 128, 6}, {65, 12288, 8192, 128, 128, 6}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // B N-contiguous, from K = 8192: 128x128 s6 for a narrow N, and for a narrow M from a long side
  // of 12288; below K = 8192, as above.
  call.op_b = gen::Op::T;
  const std::array<std::int64_t, 6> taken_b_t[] = {
      {8192, 97, 8192, 128, 128, 6},  {12287, 128, 8192, 128, 128, 6}, {96, 8192, 8192, 64, 128, 6},
      {128, 12287, 8192, 64, 128, 6}, {128, 12288, 12288, 128, 128, 6}, {96, 8192, 8191, 128, 64, 6},
      {8192, 97, 8191, 64, 128, 4},   {8192, 96, 4096, 128, 128, 6}};
  for (const auto& row : taken_b_t) expect_unsplit_wgmma(call, row);
  call.op_b = gen::Op::N;
  // 385 wide on a grid too small for §118's 128x256 (64 blocks), K beyond the long side on a grid
  // too small for §122's, too little streamed: the catalogue's plan (129-512 wide: the next
  // tests').
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{4096, 385, 4096},
                         {4096, 96, 4097},
                         {4096, 96, 4095},
                         {257, 8192, 8192}}) {
    const Plan p = expect_catalogue_wgmma(call, m, n, k);
    if (n == 96 && k != 4095) {
      EXPECT_GT(p.kg, 1) << m << "x" << n << "x" << k;  // just outside, a split
    }
  }
}

TEST(Heuristic, Wgmma129To256WideRunsUnsplitInTheLargestBlockThatFillsTheSms) {
  // 129-256 wide (perf notes §115, §116): one slice, in the largest block whose grid has 0.7 of a
  // block per SM (93 blocks of 132 SMs). A narrow N up to 192: 128x192 s5, else 64x192 s6.
  // Wider, or a narrow M 193-256: 128x256 s4 while its grid is at most one wave, 128x128 s6, then
  // 128x64 s6 (narrow N) or 64x128 s6 (narrow M). (A narrow M 129-191: §121's wave model.)
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_b = gen::Op::T;
  // m, n, k, then the block's ml, nl and stages.
  const std::array<std::int64_t, 6> taken[] = {
      // narrow N 129-192
      {4096, 129, 4096, 64, 192, 6},    {11776, 192, 4096, 64, 192, 6},   {11777, 192, 4096, 128, 192, 5},
      {16384, 136, 4096, 128, 192, 5},  {32768, 160, 4096, 128, 192, 5},
      // narrow N 193-256
      {4096, 256, 4096, 128, 64, 6},    {5888, 200, 5888, 128, 64, 6},    {5889, 193, 5889, 128, 128, 6},
      {8192, 256, 8192, 128, 128, 6},   {11776, 200, 4096, 128, 128, 6},  {11777, 200, 4096, 128, 256, 4},
      {16896, 256, 16896, 128, 256, 4}, {12288, 256, 12288, 128, 256, 4},
      // narrow M 193-256
      {256, 5888, 5888, 64, 128, 6},    {256, 8192, 8192, 128, 128, 6},   {200, 11776, 4096, 128, 128, 6},
      {200, 11777, 4096, 128, 256, 4},  {224, 16384, 8192, 128, 256, 4},  {240, 12288, 12288, 128, 256, 4}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // 16896 x 256 above is one wave of 128x256 (132 blocks): unsplit even at K = its long side,
  // where the catalogue would split it. Past one wave (133 blocks): the catalogue's plan, K split
  // where deep enough; a narrow M 257 wide, K beyond the long side, too little streamed: the
  // catalogue's plan.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{16897, 200, 8192},
                         {20480, 200, 8192},
                         {200, 20480, 8192},
                         {257, 8192, 8192},
                         {4096, 200, 4095}}) {
    const Plan p = expect_catalogue_wgmma(call, m, n, k);
    if (k == 8192 && m != 257) {
      EXPECT_EQ(p.config.nl, 256) << m << "x" << n << "x" << k;
      EXPECT_GT(p.kg, 1) << m << "x" << n << "x" << k;
    }
  }
}

TEST(Heuristic, WgmmaNarrowMOf192AndNarrowN257To384TakeBlocks192Wide) {
  // perf notes §117: a narrow M of 192 in one 192-row block, 192x128 s5 or 192x64 s6, whichever
  // is the largest whose grid has 0.7 of a block per SM (neither, or a ragged M: §116's plan); a
  // narrow N 257-384 in two 128x192 s5 blocks; one slice.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::BF16;
  call.op_a = gen::Op::T;
  const std::array<std::int64_t, 6> taken[] = {
      {192, 8192, 8192, 192, 64, 6},    {192, 11777, 4096, 192, 128, 5},  {192, 11776, 4096, 192, 64, 6},
      {192, 5889, 5889, 192, 64, 6},    {192, 5888, 5888, 64, 128, 6},    {8192, 257, 8192, 128, 192, 5},
      {20480, 384, 4096, 128, 192, 5},  {4096, 300, 4096, 128, 192, 5}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // A narrow M 257-287 (288-384: §119), too little streamed: the catalogue's.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{280, 8192, 8192}, {4096, 300, 4095}})
    expect_catalogue_wgmma(call, m, n, k);
}

TEST(Heuristic, Wgmma385To512WideRunsUnsplitIn128x256WhereItsGridIsOneWave) {
  // perf notes §118: 385-512 wide either way, 128x256 s4 in one slice where its grid is 0.7-1 wave
  // of 132 SMs (93-132 blocks); otherwise the catalogue's plan.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_a = gen::Op::T;
  const std::array<std::int64_t, 6> taken[] = {
      {8192, 385, 8192, 128, 256, 4}, {400, 8192, 8192, 128, 256, 4}, {5889, 512, 5889, 128, 256, 4},
      {512, 8448, 4096, 128, 256, 4}, {6144, 448, 6144, 128, 256, 4}, {8448, 512, 8448, 128, 256, 4}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // A grid of 92 or 133 blocks, too little streamed.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{5888, 512, 5888},
                         {8449, 512, 8192},
                         {512, 8449, 8192},
                         {4096, 400, 4095}})
    expect_catalogue_wgmma(call, m, n, k);
}

TEST(Heuristic, WgmmaNarrowM288To384RunsUnsplitIn192RowBlocks) {
  // perf notes §119: a narrow M 288-384 in 192x128 s5, one slice, where that grid has 0.7 of a
  // block per SM (93 blocks of 132 SMs); a narrower M, a smaller grid: the catalogue's plan.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_b = gen::Op::T;
  const std::array<std::int64_t, 6> taken[] = {{384, 8192, 8192, 192, 128, 5},
                                                {288, 6144, 6144, 192, 128, 5},
                                                {300, 5889, 5889, 192, 128, 5},
                                                {336, 16384, 4096, 192, 128, 5}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{287, 8192, 8192},
                         {264, 16384, 8192},
                         {384, 5888, 5888},
                         {385, 5888, 5888},
                         {384, 6144, 2730}})
    expect_catalogue_wgmma(call, m, n, k);
}

TEST(Heuristic, NarrowCTakesTheTypesNarrowTile) {
  // deepbench's 2560 x 16 x 2560 (perf notes §70): 16 wide on the narrow side, the long side in
  // the narrow tile's blocks, K split until each SM has ~48 KiB of the long operand in flight.
  struct Case {
    gen::DataType t;
    gen::Op a;
    int ml, u, stages, kg;
  };
  // f32 256x16x8 with three stages: 8 KiB a stage, two in flight, three blocks per SM: 396 / 10
  // blocks = 39 slices (at most K / 64 = 40), 36 as whole K-steps (ceil(2560 / 39) -> 72);
  // K-contiguous A: 128x16, 32 deep through registers, 16 KiB in flight, three per SM: 396 / 20 =
  // 19 slices, 16 as whole K-steps (ceil(2560 / 19) -> 160).
  // f64 64x16x32, three of four stages in flight (48 KiB): one block per SM, 132 / 40 = 3.
  // c64 32x16x16: 8 KiB a stage, two in flight, three per SM: 396 / 80 = 4.
  for (const Case& c : {Case{gen::DataType::F32, gen::Op::N, 256, 8, 3, 36},
                        Case{gen::DataType::F32, gen::Op::T, 128, 32, 1, 16},
                        Case{gen::DataType::F64, gen::Op::N, 64, 32, 4, 3},
                        Case{gen::DataType::C64, gen::Op::N, 32, 16, 3, 4}}) {
    const Plan p = plan_gemm(c.t, false, c.a, gen::Op::N, 2560, 16, 2560, kSms);
    EXPECT_EQ(p.config.nl, 16) << gen::kernel_name(p.config);
    EXPECT_EQ(p.config.ml, c.ml) << gen::kernel_name(p.config);
    EXPECT_EQ(p.config.u, c.u) << gen::kernel_name(p.config);
    EXPECT_EQ(p.config.stages, c.stages) << gen::kernel_name(p.config);
    EXPECT_EQ(p.kg, c.kg) << gen::kernel_name(p.config);
    EXPECT_EQ(p.kchunk % p.config.u, 0);
  }
  // 8192 x 16 x 8192: f64's 128 blocks fill the SMs once, unsplit (the memory floor, §70).
  EXPECT_EQ(plan_gemm(gen::DataType::F64, false, gen::Op::N, gen::Op::N, 8192, 16, 8192, kSms).kg, 1);
}

TEST(Heuristic, NarrowCUpTo32TakesF32sWideNarrowTile) {
  // 2560 x 32 x 2560 (§71): f32 256x32x8, four cp.async stages from an M-contiguous A (24 KiB in
  // flight, two blocks per SM: 264 / 10 = 26 slices, 25 as whole K-steps), through registers from
  // a K-contiguous one (8 KiB, three per SM by registers: 396 / 10 = 39 slices, 36 as whole
  // K-steps).
  const Plan nn = plan_gemm(gen::DataType::F32, false, gen::Op::N, gen::Op::N, 2560, 32, 2560, kSms);
  EXPECT_EQ(nn.config.ml, 256);
  EXPECT_EQ(nn.config.nl, 32);
  EXPECT_EQ(nn.config.stages, 4);
  EXPECT_EQ(nn.kg, 25);
  const Plan tn = plan_gemm(gen::DataType::F32, false, gen::Op::T, gen::Op::N, 2560, 32, 2560, kSms);
  EXPECT_EQ(tn.config.ml, 256);
  EXPECT_EQ(tn.config.stages, 1);
  EXPECT_EQ(tn.kg, 36);
  // The other types keep the catalogue's 32-wide tiles there.
  for (gen::DataType t : {gen::DataType::F64, gen::DataType::C64, gen::DataType::C32})
    EXPECT_FALSE(ptxblas::dispatch::plan_narrow(t, false, gen::Op::N, gen::Op::N, 2560, 32, 2560, kSms));
}

TEST(Heuristic, NarrowMTakesTheMirroredTile) {
  // 16 x 8192 x 8192, op(B) K-contiguous: f32's K-contiguous tile with rows and columns swapped.
  const Plan s = plan_gemm(gen::DataType::F32, false, gen::Op::T, gen::Op::N, 16, 8192, 8192, kSms);
  EXPECT_EQ(s.config.ml, 16);
  EXPECT_EQ(s.config.nl, 128);
  EXPECT_EQ(s.config.ms, 4);
  EXPECT_EQ(s.config.u, 32);
  const Plan d = plan_gemm(gen::DataType::F64, false, gen::Op::N, gen::Op::T, 16, 8192, 8192, kSms);
  EXPECT_EQ(d.config.ml, 16);
  EXPECT_EQ(d.config.nl, 64);
  // c64's 32x8 warp tile has no legal mirror (8-row warp tiles): the catalogue's plan instead.
  EXPECT_NE(plan_gemm(gen::DataType::C64, false, gen::Op::N, gen::Op::N, 16, 2560, 2560, kSms).config.ml, 16);
}

TEST(Heuristic, NarrowTilesOnlyWhereTheLongOperandIsLarge) {
  for (gen::DataType t : {gen::DataType::F32, gen::DataType::F64, gen::DataType::C64}) {
    // Short long side, shallow K, or a long operand below 2^20 elements: the catalogue's plan.
    for (const auto& [m, n, k] : {std::tuple<int, int, int>{256, 16, 8192}, {8192, 16, 128}, {1024, 16, 512},
                                  {2560, 33, 2560}}) {
      const Plan p = plan_gemm(t, false, gen::Op::N, gen::Op::N, m, n, k, kSms);
      EXPECT_FALSE(ptxblas::dispatch::plan_narrow(t, false, gen::Op::N, gen::Op::N, m, n, k, kSms).has_value())
          << m << "x" << n << "x" << k;
      EXPECT_GT(p.config.nl, 16) << m << "x" << n << "x" << k;
    }
  }
  // Blocks that K cannot split to give every SM one: f32 4096 x 8 x 512, 16 blocks of 256x16 in
  // at most 4 slices (0.86 of the catalogue's plan on the H100, perf notes §70).
  EXPECT_FALSE(ptxblas::dispatch::plan_narrow(gen::DataType::F32, false, gen::Op::N, gen::Op::N, 4096, 8, 512, kSms));
  EXPECT_TRUE(ptxblas::dispatch::plan_narrow(gen::DataType::F64, false, gen::Op::T, gen::Op::N, 20000, 4, 300, kSms));
  // Types without a narrow tile (f16: wgmma's tiles; c32: not measured).
  EXPECT_FALSE(ptxblas::dispatch::plan_narrow(gen::DataType::F16, false, gen::Op::N, gen::Op::N, 2560, 16, 2560, kSms));
  EXPECT_FALSE(ptxblas::dispatch::plan_narrow(gen::DataType::C32, false, gen::Op::N, gen::Op::N, 2560, 16, 2560, kSms));
}

// Big blocks split so that they overrun the SMs by a part-round move to the cheapest split
// (rounds x (steps per slice + fill), perf notes §76); balanced splits and small blocks keep theirs.
TEST(BalancedSplit, BigBlocksOverrunningTheSmsByAPartRoundMove) {
  using ptxblas::dispatch::balanced_split;
  using ptxblas::dispatch::plan_from_tile;
  const gen::Tile big{128, 128, 8, 4, 32, 4, gen::Family::Simt, false, 3};
  auto split = [&](std::int64_t m, std::int64_t n, std::int64_t k, int kg) {
    return balanced_split(plan_from_tile(gen::DataType::F32, false, gen::Op::T, gen::Op::N, m, n, k, big, kg), m, n,
                          k, kSms);
  };
  // 20 tiles: 8 slices (160 blocks, a second round of 28) -> 6 (120 blocks, one round).
  const Plan p = split(2560, 128, 2560, 8);
  EXPECT_EQ(p.kg, 6);
  EXPECT_EQ(p.kchunk % p.config.u, 0);
  EXPECT_GE(p.kchunk * p.kg, 2560);
  EXPECT_EQ(split(2560, 128, 2560, 7).kg, 6);
  EXPECT_EQ(split(2560, 128, 2560, 6).kg, 6);    // one round, 91% full
  EXPECT_EQ(split(2560, 128, 2560, 13).kg, 13);  // two rounds, 98% full
  EXPECT_EQ(split(256, 256, 60000, 66).kg, 66);  // 4 tiles x 66: exactly two rounds
  EXPECT_EQ(split(2560, 128, 2560, 1).kg, 1);    // no split: nothing to move
  // Small blocks (many per SM) keep the model's or the heuristic's split.
  const gen::Tile small{32, 32, 16, 16, 16, 1, gen::Family::Mma, false, 3};
  const Plan d = plan_from_tile(gen::DataType::F64, false, gen::Op::T, gen::Op::N, 2560, 64, 2560, small, 3);
  EXPECT_EQ(balanced_split(d, 2560, 64, 2560, kSms).kg, 3);
}

// The share of their waves' slots a grid's blocks fill (plan_skinny's fallback, the wide f32 tile).
TEST(WaveFill, BlocksOverTheSlotsOfTheirWaves) {
  using ptxblas::dispatch::wave_fill;
  EXPECT_DOUBLE_EQ(wave_fill(240, 264), 240.0 / 264.0);
  EXPECT_DOUBLE_EQ(wave_fill(264, 264), 1.0);
  EXPECT_DOUBLE_EQ(wave_fill(265, 264), 265.0 / 528.0);  // a second wave, one block in it
  EXPECT_DOUBLE_EQ(wave_fill(0, 264), 1.0);              // nothing to fill: no part-empty wave
}

// f32 splits of a deep reduction past one wave of slots take the most slices within it, where they
// fill at least 0.93 of it (perf notes §145); other splits and types keep theirs.
TEST(DeepSplitWaves, DeepF32SplitsFillOneWave) {
  using ptxblas::dispatch::blocks_per_sm;
  using ptxblas::dispatch::deep_split_waves;
  using ptxblas::dispatch::plan_from_tile;
  const gen::Tile t128x64{128, 64, 8, 8, 8, 4, gen::Family::Simt, false, 4};
  const gen::Tile t128{128, 128, 8, 8, 8, 4, gen::Family::Simt, false, 3};
  auto deep = [&](const gen::Tile& t, gen::Op a, gen::Op b, std::int64_t m, std::int64_t n, std::int64_t k, int kg) {
    return deep_split_waves(plan_from_tile(gen::DataType::F32, false, a, b, m, n, k, t, kg), m, n, k, kSms);
  };
  const gen::Op N = gen::Op::N, T = gen::Op::T;
  ASSERT_EQ(blocks_per_sm(plan_from_tile(gen::DataType::F32, false, N, T, 256, 256, 60000, t128x64, 128).config), 3);
  ASSERT_EQ(blocks_per_sm(plan_from_tile(gen::DataType::F32, false, N, T, 512, 512, 20000, t128, 33).config), 2);
  // ica-256: 8 tiles x 128 slices (1024 blocks) -> 49 (392 of 396 slots).
  const Plan ica = deep(t128x64, N, T, 256, 256, 60000, 128);
  EXPECT_EQ(ica.kg, 49);
  EXPECT_EQ(ica.kchunk % ica.config.u, 0);
  EXPECT_GE(ica.kchunk * ica.kg, 60000);
  EXPECT_LT(ica.kchunk * (ica.kg - 1), 60000);
  EXPECT_EQ(deep(t128, N, T, 512, 512, 20000, 33).kg, 16);  // 16 tiles: 256 of 264 slots
  EXPECT_EQ(deep(t128, T, N, 384, 384, 30000, 58).kg, 29);  // 9 tiles: 261; TN too
  EXPECT_EQ(deep(t128, N, T, 640, 640, 16384, 21).kg, 10);  // 25 tiles: 250, 0.947 full
  // 88 tiles of 1000 x 700: 4 slices fill 352 of 396 slots (0.89): the plan's 32 stay.
  EXPECT_EQ(deep(t128x64, N, N, 1000, 700, 25000, 32).kg, 32);
  EXPECT_EQ(deep(t128, N, T, 256, 256, 60000, 66).kg, 66);  // one wave already
  EXPECT_EQ(deep(t128, N, T, 256, 256, 60000, 1).kg, 1);    // unsplit
  EXPECT_EQ(deep(t128, N, T, 1024, 1024, 1024, 8).kg, 8);   // K not 16 x M: not a deep reduction
  EXPECT_EQ(deep(t128, N, T, 1024, 1024, 16384, 8).kg, 4);  // K exactly 16 x M: one
  const gen::Tile d{64, 64, 16, 32, 32, 1, gen::Family::Mma, false, 3};
  const Plan dp = plan_from_tile(gen::DataType::F64, false, N, T, 512, 512, 20000, d, 33);
  EXPECT_EQ(deep_split_waves(dp, 512, 512, 20000, kSms).kg, 33);  // f64 below 64 x 128: not this rule's
  Plan empty = plan_from_tile(gen::DataType::F32, false, N, T, 512, 512, 20000, t128, 33);
  EXPECT_EQ(deep_split_waves(empty, 0, 512, 20000, kSms).kg, 33);  // no tiles: nothing to divide by
  const gen::Tile z{64, 128, 8, 64, 32, 1, gen::Family::Mma, false, 4};
  const Plan zp = plan_from_tile(gen::DataType::C64, false, N, T, 384, 384, 30000, z, 32);
  EXPECT_EQ(deep_split_waves(zp, 384, 384, 30000, kSms).kg, 32);  // c64: gained nothing, keeps its split
}

// f64 mma splits on 64 x 128 blocks either way take the one-wave rule too (perf notes §147).
TEST(DeepSplitWaves, DeepF64SplitsOn64x128FillOneWave) {
  using ptxblas::dispatch::blocks_per_sm;
  using ptxblas::dispatch::deep_split_waves;
  using ptxblas::dispatch::plan_from_tile;
  const gen::Tile nt{64, 128, 8, 64, 32, 1, gen::Family::Mma, false, 4};
  const gen::Tile nn{128, 64, 8, 64, 32, 1, gen::Family::Mma, false, 4};
  const gen::Op N = gen::Op::N, T = gen::Op::T;
  auto deep = [&](const gen::Tile& t, gen::Op a, gen::Op b, std::int64_t m, std::int64_t n, std::int64_t k, int kg) {
    const Plan p = plan_from_tile(gen::DataType::F64, false, a, b, m, n, k, t, kg);
    EXPECT_TRUE(gen::why_illegal(p.config).empty()) << gen::why_illegal(p.config);
    EXPECT_EQ(blocks_per_sm(p.config), 2);
    return deep_split_waves(p, m, n, k, kSms);
  };
  EXPECT_EQ(deep(nt, N, T, 384, 384, 30000, 32).kg, 14);   // 18 tiles: 252 of 264 slots
  EXPECT_EQ(deep(nn, N, N, 384, 384, 24000, 32).kg, 14);   // and NN's 128 x 64
  EXPECT_EQ(deep(nt, N, T, 640, 640, 16384, 16).kg, 5);    // 50 tiles: 250, 0.947 full
  EXPECT_EQ(deep(nt, N, T, 512, 512, 20000, 24).kg, 8);    // 32 tiles: 256
  EXPECT_EQ(deep(nt, N, T, 256, 256, 60000, 33).kg, 33);   // one wave already
  EXPECT_EQ(deep(nt, N, T, 2560, 128, 2560, 3).kg, 3);     // not a deep reduction
  const gen::Tile big{128, 128, 8, 64, 64, 1, gen::Family::Mma, false, 3};  // not measured
  EXPECT_EQ(deep_split_waves(plan_from_tile(gen::DataType::F64, false, N, T, 384, 384, 30000, big, 32), 384, 384,
                             30000, kSms)
                .kg,
            32);
}

// c64's 64x64x8 blocks of 64x16 warp tiles unsplit take two slices where cheapest_split ranks them
// first, a part-empty last round over the SMs (perf notes §149); blocks of one to two rounds up to
// four slices, ranked with a fill of 8 K-steps (§158); full rounds, other tiles and types, split
// plans and shallow K stay.
TEST(SplitPartRound, C64SquaresWithAPartEmptyLastRoundSplitInTwo) {
  using ptxblas::dispatch::plan_from_tile;
  using ptxblas::dispatch::split_part_round;
  const gen::Tile z64{64, 64, 8, 64, 16, 1, gen::Family::Mma, false, 3};
  const gen::Op N = gen::Op::N, T = gen::Op::T;
  auto kg = [&](const gen::Tile& t, gen::DataType d, gen::Op a, gen::Op b, std::int64_t m, std::int64_t n,
                std::int64_t k, int kg0 = 1) {
    return split_part_round(plan_from_tile(d, false, a, b, m, n, k, t, kg0), m, n, k, kSms).kg;
  };
  const gen::DataType Z = gen::DataType::C64;
  // 144 blocks: 2 rounds of (96 + 8), 3 of (48 + 8), 4 of (32 + 8), 5 of (24 + 8): 3 first, 4 tied
  EXPECT_EQ(kg(z64, Z, N, T, 768, 768, 768), 3);
  EXPECT_EQ(kg(z64, Z, N, T, 736, 736, 736), 4);     // 144: 4 rounds of (31 + 8) > 5 of (23 + 8)
  EXPECT_EQ(kg(z64, Z, N, N, 832, 832, 832), 3);     // 169: 4 slices would take 6 rounds
  EXPECT_EQ(kg(z64, Z, N, T, 1024, 640, 1024), 4);   // 160
  EXPECT_EQ(kg(z64, Z, N, T, 768, 768, 300), 2);     // slices of at least 128: 2 at most
  EXPECT_EQ(kg(z64, Z, N, T, 896, 896, 896), 2);     // 196
  EXPECT_EQ(kg(z64, Z, T, N, 1536, 1536, 1536), 2);  // 576, past two rounds: 5 rounds of 208 > 9 of 112
  EXPECT_EQ(kg(z64, Z, T, N, 1248, 1248, 1248), 2);  // 400: fill 8 and four slices would take 3
  EXPECT_EQ(kg(z64, Z, N, T, 1024, 768, 2048), 2);   // 192
  EXPECT_EQ(kg(z64, Z, N, T, 1024, 1024, 1024), 1);  // 256: two full rounds
  EXPECT_EQ(kg(z64, Z, N, T, 2048, 2048, 2048), 1);
  EXPECT_EQ(kg(z64, Z, N, N, 2000, 1000, 1000), 1);
  EXPECT_EQ(kg(z64, Z, N, T, 768, 768, 200), 1);     // K under two slices of 128
  EXPECT_EQ(kg(z64, Z, N, T, 768, 768, 768, 3), 3);  // split already
  const gen::Tile z64x32{64, 64, 8, 32, 32, 1, gen::Family::Mma, false, 3};
  EXPECT_EQ(kg(z64x32, Z, N, T, 768, 768, 768), 1);  // other warp tiles: not measured
  EXPECT_EQ(kg(z64, gen::DataType::F64, N, T, 768, 768, 768), 1);
}

// f64 NN / NT calls 1024-4096 on a side (K 640-4096) planned unsplit on 64x128x8 blocks of 32x64 warp
// tiles or 128x64x8 of 64x32 run 64x64x16 blocks of 32x32 warp tiles in three stages, unsplit (perf
// notes §159); TN, TT, split plans, other tiles, warp tiles and types, and sizes outside the measured
// range come back as they were given.
TEST(MidSquareF64Tile, NnAndNtOnTheModelsBigTilesTakeTheSquareTile) {
  using ptxblas::dispatch::describe;
  using ptxblas::dispatch::mid_square_f64_tile;
  using ptxblas::dispatch::plan_from_tile;
  const gen::Tile wide{64, 128, 8, 32, 64, 1, gen::Family::Mma, false, 3};
  const gen::Tile tall{128, 64, 8, 64, 32, 1, gen::Family::Mma, false, 4};
  const gen::Tile square{64, 64, 16, 32, 32, 1, gen::Family::Mma, false, 3};
  const gen::Op N = gen::Op::N, T = gen::Op::T;
  const gen::DataType D = gen::DataType::F64;
  // Whether the rule moved the plan to the square tile; a plan it does not move must come back whole.
  auto moves = [&](const gen::Tile& t, gen::DataType d, gen::Op a, gen::Op b, std::int64_t m, std::int64_t n,
                   std::int64_t k, int kg = 1) {
    const auto given = plan_from_tile(d, false, a, b, m, n, k, t, kg);
    const std::string got = describe(mid_square_f64_tile(given, m, n, k));
    if (got == describe(plan_from_tile(d, false, a, b, m, n, k, square, 1))) return true;
    EXPECT_EQ(got, describe(given)) << m << "x" << n << "x" << k;
    return false;
  };
  EXPECT_TRUE(moves(wide, D, N, T, 2048, 2048, 2048));
  EXPECT_TRUE(moves(tall, D, N, N, 4096, 4096, 4096));
  EXPECT_TRUE(moves(tall, D, N, T, 1024, 4096, 1024));
  EXPECT_TRUE(moves(tall, D, N, N, 1280, 2560, 640));
  EXPECT_FALSE(moves(tall, D, T, N, 2048, 2048, 2048));     // TN: not faster
  EXPECT_FALSE(moves(wide, D, T, T, 2048, 2048, 2048));     // TT: not measured
  EXPECT_FALSE(moves(wide, D, N, T, 8192, 8192, 8192));     // past 4096: even
  EXPECT_FALSE(moves(wide, D, N, T, 2048, 2048, 8192));     // K past 4096
  EXPECT_FALSE(moves(wide, D, N, T, 2048, 2048, 512));      // K under 640
  EXPECT_FALSE(moves(wide, D, N, T, 768, 2048, 2048));      // a side under 1024
  EXPECT_FALSE(moves(wide, D, N, T, 2048, 2048, 2048, 2));  // split
  EXPECT_FALSE(moves(gen::Tile{64, 64, 8, 32, 32, 1, gen::Family::Mma, false, 4}, D, N, T, 2048, 2048, 2048));
  // The model's 64x128 of 64x32 warp tiles ran faster than the square tile at 3584^2.
  EXPECT_FALSE(moves(gen::Tile{64, 128, 8, 64, 32, 1, gen::Family::Mma, false, 4}, D, N, N, 3584, 3584, 3584));
  EXPECT_FALSE(moves(gen::Tile{64, 64, 8, 64, 16, 1, gen::Family::Mma, false, 3}, gen::DataType::C64, N, T, 2048,
                     2048, 2048));  // f64 only
}

// f64 / c64 with C a little wider than the narrow tiles' take their skinny tile, K split by whole
// rounds (perf notes §77); other widths, types and short sides fall through.
TEST(Heuristic, SkinnyCTakesTheTypesSkinnyTile) {
  using ptxblas::dispatch::plan_skinny;
  auto skinny = [](gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k) {
    return plan_skinny(t, false, gen::Op::T, gen::Op::N, m, n, k, kSms);
  };
  const auto z = skinny(gen::DataType::C64, 2560, 64, 2560);
  ASSERT_TRUE(z);
  EXPECT_EQ(z->config.ml, 32);
  EXPECT_EQ(z->config.nl, 64);
  EXPECT_EQ(z->config.u, 16);
  EXPECT_EQ(z->kg, 3);  // the sweep's best
  // c64 wider than 64 (§148): 64x32x8 to 96 wide, 64x64x8 to 128, four stages, K split by how full
  // the last round is (kg / rounds, at most 8 slices of 256 deep); 64x64x8: rounds of 132 blocks,
  // more slices on a tie.
  auto expect_wide_z = [&](std::int64_t m, std::int64_t n, std::int64_t k, int ml, int nl, int stages, int kg) {
    const auto p = skinny(gen::DataType::C64, m, n, k);
    ASSERT_TRUE(p) << m << "x" << n << "x" << k;
    EXPECT_EQ(p->config.ml, ml) << m << "x" << n << "x" << k;
    EXPECT_EQ(p->config.nl, nl) << m << "x" << n << "x" << k;
    // Warp tiles: 32x16 / 64x16 along M for a narrow N, mirrored for a narrow M.
    const int warp_long = nl == 64 && ml == 64 ? 64 : 32, warp_short = 16;
    EXPECT_EQ(m >= n ? p->config.ms : p->config.ns, warp_long) << m << "x" << n << "x" << k;
    EXPECT_EQ(m >= n ? p->config.ns : p->config.ms, warp_short) << m << "x" << n << "x" << k;
    EXPECT_EQ(p->config.u, 8);
    EXPECT_EQ(p->config.stages, stages);
    EXPECT_EQ(p->kg, kg) << m << "x" << n << "x" << k;
  };
  expect_wide_z(2560, 128, 2560, 64, 64, 4, 8);  // 80 blocks: 8 slices, 5 rounds (1.6 slices a round)
  expect_wide_z(1536, 128, 3000, 64, 64, 4, 8);  // 48 blocks: 8 in 3 rounds
  expect_wide_z(2560, 128, 1300, 64, 64, 4, 3);  // at most 5 slices (256 deep): 3 in 2 rounds beat 5 in 4
  // 64x32: rounds of two blocks an SM, fewer slices on a tie.
  expect_wide_z(2560, 96, 2560, 64, 32, 4, 2);    // three 32-wide column tiles, 120 blocks: 2 in one round
  expect_wide_z(2560, 65, 2560, 64, 32, 4, 2);
  expect_wide_z(8192, 96, 1024, 64, 32, 4, 2);    // 384: 2 slices in 3 rounds (4 in 6, 8 in 12 tie)
  expect_wide_z(4096, 72, 4096, 64, 32, 4, 4);    // 192: 4 in 3 rounds
  expect_wide_z(6000, 80, 3000, 64, 32, 4, 8);    // 282: 8 in 9 rounds
  expect_wide_z(16384, 72, 2048, 64, 32, 4, 1);   // 768: every split ties, unsplit
  expect_wide_z(2560, 97, 2560, 64, 64, 4, 8);   // the boundary: 96 on 64x32, 97 on 64x64
  expect_wide_z(96, 2560, 2560, 32, 64, 4, 2);   // narrow M: mirrored
  expect_wide_z(128, 2560, 2560, 64, 64, 4, 8);
  expect_wide_z(6000, 128, 6000, 64, 64, 4, 7);  // 32x64's 376 blocks fill 0.71 of two waves
  // 97-128 wide, the 33-64 tile stays where its blocks fill their waves of 2 x 132 (0.9 or more).
  for (const auto& [m, n, k] :
       {std::tuple{4096, 128, 4096}, {8192, 128, 1024}, {8192, 100, 2048}, {100, 8192, 2048}}) {
    const auto p = skinny(gen::DataType::C64, m, n, k);
    ASSERT_TRUE(p);
    EXPECT_EQ(m >= n ? p->config.ml : p->config.nl, 32) << m << "x" << n << "x" << k;  // mirrored for a narrow M
    EXPECT_EQ(m >= n ? p->config.nl : p->config.ml, 64);
    EXPECT_EQ(p->config.u, 16);
    EXPECT_EQ(p->kg, 1);
  }
  const auto d = skinny(gen::DataType::F64, 2560, 64, 2560);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->config.ml, 64);
  EXPECT_EQ(d->config.nl, 32);
  EXPECT_EQ(d->kg, 3);
  // The plan_gemm a call without the model gets.
  EXPECT_EQ(plan(gen::DataType::F64, 2560, 64, 2560).config.u, 32);
  // Narrow M: the mirrored tile.
  const auto dm = skinny(gen::DataType::F64, 64, 2560, 2560);
  ASSERT_TRUE(dm);
  EXPECT_EQ(dm->config.ml, 32);
  EXPECT_EQ(dm->config.nl, 64);
  // 32-deep K-steps (§94): c64 at 32 wide in 32x32x32, f64 at 128 wide in 128x64x32, 3 slices.
  auto expect_deep = [&](gen::DataType t, std::int64_t n, int ml, int nl) {
    const auto p = skinny(t, 2560, n, 2560);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->config.ml, ml);
    EXPECT_EQ(p->config.nl, nl);
    EXPECT_EQ(p->config.u, 32);
    EXPECT_EQ(p->kg, 3);
  };
  expect_deep(gen::DataType::C64, 32, 32, 32);
  expect_deep(gen::DataType::F64, 128, 128, 64);
  // An f64 plan's tile (three stages, 16-deep K-steps) and split, for a narrow N.
  auto expect_f64 = [](const std::optional<Plan>& p, int ml, int nl, int ms, int ns, int kg, const std::string& what) {
    ASSERT_TRUE(p) << what;
    EXPECT_EQ(std::tuple(p->config.ml, p->config.nl, p->config.ms, p->config.ns), std::tuple(ml, nl, ms, ns)) << what;
    EXPECT_EQ(p->config.u, 16) << what;
    EXPECT_EQ(p->config.stages, 3) << what;
    EXPECT_EQ(p->kg, kg) << what;
  };
  auto shape = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  };
  // f64 81-96 wide (§150): 64x32x16 of 16x32 warp tiles, K split as c64's 64x32x8 (rounds of two
  // blocks an SM, fewer slices on a tie).
  for (const auto& [m, n, k, kg] : {std::tuple{2560, 96, 2560, 2}, {4096, 96, 4096, 4}, {8192, 96, 2048, 2},
                                    {1024, 96, 1024, 4}, {2560, 81, 2560, 2}})
    expect_f64(skinny(gen::DataType::F64, m, n, k), 64, 32, 16, 32, kg, shape(m, n, k));
  const auto dm96 = skinny(gen::DataType::F64, 96, 2560, 2560);  // narrow M: mirrored
  ASSERT_TRUE(dm96);
  EXPECT_EQ(dm96->config.ml, 32);
  EXPECT_EQ(dm96->config.nl, 64);
  EXPECT_EQ(dm96->config.ms, 32);
  EXPECT_EQ(dm96->config.ns, 16);
  // Not: f64 at 32, 65-80 (the model's own pick is the 96-wide tile in 4 slices, ahead of 2) or
  // 97-112 wide (64x64x16 ahead), either type at 16 wide (the narrow plans'), f32, a short long
  // side or a shallow K.
  EXPECT_FALSE(skinny(gen::DataType::F64, 2560, 32, 2560));
  EXPECT_FALSE(skinny(gen::DataType::F64, 2560, 80, 2560));
  EXPECT_FALSE(skinny(gen::DataType::F64, 2560, 97, 2560));
  // f64 NT 97-112 wide with N narrow (§152): 64x64x16 of 32x32 warp tiles, K split by the last
  // round's fill in rounds of the two blocks an SM its registers leave, fewer slices on a tie.
  auto skinny_nt = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return plan_skinny(gen::DataType::F64, false, gen::Op::N, gen::Op::T, m, n, k, kSms);
  };
  for (const auto& [m, n, k, kg] : {std::tuple{4096, 112, 4096, 2},  // 128 blocks: 2, 4 and 8 slices tie
                                    {2560, 104, 2560, 3},             // 80: 3 slices in one round
                                    {6000, 100, 3000, 7},             // 188: 7 in 5 rounds (1.4 a round)
                                    {3000, 97, 1500, 5},              // at most 5 slices (256 deep)
                                    {16384, 100, 4096, 1}})           // 512: 0.97 of two rounds unsplit
    expect_f64(skinny_nt(m, n, k), 64, 64, 32, 32, kg, shape(m, n, k));
  EXPECT_EQ(skinny_nt(2560, 96, 2560)->config.nl, 32);  // 81-96: §150's tile in NT too
  EXPECT_EQ(skinny_nt(2560, 113, 2560)->config.u, 32);  // 113-128: 128x64x32 as in every layout
  EXPECT_FALSE(skinny_nt(104, 2560, 2560));               // narrow M (not measured)
  EXPECT_FALSE(plan_skinny(gen::DataType::F64, false, gen::Op::T, gen::Op::T, 2560, 104, 2560, kSms));
  EXPECT_EQ(plan_skinny(gen::DataType::C64, false, gen::Op::N, gen::Op::T, 2560, 104, 2560, kSms)->config.u, 8);
  EXPECT_FALSE(skinny(gen::DataType::C64, 2560, 16, 2560));
  EXPECT_FALSE(skinny(gen::DataType::F32, 2560, 64, 2560));
  EXPECT_FALSE(skinny(gen::DataType::C64, 512, 64, 2560));
  EXPECT_FALSE(skinny(gen::DataType::C64, 2560, 64, 256));
}

TEST(Heuristic, WgmmaRaggedNarrowMAnd513To768WideTakeTheTileDoneFirstInWaves) {
  // perf notes §121, §124: a narrow M 129-191 and 513-768 wide either way, one slice, in the
  // candidate whose grid takes the least time counted in waves of one block per SM (a part-full
  // last wave costing 0.4 + 0.6 x its fill) at each tile's measured rate (dispatch/wgmma_waves.hpp).
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_b = gen::Op::T;
  const std::array<std::int64_t, 6> taken[] = {
      // narrow M: 64x192 s6 where 3 x 43 blocks are one wave; 64x256 where 64x192 would take three
      // waves and 64x256 two; 192x128 where 96-128 blocks hold M in one row of blocks (128x192
      // takes two); 64x128 s6 where wider blocks leave half the SMs idle.
      {129, 5889, 5889, 64, 192, 6},    {191, 8192, 8192, 64, 192, 6},    {176, 20480, 8192, 64, 256, 4},
      {160, 16384, 4096, 192, 128, 5},  {160, 12288, 12288, 192, 128, 5}, {136, 4096, 4096, 64, 128, 6},
      // Up to 152 rows, where 128x256's grid is one wave, 128x256 s4 (its second row of blocks is
      // mostly out of bounds); past one wave of it, or from 153 rows, the model.
      {136, 16384, 8192, 128, 256, 4},  {152, 12288, 4096, 128, 256, 4},  {152, 16896, 8192, 128, 256, 4},
      {152, 16897, 8192, 64, 256, 4},   {153, 12288, 4096, 192, 128, 5},
      // 513-768 wide: 128x192 s5 mostly; 256x128 s4 where it is one wave and 128x192 two; 128x256
      // s4 where both of those take two waves and it does too, with fewer padded columns.
      {8192, 513, 8192, 128, 192, 5},   {768, 8192, 4096, 128, 192, 5},   {6144, 640, 6144, 256, 128, 4},
      {6001, 530, 2800, 256, 128, 4},   {10240, 736, 8192, 128, 256, 4},  {700, 8200, 2100, 128, 192, 5},
      // Past one wave at equal padding, 128x256 s4 over 128x192 s5 (§124's A/B).
      {16384, 641, 8192, 128, 256, 4}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // 769 wide, too little streamed: the catalogue's plan (K beyond the long side: §122's test).
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{8192, 769, 8192},
                         {769, 8192, 8192},
                         {769, 4096, 4096},
                         {4096, 600, 4095}})
    expect_catalogue_wgmma(call, m, n, k);
}

TEST(Heuristic, WgmmaDeeperThanTheLongSideRunsUnsplitInTheTileDoneFirstInWaves) {
  // perf notes §122, §124: 65-768 wide with K deeper than the long side, one slice, in the wave
  // model's pick over seven tiles where that grid has 0.7 of a block per SM; else the catalogue's
  // split.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  const std::array<std::int64_t, 6> taken[] = {
      // Just past each range's rule (K = the long side + 1), then the probe's shapes.
      {8192, 96, 8193, 64, 128, 6},      {8192, 200, 8193, 128, 128, 6},   {8192, 300, 8193, 128, 192, 5},
      {8192, 400, 8193, 128, 256, 4},    {384, 8192, 8193, 128, 192, 5},   {8192, 600, 8193, 192, 128, 5},
      {160, 8192, 8193, 64, 192, 6},     {6144, 520, 8192, 256, 128, 4},   {4096, 640, 8192, 192, 128, 5},
      {8192, 300, 16384, 128, 192, 5},   {384, 6144, 8192, 128, 192, 5},   {160, 6144, 8192, 64, 192, 6},
      {4096, 512, 6144, 128, 128, 6},    {8192, 96, 16384, 64, 128, 6},    {2048, 700, 40960, 64, 192, 6},
      {8192, 80, 65536, 64, 128, 6},     {640, 6144, 12288, 128, 256, 4},  {736, 4096, 6144, 128, 192, 5},
      // The fastest among the grids that fill the SMs, where a larger tile's grid would not (§124).
      {5120, 256, 8192, 64, 128, 6},     {10240, 161, 12288, 192, 128, 5}};
  for (const auto& row : taken) expect_unsplit_wgmma(call, row);
  // Grids under 0.7 of a block per SM (64 and 32 blocks), a narrow M 64 wide (§124's rule
  // takes only a narrow N), 769 wide, too little streamed: the catalogue's plan, K split.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{4096, 96, 32768},
                         {512, 512, 65536},
                         {64, 8192, 16384},
                         {8192, 769, 16384},
                         {3000, 700, 5000},
                         {256, 256, 60000}}) {
    const Plan p = expect_catalogue_wgmma(call, m, n, k);
    if (m != 3000) {  // 3000 x 700: 144 blocks of 128x128, unsplit
      EXPECT_GT(p.kg, 1) << m << "x" << n << "x" << k;
    }
  }
}

TEST(Heuristic, WgmmaDeepNarrowN129To191SplitsTwoSlicesOf128x192WhereThatFillsTheSms) {
  // perf notes §125: where the wave model picks 64x192 s6, 128x192 s5 in two slices if those
  // are 0.7-1 wave (47-66 blocks of 128x192 at 132 SMs).
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  call.op_a = gen::Op::T;
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{8192, 130, 16384},
                         {6144, 160, 12288},
                         {6016, 191, 6017},
                         {8448, 129, 65536}}) {
    call.m = m, call.n = n, call.k = k;
    const Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
    EXPECT_EQ(p.config.ml, 128) << m << "x" << n << "x" << k;
    EXPECT_EQ(p.config.nl, 192) << m << "x" << n << "x" << k;
    EXPECT_EQ(p.kg, 2) << m << "x" << n << "x" << k;
  }
  // 192 wide, K no deeper than the long side, 128x192 filling unsplit (12288 long: 96 blocks),
  // too few blocks even in two slices (5888 long: 46) or too many for one wave (8576 long: 67), a
  // narrow M, a model pick other than 64x192 (192x128 s5 for 10240x161): one slice.
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{6144, 192, 24576},
                         {8192, 160, 8192},
                         {12288, 160, 16384},
                         {5888, 160, 16384},
                         {8576, 160, 16384},
                         {160, 8192, 16384},
                         {10240, 161, 12288}}) {
    call.m = m, call.n = n, call.k = k;
    EXPECT_EQ(ptxblas::dispatch::plan_wgmma(call, kSms).kg, 1) << m << "x" << n << "x" << k;
  }
  // Past one wave of two slices the model's 64x192 s6 stays (not 128x192 rounded back to one
  // slice by plan_over_tiles' whole waves).
  for (std::int64_t m : {8512, 8576}) {
    call.m = m, call.n = 160, call.k = 16384;
    const Plan p = ptxblas::dispatch::plan_wgmma(call, kSms);
    EXPECT_EQ(p.config.ml, 64) << m;
    EXPECT_EQ(p.config.nl, 192) << m;
    EXPECT_EQ(p.kg, 1) << m;
  }
}

TEST(Heuristic, WgmmaWaveModelCountsPartWavesAndSkipsSmallGrids) {
  // dispatch/wgmma_waves.hpp: 128 x 16896 is 132 blocks of 128x128 s6, one wave (16384 / 0.86 =
  // 19051), or 66 of 128x256 s4, a wave half full (0.4 + 0.6 x 0.5 = 0.7 wave: 22938).
  constexpr gen::Family W = gen::Family::Wgmma;
  const gen::Tile square{128, 128, 64, 64, 128, 1, W, false, 6}, wide{128, 256, 64, 64, 256, 1, W, false, 4};
  const gen::Tile unrated{64, 64, 64, 64, 64, 1, W, false, 6};
  const gen::Tile candidates[] = {wide, square, unrated};
  EXPECT_DOUBLE_EQ(ptxblas::dispatch::wave_rate(wide), 1.0);
  // 128x192 s5 fitted 1.02 but stays below 128x256 (§124: at 1.02 it took 593-768-wide grids
  // past one wave from 128x256 and lost x0.92-0.98).
  EXPECT_LT(ptxblas::dispatch::wave_rate({128, 192, 64, 64, 192, 1, W, false, 5}), 1.0);
  EXPECT_EQ(ptxblas::dispatch::wave_rate(unrated), 0.0);
  const gen::Tile* pick = ptxblas::dispatch::fastest_in_waves(candidates, 128, 16896, kSms, 0);
  ASSERT_NE(pick, nullptr);
  EXPECT_EQ(pick->nl, 128);
  // At 70 blocks of 128x256 (0.718 wave: 23540) against 140 of 128x128 (1.436 waves: 27360).
  pick = ptxblas::dispatch::fastest_in_waves(candidates, 128, 17920, kSms, 0);
  ASSERT_NE(pick, nullptr);
  EXPECT_EQ(pick->nl, 256);
  // Grids under min_blocks drop out: 128x128's 140 blocks remain, then none.
  pick = ptxblas::dispatch::fastest_in_waves(candidates, 128, 17920, kSms, 100);
  ASSERT_NE(pick, nullptr);
  EXPECT_EQ(pick->nl, 128);
  EXPECT_EQ(ptxblas::dispatch::fastest_in_waves(candidates, 128, 17920, kSms, 141), nullptr);
  EXPECT_EQ(ptxblas::dispatch::fastest_in_waves(std::span<const gen::Tile>(), 128, 17920, kSms, 0), nullptr);
}

TEST(Heuristic, WgmmaPlansWithoutAMultiprocessorCountDoNotDivideByZero) {
  // DeviceInfo defaults to 0 SMs; the rules and the wave model count at least one.
  ptxblas::dispatch::GemmCall call;
  call.data = gen::DataType::F16;
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{160, 8192, 8192},
                         {8192, 640, 8192},
                         {8192, 300, 16384},
                         {8192, 32, 16384},
                         {4096, 4096, 4096}})
    for (int sms : {0, -1}) {
      call.m = m, call.n = n, call.k = k;
      const Plan p = ptxblas::dispatch::plan_wgmma(call, sms);
      EXPECT_GE(p.kg, 1) << m << "x" << n << "x" << k;
      EXPECT_EQ(p.config.family, gen::Family::Wgmma) << m << "x" << n << "x" << k;
    }
}
