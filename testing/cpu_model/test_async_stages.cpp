// Lowering plans to cp.async stages (dispatch/async_stages.hpp): which plans move, and that every
// legal register-staged configuration stays legal with three cp.async stages, as the lowering
// assumes without checking (it runs on every call).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "async_stages.hpp"
#include "param_space.hpp"
#include "resources.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {
namespace {

// The type's first catalogued mma tile, or a 64x64 SIMT tile of 4x4 threads, or a wgmma tile.
Plan plan_of(gen::DataType t, gen::Family f, int stages, int kg) {
  Plan p;
  p.config.data = t;
  if (f == gen::Family::Mma) p.config = gen::with_tile(p.config, gen::tile_catalog(t).front());
  if (f == gen::Family::Wgmma) p.config = gen::with_tile(p.config, gen::wgmma_catalog().front());
  p.config.family = f;
  p.config.stages = stages;
  p.kg = kg;
  return p;
}

TEST(AsyncStages, LowersTheTypesWhereTheyMeasuredFaster) {
  using gen::DataType;
  using gen::Family;
  for (DataType t : {DataType::F64, DataType::C64})
    for (int stages : {1, 2}) {
      EXPECT_EQ(with_async_stages(plan_of(t, Family::Mma, stages, 1)).config.stages, 3);
      EXPECT_EQ(with_async_stages(plan_of(t, Family::Simt, stages, 4)).config.stages, 3);
    }
  EXPECT_EQ(with_async_stages(plan_of(DataType::F32, Family::Simt, 2, 4)).config.stages, 3);
  // Kept: unsplit f32, complex f32 (unmeasured), f16, wgmma.
  EXPECT_EQ(with_async_stages(plan_of(DataType::F32, Family::Simt, 2, 1)).config.stages, 2);
  EXPECT_EQ(with_async_stages(plan_of(DataType::C32, Family::Simt, 1, 4)).config.stages, 1);
  EXPECT_EQ(with_async_stages(plan_of(DataType::F16, Family::Mma, 2, 4)).config.stages, 2);
  EXPECT_EQ(with_async_stages(plan_of(DataType::F16, Family::Wgmma, 4, 1)).config.stages, 4);
}

TEST(AsyncStages, ZsDeepWarpTilesGoBackToRegisterStages) {
  using gen::DataType;
  using gen::Family;
  // Z's first tile, 64x64x8 of 64x16 warp tiles, as the model and the lowering leave it (§97).
  ASSERT_EQ(gen::tile_catalog(DataType::C64).front().ms, 64);
  for (int kg : {1, 16}) {
    const Plan z = with_async_stages(plan_of(DataType::C64, Family::Mma, 2, kg));
    ASSERT_EQ(z.config.stages, 3);
    const Plan back = with_register_stages(z);
    EXPECT_EQ(back.config.stages, 2);
    EXPECT_EQ(back.kg, kg);
    EXPECT_EQ(gen::kernel_name(back.config), "mma_z_nn_64x64x8_64x16_s2");
  }
  // Kept: shallower c64 warp tiles, deeper K-steps, f64's tiles, register-staged plans.
  Plan shallow = with_async_stages(plan_of(DataType::C64, Family::Mma, 2, 1));
  shallow.config = gen::with_tile(shallow.config, gen::tile_catalog(DataType::C64)[1]);
  shallow.config.stages = 3;
  EXPECT_EQ(with_register_stages(shallow).config.stages, 3);
  Plan deep = plan_of(DataType::C64, Family::Mma, 3, 1);
  deep.config.u = 16;
  EXPECT_EQ(with_register_stages(deep).config.stages, 3);
  EXPECT_EQ(with_register_stages(plan_of(DataType::F64, Family::Mma, 3, 1)).config.stages, 3);
  EXPECT_EQ(with_register_stages(plan_of(DataType::C64, Family::Mma, 1, 1)).config.stages, 1);
}

TEST(AsyncStages, LateFetchForZsPlanarSquaresOfDeepK) {
  using gen::DataType;
  using gen::Family;
  Plan z = with_register_stages(with_async_stages(plan_of(DataType::C64, Family::Mma, 2, 1)));
  ASSERT_EQ(gen::kernel_name(z.config), "mma_z_nn_64x64x8_64x16_s2");
  GemmCall call;
  call.data = DataType::C64;
  call.m = call.n = 2048;
  call.k = kLateFetchMinK;
  EXPECT_TRUE(late_fetch_fits(call, z));
  call.k = kLateFetchMinK - 8;  // short K lost with it (§157)
  EXPECT_FALSE(late_fetch_fits(call, z));
  // A split: its slices' depth decides.
  call.k = 60000;
  z.kg = 16, z.kchunk = 3752;
  EXPECT_TRUE(late_fetch_fits(call, z));
  z.kchunk = 64;
  EXPECT_FALSE(late_fetch_fits(call, z));
  z.kg = 1, z.kchunk = 0;
  // Not: a conjugated operand, batches, cp.async stages, other tiles and types.
  std::vector<Plan> others(4, z);
  others[0].config.op_a = gen::Op::C;
  others[1].config.op_b = gen::Op::C;
  others[2].config.batched = true;
  others[3].config.stages = 3;
  others.push_back(plan_of(DataType::F64, Family::Mma, 2, 1));
  Plan shallow = z;
  shallow.config = gen::with_tile(shallow.config, gen::tile_catalog(DataType::C64)[1]);
  shallow.config.stages = 2;
  others.push_back(shallow);
  for (const Plan& p : others) EXPECT_FALSE(late_fetch_fits(call, p)) << gen::kernel_name(p.config);
  // TN and TT as NN.
  z.config.op_a = gen::Op::T;
  EXPECT_TRUE(late_fetch_fits(call, z));
  z.config.op_b = gen::Op::T;
  EXPECT_TRUE(late_fetch_fits(call, z));
}

TEST(AsyncStages, F32VectorStagesOnlyForUnsplitSimtPlansWithAnOperandInVectors) {
  using gen::DataType;
  using gen::Family;
  Plan nt = plan_of(DataType::F32, Family::Simt, 2, 1);
  nt.config.ml = nt.config.nl = 128;  // S's large-square tile: 128x128 of 8x8, runs of 4
  nt.config.ms = nt.config.ns = 8;
  nt.config.vec = 4;
  nt.config.op_a = gen::Op::N;
  nt.config.op_b = gen::Op::T;
  EXPECT_EQ(with_f32_vector_stages(nt).config.stages, 3);
  EXPECT_FALSE(with_f32_vector_stages(nt).config.vec_copy_a);  // the launcher's to set
  EXPECT_FALSE(with_f32_vector_stages(nt).config.vec_copy_b);
  // Its plans copy without bounds checks inside the matrix (§55); split plans, lowered by
  // with_async_stages, keep the checked copies, and so does an unlowered plan's name.
  EXPECT_TRUE(with_f32_vector_stages(nt).config.unbounded);
  EXPECT_EQ(gen::kernel_name(with_f32_vector_stages(nt).config), "simt_s_nt_128x128x8_8x8_v4_s3_ub");
  EXPECT_FALSE(with_async_stages(plan_of(DataType::F32, Family::Simt, 2, 4)).config.unbounded);
  Plan split = nt;
  split.kg = 4;  // with_async_stages lowers split plans already
  EXPECT_EQ(with_f32_vector_stages(split).config.stages, 2);
  EXPECT_FALSE(with_f32_vector_stages(split).config.unbounded);
  // A split on cp.async stages keeps them; on tiles 128 wide and 64 or more on the other side its
  // copies go unbounded where an operand copies vectors (§145): 128 x 128 and 128 x 64 of 8 x 8
  // thread tiles, not 16 x 8 ones, 64 x 64, narrow 256 x 32 or TN.
  split.config.stages = 3;
  const Plan split_ub = with_f32_vector_stages(split);
  EXPECT_EQ(split_ub.config.stages, 3);
  EXPECT_EQ(split_ub.kg, 4);
  EXPECT_TRUE(split_ub.config.unbounded);
  EXPECT_EQ(gen::kernel_name(split_ub.config), "simt_s_nt_128x128x8_8x8_v4_s3_ub");
  Plan split64 = split;
  split64.config.nl = 64;
  split64.config.stages = 4;
  EXPECT_TRUE(with_f32_vector_stages(split64).config.unbounded);
  split64.config.ml = 64;
  split64.config.ms = 4;
  EXPECT_FALSE(with_f32_vector_stages(split64).config.unbounded);
  Plan wide_threads = split;  // 16 x 8 thread tiles (128 threads): lost 3% unbounded
  wide_threads.config.ms = 16;
  EXPECT_TRUE(gen::why_illegal(wide_threads.config).empty());
  EXPECT_FALSE(with_f32_vector_stages(wide_threads).config.unbounded);
  Plan narrow_split = split;
  narrow_split.config.ml = 256;
  narrow_split.config.nl = 32;
  EXPECT_TRUE(gen::why_illegal(narrow_split.config).empty());
  EXPECT_FALSE(with_f32_vector_stages(narrow_split).config.unbounded);
  Plan tn_split = split;
  tn_split.config.op_a = gen::Op::T;
  tn_split.config.op_b = gen::Op::N;
  EXPECT_FALSE(with_f32_vector_stages(tn_split).config.unbounded);
  Plan nn = nt;
  nn.config.op_b = gen::Op::N;  // B stored K-contiguous: A's vectors alone lower it (§45)
  EXPECT_EQ(with_f32_vector_stages(nn).config.stages, 3);
  Plan tt = nt;
  tt.config.op_a = gen::Op::T;  // A stored K-contiguous: B's vectors alone
  EXPECT_EQ(with_f32_vector_stages(tt).config.stages, 3);
  Plan tn = nt;
  tn.config.op_a = gen::Op::T;
  tn.config.op_b = gen::Op::N;  // neither operand M/N-contiguous: nothing to copy in vectors
  EXPECT_EQ(with_f32_vector_stages(tn).config.stages, 2);
  Plan narrow = nn;
  narrow.config.ml = narrow.config.nl = 32;  // S's 32x32 of 2x2, runs of 2: no 16-byte vectors
  narrow.config.ms = narrow.config.ns = 2;
  narrow.config.vec = 2;
  EXPECT_EQ(with_f32_vector_stages(narrow).config.stages, 2);
  gen::KernelConfig narrow3 = narrow.config;
  narrow3.stages = 3;
  EXPECT_TRUE(gen::why_illegal(narrow3).empty());  // kept for its copies, not for legality
  EXPECT_EQ(copy_vectors(narrow3), std::make_pair(1, 1));
  EXPECT_EQ(with_f32_vector_stages(plan_of(DataType::F64, Family::Mma, 2, 1)).config.stages, 2);
  EXPECT_EQ(with_f32_vector_stages(plan_of(DataType::C32, Family::Simt, 2, 1)).config.stages, 2);
  Plan async = nt;
  async.config.stages = 4;
  EXPECT_EQ(with_f32_vector_stages(async).config.stages, 4);
}

// A plain call's vector-stage form of 128 x 128 (8 x 8 thread tiles) on 128 x 256 (NT) or 256 x 128
// (NN) blocks where those divide C, fill their waves at least 0.95 and K is at least 1024 (§146).
TEST(AsyncStages, WideF32TilesWhereTheyDivideCAndFillTheirWaves) {
  using gen::DataType;
  using gen::Family;
  auto lowered = [](gen::Op a, gen::Op b) {
    Plan p = plan_of(DataType::F32, Family::Simt, 2, 1);
    p.config.ml = p.config.nl = 128;
    p.config.ms = p.config.ns = 8;
    p.config.vec = 4;
    p.config.op_a = a;
    p.config.op_b = b;
    return with_f32_vector_stages(p);
  };
  const gen::Op N = gen::Op::N, T = gen::Op::T;
  const Plan nt = lowered(N, T), nn = lowered(N, N);
  ASSERT_TRUE(nt.config.unbounded);
  ASSERT_TRUE(nn.config.unbounded);
  for (std::int64_t size : {2048, 4096, 6144, 8192}) {
    const gen::KernelConfig w = with_f32_wide_tile(nt, size, size, size, 132).config;
    EXPECT_EQ(gen::kernel_name(w), "simt_s_nt_128x256x8_8x16_v4_s3_ub") << size;
    EXPECT_EQ(gen::kernel_name(with_f32_wide_tile(nn, size, size, size, 132).config),
              "simt_s_nn_256x128x8_16x8_v4_s3_ub")
        << size;
  }
  EXPECT_EQ(with_f32_wide_tile(nn, 8192, 1024, 4096, 132).config.ml, 256);  // 256 tiles: 1.94 waves
  EXPECT_EQ(with_f32_wide_tile(nn, 4096, 4096, 1024, 132).config.ml, 256);
  // Kept: waves part-full (3072^2: 2.18 waves; 2304^2: 1.23), C not divided (3000 x 2000, 6000 x
  // 3000), K below 1024, TT and TN, a split, a plan not lowered (two stages, or the model's own
  // cp.async stages without unbounded copies), no SM count.
  auto kept = [](const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
    EXPECT_EQ(with_f32_wide_tile(p, m, n, k, 132).config, p.config) << m << " x " << n << " x " << k;
  };
  kept(nt, 3072, 3072, 3072);
  kept(nn, 2304, 2304, 2304);
  kept(nn, 3000, 2000, 1500);
  kept(nn, 6000, 3000, 3000);
  kept(nn, 4096, 4096, 512);
  kept(lowered(T, T), 4096, 4096, 4096);
  kept(lowered(T, N), 4096, 4096, 4096);
  Plan split = nt;
  split.kg = 2;
  kept(split, 4096, 4096, 4096);
  Plan own = nt;
  own.config.unbounded = false;
  kept(own, 4096, 4096, 4096);
  kept(plan_of(DataType::F32, Family::Simt, 2, 1), 4096, 4096, 4096);
  Plan runs2 = nt;  // runs of 2: not the measured tile
  runs2.config.vec = 2;
  ASSERT_TRUE(gen::why_illegal(runs2.config).empty());
  kept(runs2, 4096, 4096, 4096);
  EXPECT_EQ(with_f32_wide_tile(nt, 4096, 4096, 4096, 0).config, nt.config);
}

// A batch's f32 vector-stage form: the single calls' lowering, its unbounded copies kept on
// 128-wide tiles and on 64-wide ones the entries fill whole at least 1024 deep (§142, §144); plans
// it does not lower stay as they are.
TEST(AsyncStages, BatchVectorStagesCopyUnboundedOnWideTilesAndWholeEntries) {
  using gen::DataType;
  using gen::Family;
  Plan wide = plan_of(DataType::F32, Family::Simt, 2, 1);
  wide.config.batched = true;
  wide.config.ml = wide.config.nl = 128;
  wide.config.ms = wide.config.ns = 8;
  wide.config.vec = 4;
  wide.config.op_a = gen::Op::N;
  wide.config.op_b = gen::Op::T;
  for (std::int64_t size : {96, 128, 200}) {  // ragged entries too
    EXPECT_EQ(with_f32_batch_vector_stages(wide, size, size, 64).config, with_f32_vector_stages(wide).config);
    EXPECT_TRUE(with_f32_batch_vector_stages(wide, size, size, 64).config.unbounded);
  }
  // {tile side, m, n, k, unbounded}
  for (const auto& [side, m, n, k, unbounded] :
       {std::tuple{64, 128, 320, 1024, true}, std::tuple{64, 64, 64, 4096, true}, std::tuple{64, 128, 128, 64, false},
        std::tuple{64, 96, 128, 2048, false}, std::tuple{64, 128, 48, 1024, false}, std::tuple{32, 32, 32, 1024, false},
        std::tuple{32, 160, 96, 64, false}}) {
    Plan small = wide;
    small.config.ml = small.config.nl = side;
    small.config.u = 16;
    small.config.ms = small.config.ns = 4;
    const gen::KernelConfig c = with_f32_batch_vector_stages(small, m, n, k).config;
    SCOPED_TRACE(gen::kernel_name(c) + " on " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                 std::to_string(k));
    EXPECT_EQ(c.stages, 3);
    EXPECT_EQ(c.unbounded, unbounded);
    EXPECT_EQ(gen::why_illegal(c), "");
    Plan tn = small;  // no operand copies vectors: not lowered
    tn.config.op_a = gen::Op::T;
    tn.config.op_b = gen::Op::N;
    EXPECT_EQ(with_f32_batch_vector_stages(tn, m, n, k).config, tn.config);
  }
  const Plan f64 = plan_of(DataType::F64, Family::Mma, 3, 1);
  EXPECT_EQ(with_f32_batch_vector_stages(f64, 64, 64, 64).config, f64.config);
}

// Clamped edges (§151): f64's 64x32x16 blocks of 16x32 warp tiles in cp.async stages, C ending
// mid-tile in N, plain calls; NN, and TN with A in vectors and a fused split; no other tile,
// layout, type, width or call.
TEST(AsyncStages, ClampedEdgesOnTheMeasuredF64TileWhereNEndsMidTile) {
  gen::KernelConfig c;
  c.data = gen::DataType::F64;
  c.family = gen::Family::Mma;
  c.ml = 64, c.nl = 32, c.u = 16, c.ms = 16, c.ns = 32, c.stages = 3;
  c.op_a = c.op_b = gen::Op::N;
  ASSERT_EQ(gen::why_illegal(c), "");
  GemmCall call;
  call.data = gen::DataType::F64;
  call.m = 2560, call.n = 88, call.k = 4096;
  EXPECT_TRUE(clamp_edges_fit(call, c));
  call.n = 1039;
  EXPECT_TRUE(clamp_edges_fit(call, c));
  call.n = 96;  // no edge blocks in N
  EXPECT_FALSE(clamp_edges_fit(call, c));
  call.n = 88;
  // TN: with A's vectors and a fused split only.
  gen::KernelConfig tn = c;
  tn.op_a = gen::Op::T;
  EXPECT_FALSE(clamp_edges_fit(call, tn));
  tn.vec_copy_a = true;
  EXPECT_FALSE(clamp_edges_fit(call, tn));
  tn.fused_split = true;
  EXPECT_TRUE(clamp_edges_fit(call, tn));
  gen::KernelConfig nt = c;
  nt.op_b = gen::Op::T;  // B copied along N (vectors): nothing gained
  EXPECT_FALSE(clamp_edges_fit(call, nt));
  for (auto change : {+[](gen::KernelConfig& x) { x.u = 32; }, +[](gen::KernelConfig& x) { x.nl = 64; },
                      +[](gen::KernelConfig& x) { x.ms = 32, x.ns = 16; }, +[](gen::KernelConfig& x) { x.stages = 2; },
                      +[](gen::KernelConfig& x) { x.data = gen::DataType::C64; },
                      +[](gen::KernelConfig& x) { x.kl = 2; }, +[](gen::KernelConfig& x) { x.batched = true; }}) {
    gen::KernelConfig x = c;
    change(x);
    EXPECT_FALSE(clamp_edges_fit(call, x)) << gen::kernel_name(x);
  }
  // Only plain calls: no triangular output or operand, in place.
  for (auto change : {+[](GemmCall& x) { x.fill = gen::kFillLower; }, +[](GemmCall& x) { x.band = gen::kBandALower; },
                      +[](GemmCall& x) { x.d = &x; }}) {
    GemmCall x = call;
    change(x);
    EXPECT_FALSE(clamp_edges_fit(x, c));
  }
}

TEST(AsyncStages, LoweredPlansAreLegalAndAlmostEveryTileLowers) {
  int checked = 0, kept = 0;
  for (gen::DataType t : {gen::DataType::F64, gen::DataType::C64})
    gen::for_each_tile([&](const gen::Tuning& tile) {
      if (tile.stages > 2) return;  // already cp.async: kept as they are (tested above)
      for (gen::Op a : {gen::Op::N, gen::Op::T}) {
        Plan p;
        p.config.data = t;
        p.config.op_a = a;
        p.config.op_b = a == gen::Op::N ? gen::Op::T : gen::Op::N;
        p.config = gen::apply_tuning(p.config, tile);
        if (!gen::why_illegal(p.config).empty()) continue;
        const Plan lowered = with_async_stages(p);
        EXPECT_EQ(gen::why_illegal(lowered.config), "") << gen::kernel_name(lowered.config);
        kept += lowered.config.stages != 3;
        ++checked;
      }
    });
  EXPECT_GT(checked, 1000);
  // Only tiles at the register file's edge keep their register-staged pipeline.
  EXPECT_LT(kept * 50, checked) << kept << " of " << checked << " not lowered";
}

}  // namespace
}  // namespace ptxblas::dispatch
