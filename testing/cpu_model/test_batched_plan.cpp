// The strided-batch plan (dispatch/batched_plan.hpp): one legal batched tile per call, K never
// split, small tiles where the batch fills no wave, the largest where it fills many.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "async_stages.hpp"
#include "batched_plan.hpp"
#include "resources.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {
namespace {

constexpr int kSms = 132;

GemmCall batch_call(gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  GemmCall c;
  c.data = t;
  c.op_a = gen::Op::T;
  c.m = m;
  c.n = n;
  c.k = k;
  c.batch = batch;
  return c;
}

TEST(BatchedPlan, IsLegalUnsplitAndBatchedForEveryTypeAndFamily) {
  for (gen::DataType t : {gen::DataType::F16, gen::DataType::BF16, gen::DataType::F32, gen::DataType::F64,
                          gen::DataType::C32, gen::DataType::C64})
    for (bool wgmma : {false, true}) {
      if (wgmma && t != gen::DataType::F16 && t != gen::DataType::BF16) continue;
      for (std::int64_t batch : {2, 40, 70000})
        for (std::int64_t size : {8, 100, 1024}) {
          const Plan p = plan_batched(batch_call(t, size, size + 3, size, batch), wgmma, kSms);
          SCOPED_TRACE(gen::kernel_name(p.config));
          EXPECT_TRUE(p.config.batched);
          EXPECT_EQ(p.kg, 1);
          EXPECT_EQ(p.config.family == gen::Family::Wgmma, wgmma);
          EXPECT_EQ(gen::why_illegal(p.config), "");
        }
    }
}

// What the plan cache keys a batch's read of C by: beta != 0 in either part, or beta on the device.
TEST(BatchedPlan, ReadsCWhereBetaIsNonzeroOrOnTheDevice) {
  GemmCall c = batch_call(gen::DataType::F16, 64, 64, 64, 8);
  EXPECT_FALSE(batch_reads_c(c));
  c.beta[1] = 0.5;
  EXPECT_TRUE(batch_reads_c(c));
  c.beta[1] = 0;
  c.beta[0] = -1;
  EXPECT_TRUE(batch_reads_c(c));
  c.beta[0] = 0;
  c.device_scalars = true;
  EXPECT_TRUE(batch_reads_c(c));
}

TEST(BatchedPlan, TakesSmallTilesBelowAWaveAndLargeOnesOverMany) {
  // 8 entries of 64 x 64: one 32 x 32 block each would leave the SMs idle, so the smallest tile.
  const Plan few = plan_batched(batch_call(gen::DataType::F64, 64, 64, 512, 8), false, kSms);
  const Plan many = plan_batched(batch_call(gen::DataType::F64, 1024, 1024, 512, 64), false, kSms);
  EXPECT_LT(few.config.ml * few.config.nl, many.config.ml * many.config.nl);
  // 128 x 128 entries on wgmma: a tile of 128 x 256 would pad every entry to twice its size.
  const Plan h = plan_batched(batch_call(gen::DataType::F16, 128, 128, 64, 512), true, kSms);
  EXPECT_LE(h.config.nl, 128);
  EXPECT_EQ(128 % h.config.ml, 0);
}

// f32 and f64 batches run a rated tile (gen::batched_tiles), the one of highest TFLOP/s times
// useful work times last-wave fill: what the H200 sweep measured best (perf notes §139).
TEST(BatchedPlan, RealBatchesRunTheRatedTileOfMostPredictedThroughput) {
  const auto tile_of = [](gen::DataType t, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
    const gen::KernelConfig c = plan_batched(batch_call(t, m, n, k, batch), false, kSms).config;
    EXPECT_EQ(gen::why_illegal(c), "");
    return std::to_string(c.ml) + "x" + std::to_string(c.nl) + "x" + std::to_string(c.u);
  };
  // 96 x 96 entries: one 128 x 128 block each fills a wave at 56% useful work, and ran 16.6
  // TFLOP/s against 12.0 for nine 32 x 32 blocks (2 x 2 thread tiles, the cost model's pick).
  EXPECT_EQ(tile_of(gen::DataType::F32, 96, 96, 96, 256), "128x128x8");
  // Small entries with K a multiple of 16: 16-deep K-steps; 32 x 32 blocks of 4 x 4 thread tiles.
  EXPECT_EQ(tile_of(gen::DataType::F32, 160, 160, 160, 100), "32x32x16");
  EXPECT_EQ(tile_of(gen::DataType::F32, 128, 128, 64, 64), "64x64x16");
  // 64 x 128 x 8 on three element-wise cp.async stages where neither operand copies vectors (NN,
  // TN); where one does (NT, TT) on two, which run_batched lowers to the vector-stage form where
  // the call is aligned (perf notes §143).
  // 100^2 x 50 x 300 takes 64 x 128 x 8 in every layout (the sweep's pick).
  for (const auto& [a, b, stages] : {std::tuple{gen::Op::N, gen::Op::N, 3}, std::tuple{gen::Op::T, gen::Op::N, 3},
                                     std::tuple{gen::Op::N, gen::Op::T, 2}, std::tuple{gen::Op::T, gen::Op::T, 2}}) {
    GemmCall call = batch_call(gen::DataType::F32, 100, 100, 50, 300);
    call.op_a = a;
    call.op_b = b;
    const gen::KernelConfig c = plan_batched(call, false, kSms).config;
    SCOPED_TRACE(gen::kernel_name(c));
    EXPECT_EQ(c.ml, 64);
    EXPECT_EQ(c.nl, 128);
    EXPECT_EQ(c.stages, stages);
    EXPECT_EQ(gen::why_illegal(c), "");
  }
  // 64 x 64 x 8 (no operand in vectors) on three element-wise cp.async stages, in every layout:
  // 64^3 x 512 ran x1.06-1.18 so against two stages (perf notes §142).
  for (const auto& [a, b] : {std::pair{gen::Op::N, gen::Op::N}, std::pair{gen::Op::N, gen::Op::T},
                             std::pair{gen::Op::T, gen::Op::T}, std::pair{gen::Op::T, gen::Op::N}}) {
    GemmCall call = batch_call(gen::DataType::F32, 64, 64, 64, 512);
    call.op_a = a;
    call.op_b = b;
    const gen::KernelConfig c = plan_batched(call, false, kSms).config;
    EXPECT_EQ(gen::kernel_name(c).substr(10), "64x64x8_4x4_v4_s3_bt");
    EXPECT_EQ(with_f32_batch_vector_stages(plan_batched(call, false, kSms), 64, 64, 64).config, c);
  }
  // K = 50, 40, 24 and 200 are no multiples of 16: no 16-deep K-step (the sweep's were slower on
  // the first two; 160 x 24 and 200 x 200 would take one without the rule).
  for (const auto& [m, k, batch] :
       {std::tuple{100, 50, 300}, std::tuple{200, 40, 150}, std::tuple{160, 24, 100}, std::tuple{200, 200, 50}})
    for (gen::DataType t : {gen::DataType::F32, gen::DataType::F64}) {
      const gen::KernelConfig c = plan_batched(batch_call(t, m, m, k, batch), false, kSms).config;
      EXPECT_LE(c.u, 8) << m << " x " << k << " x " << batch;
    }
  // Entries that read C (beta != 0): f64's 64 x 64 x 16 weighed at its beta-1 rate, so small
  // short-K entries take 32 x 64 x 16 (x1.04-1.28 in the beta-1 sweep, perf notes §143); at beta 0
  // the same batches keep 64 x 64 x 16, and larger entries their tiles at either beta.
  for (const auto& [m, k, batch] : {std::tuple{128, 64, 64}, std::tuple{64, 64, 512}}) {
    GemmCall call = batch_call(gen::DataType::F64, m, m, k, batch);
    const gen::KernelConfig zero = plan_batched(call, false, kSms).config;
    call.beta[0] = 1;
    const gen::KernelConfig one = plan_batched(call, false, kSms).config;
    EXPECT_EQ(std::to_string(zero.ml) + "x" + std::to_string(zero.nl) + "x" + std::to_string(zero.u), "64x64x16");
    EXPECT_EQ(std::to_string(one.ml) + "x" + std::to_string(one.nl) + "x" + std::to_string(one.u), "32x64x16");
  }
  for (const auto& [m, k, batch] : {std::tuple{512, 64, 96}, std::tuple{128, 128, 128}}) {
    GemmCall call = batch_call(gen::DataType::F64, m, m, k, batch);
    const gen::KernelConfig zero = plan_batched(call, false, kSms).config;
    call.beta[0] = 1;
    EXPECT_EQ(plan_batched(call, false, kSms).config, zero) << m << " x " << k << " x " << batch;
  }
  GemmCall imaginary = batch_call(gen::DataType::F64, 128, 128, 64, 64);
  imaginary.beta[1] = 0.5;  // beta's second half set reads C as well (batch_reads_c)
  EXPECT_EQ(plan_batched(imaginary, false, kSms).config.ml, 32);
  // f64: 64 x 64 blocks of one 8-deep slice a K-step where they fill the waves best.
  EXPECT_EQ(tile_of(gen::DataType::F64, 512, 512, 64, 96), "64x64x8");
  EXPECT_EQ(tile_of(gen::DataType::F64, 48, 48, 48, 1024), "64x64x8");
  // Deeper than 256: the tiles with a deep rate, by blocks an SM (f32: 64 x 64 x 16 on few or
  // small entries, 128 x 128 x 8 where those fill the SMs; f64: 64 x 64 x 16, or 32 x 32 x 16 on
  // small entries), as the second sweep measured (perf notes §140-§141).
  EXPECT_EQ(tile_of(gen::DataType::F32, 128, 128, 1024, 32), "64x64x16");
  EXPECT_EQ(tile_of(gen::DataType::F32, 768, 768, 768, 4), "64x64x16");
  EXPECT_EQ(tile_of(gen::DataType::F32, 512, 512, 512, 8), "128x128x8");
  EXPECT_EQ(tile_of(gen::DataType::F32, 200, 200, 400, 30), "128x128x8");
  EXPECT_EQ(tile_of(gen::DataType::F32, 300, 300, 500, 20), "64x64x8");  // K = 500: no 16-deep step
  EXPECT_EQ(tile_of(gen::DataType::F64, 128, 128, 512, 64), "64x64x16");  // the cost model: 128 x 64
  EXPECT_EQ(tile_of(gen::DataType::F64, 320, 320, 1024, 8), "64x64x16");  // the cost model: 64 x 128
  EXPECT_EQ(tile_of(gen::DataType::F64, 64, 64, 4096, 32), "32x32x16");
  EXPECT_EQ(tile_of(gen::DataType::F64, 384, 384, 512, 8), "64x64x16");
  // f64 K = 500: no deep tile divides it; the cost model's plan (legal, checked above)
  tile_of(gen::DataType::F64, 300, 300, 500, 20);
  // Types without rated tiles keep the catalogue's cost model.
  EXPECT_TRUE(gen::batched_tiles(gen::DataType::C64).empty());
  EXPECT_TRUE(gen::batched_tiles(gen::DataType::C32).empty());
}

// Several entries a block only for wgmma batches of at most two K-steps that fill two waves of
// tiles: 3 to 8 of them, the fewest waves times entries.
TEST(BatchedPlan, RunsSeveralShortKEntriesABlockOnlyWhereTheyFillWaves) {
  const Plan shortk = plan_batched(batch_call(gen::DataType::F16, 512, 512, 64, 96), true, kSms);
  EXPECT_GE(shortk.config.batch_tiles, 3);
  EXPECT_LE(shortk.config.batch_tiles, 8);
  EXPECT_EQ(gen::why_illegal(shortk.config), "");
  EXPECT_NE(gen::kernel_name(shortk.config).find("_z"), std::string::npos);
  // 2048 x 64 x 64 x 64 on 64x64 tiles (N too narrow for 128-wide ones), 32 tiles an entry over
  // 660 slots: 8 entries a block make 8 block rows (256 blocks, one wave: cost 8); 3 make 22 (704
  // blocks, two waves: cost 6), 4 make 16 (512, one: 4), 5 make 13 (416, one: 5).
  const Plan narrow = plan_batched(batch_call(gen::DataType::BF16, 2048, 64, 64, 64), true, kSms);
  EXPECT_EQ(narrow.config.nl, 64);
  EXPECT_EQ(narrow.config.batch_tiles, 4);
  EXPECT_EQ(plan_batched(batch_call(gen::DataType::F16, 512, 512, 1024, 96), true, kSms).config.batch_tiles, 1);
  EXPECT_EQ(plan_batched(batch_call(gen::DataType::F16, 128, 128, 64, 64), true, kSms).config.batch_tiles, 1);
  EXPECT_EQ(plan_batched(batch_call(gen::DataType::F32, 512, 512, 64, 96), false, kSms).config.batch_tiles, 1);
}

// Short-K wgmma batches whose N suits 128-wide blocks run several entries of 64x128 rather than
// of the cost model's 64x64 where C is not read (perf notes §136). 2048 x 512 x 64 x 16: 128
// tiles an entry over 396 slots (three 64x128 blocks an SM): 3 entries a block make 6 block rows
// (768 blocks, two waves: cost 6), 6 make 3 (384, one: 6), 8 make 2 (256, one: 8), 4 and 5 four
// (512, two: 8, 10); the tie goes to 6. (Too few tiles for several entries: the test above.)
TEST(BatchedPlan, ShortKBatchesRunSeveralEntriesOf64x128WhereNSuitsThem) {
  for (const std::int64_t k : {32, 64, 128}) {
    const Plan p = plan_batched(batch_call(gen::DataType::F16, 512, 512, k, 96), true, kSms);
    SCOPED_TRACE(gen::kernel_name(p.config));
    EXPECT_EQ(p.config.ml, 64);
    EXPECT_EQ(p.config.nl, 128);
    EXPECT_GE(p.config.batch_tiles, 3);
    EXPECT_LE(p.config.batch_tiles, 8);
    EXPECT_EQ(gen::why_illegal(p.config), "");
  }
  const Plan wide = plan_batched(batch_call(gen::DataType::BF16, 2048, 512, 64, 16), true, kSms);
  EXPECT_EQ(wide.config.nl, 128);
  EXPECT_EQ(wide.config.batch_tiles, 6);
  // Entries that read C (beta != 0, or beta on the device) keep the cost model's 64x64, several
  // a block.
  for (const bool device_beta : {false, true}) {
    GemmCall reads = batch_call(gen::DataType::F16, 512, 512, 64, 96);
    if (device_beta)
      reads.device_scalars = true;
    else
      reads.beta[0] = 1;
    const Plan kept = plan_batched(reads, true, kSms);
    EXPECT_EQ(kept.config.nl, 64) << device_beta;
    EXPECT_GE(kept.config.batch_tiles, 3) << device_beta;
  }
}

// Wgmma batches 129-512 deep that fill two waves: 64x128 blocks of four stages, 4 to 8 entries
// each by waves (perf notes §135, §137); deeper, too few tiles or a narrow N, the cost model's plan.
// 512 x 512 entries on 64x128: 32 tiles each over 264 slots (two blocks an SM). 64 entries: 4 a
// block make 512 blocks (two waves: cost 8), 8 make 256 (one: 8), 5-7 two waves (10-14): 8. 32
// entries: 4 make 256 blocks (one wave: 4), 8 make 128 (one, half empty: 8): 4.
TEST(BatchedPlan, MidDepthWgmmaBatchesRunFourToEightEntriesOf64x128) {
  for (const std::int64_t k : {192, 256, 512})
    for (const std::int64_t batch : {64, 32}) {
      const Plan p = plan_batched(batch_call(gen::DataType::F16, 512, 512, k, batch), true, kSms);
      SCOPED_TRACE(gen::kernel_name(p.config));
      EXPECT_EQ(p.config.ml, 64);
      EXPECT_EQ(p.config.nl, 128);
      EXPECT_EQ(p.config.stages, 4);
      EXPECT_EQ(p.config.batch_tiles, batch == 64 ? 8 : 4);
      EXPECT_EQ(gen::why_illegal(p.config), "");
    }
  EXPECT_EQ(plan_batched(batch_call(gen::DataType::F16, 512, 512, 1024, 64), true, kSms).config.batch_tiles, 1);
  EXPECT_EQ(plan_batched(batch_call(gen::DataType::F16, 128, 128, 256, 8), true, kSms).config.batch_tiles, 1);
  // N = 64 or 192: 128-wide blocks would pad N by half or a third more than 64-wide ones.
  for (const std::int64_t n : {64, 192})
    EXPECT_NE(plan_batched(batch_call(gen::DataType::F16, 512, n, 256, 256), true, kSms).config.nl, 128) << n;
}

// Where the entries read C, those at most 384 deep run one entry a block on two stages (perf notes
// §136), on the same batches as at beta 0; at K = 512 the entries by waves still (8 here). Beta on
// the device counts as reading C.
TEST(BatchedPlan, MidDepthBatchesThatReadCRunOneEntryOnTwoStages) {
  for (const bool device_beta : {false, true})
    for (const std::int64_t k : {192, 256, 384, 512}) {
      GemmCall c = batch_call(gen::DataType::F16, 512, 512, k, 64);
      if (device_beta)
        c.device_scalars = true;
      else
        c.beta[0] = 1;
      const Plan p = plan_batched(c, true, kSms);
      SCOPED_TRACE(gen::kernel_name(p.config));
      EXPECT_EQ(p.config.ml, 64);
      EXPECT_EQ(p.config.nl, 128);
      EXPECT_EQ(p.config.stages, k <= 384 ? 2 : 4);
      EXPECT_EQ(p.config.batch_tiles, k <= 384 ? 1 : 8);
      EXPECT_EQ(gen::why_illegal(p.config), "");
    }
  // Too few tiles (two waves of four-entry blocks), as at beta 0: the cost model's plan.
  GemmCall few = batch_call(gen::DataType::F16, 128, 128, 256, 8);
  few.beta[1] = 0.5;
  const Plan p = plan_batched(few, true, kSms);
  EXPECT_FALSE(p.config.ml == 64 && p.config.nl == 128 && p.config.stages == 2);
}

}  // namespace
}  // namespace ptxblas::dispatch
