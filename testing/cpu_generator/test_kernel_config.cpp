#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernel_config.hpp"
#include "load_plan.hpp"
#include "param_space.hpp"
#include "resources.hpp"
#include "simt_gemm_ptx.hpp"
#include "tile_catalog.hpp"

using namespace ptxblas::gen;

namespace {

// A variant flag makes a legal kernel of its own: the base's name with `suffix`, its own key.
void expect_own_variant(const KernelConfig& variant, const KernelConfig& base, const std::string& suffix) {
  EXPECT_EQ(kernel_name(variant), kernel_name(base) + suffix);
  ASSERT_TRUE(config_key(variant) && config_key(base));
  EXPECT_FALSE(*config_key(variant) == *config_key(base));
  EXPECT_EQ(why_illegal(variant), "");
}

}  // namespace

TEST(KernelConfig, NamesAreCanonicalForRealTypes) {
  KernelConfig c;
  c.op_a = Op::C;
  c.op_b = Op::N;
  EXPECT_EQ(kernel_name(canonical(c)), "simt_s_tn_64x64x8_4x4");
  c.data = DataType::C64;
  EXPECT_EQ(kernel_name(canonical(c)), "simt_z_cn_64x64x8_4x4");
  c.data = DataType::F16;
  c.scalar_f16 = true;
  EXPECT_EQ(kernel_name(canonical(c)), "simt_h16_tn_64x64x8_4x4");
}

TEST(LoadPlan, EveryTileElementIsLoadedExactlyOnce) {
  for (Op op : {Op::N, Op::T}) {
    for (Operand which : {Operand::A, Operand::B}) {
      KernelConfig c;
      c.op_a = c.op_b = op;
      c.ml = 128;
      c.nl = 32;
      c.ms = 8;
      c.ns = 2;  // 16 x 16 = 256 threads
      const LoadPlan p = make_load_plan(c, which);
      ASSERT_FALSE(p.offsets.empty());
      std::vector<int> hits(p.fast_extent * p.slow_extent, 0);
      for (int tid = 0; tid < c.threads(); ++tid) {
        const int bf = p.tid_wraps ? tid % p.fast_extent : tid;
        const int bs = p.tid_wraps ? tid / p.fast_extent : 0;
        for (auto [of, os] : p.offsets) {
          const int f = bf + of, s = bs + os;
          ASSERT_LT(f, p.fast_extent);
          ASSERT_LT(s, p.slow_extent);
          ++hits[s * p.fast_extent + f];
        }
      }
      for (int h : hits) EXPECT_EQ(h, 1);
    }
  }
}

// The legality checks' allocation-free shortcuts say what the full plan and the string API say,
// for every tile of the tuning space in every layout (C32: SIMT and mma both legal somewhere),
// and every 16th legal configuration's plans load each element of their tiles exactly once.
TEST(LoadPlan, ShortcutsAgreeWithTheFullPlan) {
  int legal = 0;
  auto covers_once = [](const KernelConfig& c, const LoadPlan& p) {
    std::vector<int> hits(static_cast<std::size_t>(p.fast_extent * p.slow_extent), 0);
    for (int tid = 0; tid < c.threads(); ++tid) {
      const int bf = p.tid_wraps ? tid % p.fast_extent : tid, bs = p.tid_wraps ? tid / p.fast_extent : 0;
      for (auto [of, os] : p.offsets) {
        const int f = bf + of, s = bs + os;
        if (f >= p.fast_extent || s >= p.slow_extent) return false;
        ++hits[static_cast<std::size_t>(s * p.fast_extent + f)];
      }
    }
    return std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
  };
  for_each_tile([&](const Tuning& tile) {
    KernelConfig base;
    base.data = DataType::C32;
    base = apply_tuning(base, tile);
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) {
        KernelConfig c = base;
        c.op_a = a;
        c.op_b = b;
        c = canonical(c);
        for (Operand which : {Operand::A, Operand::B}) {
          const LoadPlan full = make_load_plan(c, which), layout = make_load_layout(c, which);
          ASSERT_EQ(load_splits_evenly(layout, c.threads()), !full.offsets.empty()) << kernel_name(c);
          ASSERT_EQ(layout.smem_stride, full.smem_stride);
          ASSERT_EQ(layout.smem_rows, full.smem_rows);
        }
        const char* why = illegal_reason(c);
        ASSERT_EQ(why_illegal(c), why ? why : "");
        if (why == nullptr && legal++ % 16 == 0) {
          for (Operand which : {Operand::A, Operand::B})
            ASSERT_TRUE(covers_once(c, make_load_plan(c, which))) << kernel_name(c);
        }
      }
    const char* excluded = exclusion_reason(DataType::C32, tile);
    ASSERT_EQ(why_excluded(DataType::C32, tile), excluded ? excluded : "");
  });
  EXPECT_GT(legal, 1000);
}

TEST(Generator, IsAPureFunction) {
  KernelConfig c;
  c.data = DataType::C32;
  c.op_a = Op::C;
  EXPECT_EQ(generate_simt_gemm(c, 90).ptx, generate_simt_gemm(c, 90).ptx);
  EXPECT_NE(generate_simt_gemm(c, 90).ptx, generate_simt_gemm(c, 80).ptx);
}

// f64 kernels with warp tiles of 8 DMMAs a slice (32x32) load the next K-step's first fragments
// before the step's last DMMAs, so the loop's one barrier sits between DMMAs; with smaller warp
// tiles (32x16: measured slower so) the loop starts at its barrier.
TEST(Generator, CrossStepFragmentsOnWarpTilesOfEightDmmas) {
  auto config = [](DataType t, int ml, int nl, int u, int ms, int ns) {
    KernelConfig c;
    c.data = t;
    return canonical(with_tile(c, Tile{ml, nl, u, ms, ns, 1, Family::Mma, false, 3}));
  };
  auto mma_before_loop_barrier = [](const KernelConfig& c) {
    const std::string ptx = generate_simt_gemm(c, 90).ptx;
    const size_t loop = ptx.find("L_k_loop:");
    const size_t barrier = ptx.find("bar.sync", loop);
    EXPECT_NE(barrier, std::string::npos);
    return ptx.substr(loop, barrier - loop).find("mma.sync") != std::string::npos;
  };
  const KernelConfig skinny = config(DataType::F64, 128, 64, 32, 32, 32);
  const KernelConfig square = config(DataType::F64, 64, 64, 16, 32, 32);
  for (const KernelConfig& c : {skinny, square}) {
    EXPECT_TRUE(cross_step_fragments(c)) << kernel_name(c);
    EXPECT_TRUE(mma_before_loop_barrier(c)) << kernel_name(c);
  }
  const KernelConfig narrow_warps = config(DataType::F64, 64, 32, 32, 32, 16);
  const KernelConfig one_slice = config(DataType::F64, 64, 128, 8, 32, 64);
  for (const KernelConfig& c : {narrow_warps, one_slice}) {
    EXPECT_FALSE(cross_step_fragments(c)) << kernel_name(c);  // 4 DMMAs a slice; one slice a step
    EXPECT_FALSE(mma_before_loop_barrier(c)) << kernel_name(c);
  }
  EXPECT_FALSE(cross_step_fragments(config(DataType::C64, 32, 64, 16, 16, 32)));
}

// The strided-batch variant (KernelConfig::batched): its own name and cache key, only as a plain
// unsplit kernel, with the strides as its last parameters and 3-D tensor copies on wgmma.
TEST(KernelConfig, BatchedVariantIsNamedKeyedAndPlainOnly) {
  for (const Tile& t : {tile_catalog(DataType::F64).front(), wgmma_catalog().front()}) {
    KernelConfig c;
    c.data = t.family == Family::Wgmma ? DataType::F16 : DataType::F64;
    c = with_tile(c, t);
    KernelConfig b = c;
    b.batched = true;
    expect_own_variant(b, c, "_bt");
    const std::string ptx = generate_simt_gemm(b, 90).ptx;
    EXPECT_NE(ptx.find(".param .s64 p_stride_a, .param .s64 p_stride_b, .param .s64 p_stride_c)"), std::string::npos);
    EXPECT_EQ(ptx.find("bulk.tensor.2d"), std::string::npos);
    if (t.family == Family::Wgmma) EXPECT_NE(ptx.find("bulk.tensor.3d"), std::string::npos);
    EXPECT_EQ(generate_simt_gemm(c, 90).ptx.find("p_stride_a"), std::string::npos);
    // Arrays of the entries' pointers: no strides, SIMT and mma only.
    KernelConfig p = b;
    p.batch_pointers = true;
    EXPECT_EQ(kernel_name(p), kernel_name(c) + "_btp");
    ASSERT_TRUE(config_key(p));
    EXPECT_FALSE(*config_key(p) == *config_key(b));
    EXPECT_EQ(why_illegal(p).empty(), t.family != Family::Wgmma);
    if (t.family != Family::Wgmma) {
      const std::string pptx = generate_simt_gemm(p, 90).ptx;
      EXPECT_EQ(pptx.find("p_stride_a"), std::string::npos);
      EXPECT_NE(pptx.find("ld.global.u64"), std::string::npos);
    }
    for (auto variant : {&KernelConfig::fill, &KernelConfig::out_of_place, &KernelConfig::fused_split}) {
      KernelConfig v = b;
      v.*variant = true;
      EXPECT_NE(why_illegal(v), "") << kernel_name(v);
    }
  }
}

// Several entries a block (batch_tiles): strided wgmma batches only, 1 to 63; named "_z<n>" before
// "_bt", keyed apart from one entry a block; the kernel takes the entry count last, keeps its
// staging after the stages (the barriers after the staging) and has no f32 staged store.
TEST(KernelConfig, SeveralEntriesABlockAreForStridedWgmmaBatches) {
  KernelConfig b;
  b.data = DataType::BF16;
  b = with_tile(b, wgmma_catalog().back());  // 64x64
  b.stages = 2;
  b.batched = true;
  KernelConfig z = b;
  z.batch_tiles = 4;
  EXPECT_EQ(why_illegal(z), "");
  EXPECT_EQ(kernel_name(z), "wgmma_b_nn_64x64x64_64x64_s2_z4_bt");
  ASSERT_TRUE(config_key(z) && config_key(b));
  EXPECT_FALSE(*config_key(z) == *config_key(b));
  const int stages = 2 * (64 + 64) * 64 * 2;
  EXPECT_EQ(wgmma_tma_staging_offset(b), 0);
  EXPECT_EQ(wgmma_tma_staging_offset(z), stages);
  EXPECT_EQ(wgmma_barrier_offset(z), stages + 64 * 64 * 2);
  EXPECT_EQ(dynamic_smem_bytes(z), dynamic_smem_bytes(b) + 64 * 64 * 2);  // 64x64 b: barriers after the stages
  const std::string ptx = generate_simt_gemm(z, 90).ptx;
  EXPECT_NE(ptx.find(".param .s64 p_stride_c,\n  .param .s32 p_entries)"), std::string::npos);
  EXPECT_NE(ptx.find("mul.lo.u32 %v_batch, %v_batch, 4"), std::string::npos);
  EXPECT_EQ(ptx.find("st.shared.f32"), std::string::npos);  // no staged store over the stages
  EXPECT_EQ(generate_simt_gemm(b, 90).ptx.find("p_entries"), std::string::npos);
  for (const int bad : {0, 64}) {
    KernelConfig v = z;
    v.batch_tiles = bad;
    EXPECT_NE(why_illegal(v), "") << bad;
  }
  KernelConfig plain = z;
  plain.batched = false;
  EXPECT_NE(why_illegal(plain), "");
  KernelConfig simt;
  simt.batched = true;
  EXPECT_EQ(why_illegal(simt), "");
  simt.batch_tiles = 2;
  EXPECT_NE(why_illegal(simt), "");
}

// Clamped edges (§151): a kernel of its own (name, key) where its copies can run unchecked (mma,
// SIMT with unbounded copies), nothing elsewhere; its slots past M (N) are moved back inside.
TEST(KernelConfig, LateFetchOnlyInZsPlanarRegisterStagesWithoutConjugation) {
  KernelConfig c;
  c.data = DataType::C64;
  c = with_tile(c, tile_catalog(DataType::C64).front());
  c.stages = 2;
  ASSERT_TRUE(c64_planes(c));
  KernelConfig late = c;
  late.late_fetch = true;
  expect_own_variant(late, c, "_lf");
  // The fetch (the K count's step down) comes after the loop's stores in the late form, before
  // its fragment loads in the plain one.
  auto fetch_after_stores = [](const std::string& ptx) {
    const size_t loop = ptx.find("L_k_loop:");
    const size_t count = ptx.find("sub.s32 %v_krem, %v_krem,", loop), store = ptx.find("st.shared.f64", loop);
    EXPECT_NE(count, std::string::npos);
    EXPECT_NE(store, std::string::npos);
    return count > store;
  };
  EXPECT_TRUE(fetch_after_stores(generate_simt_gemm(late, 90).ptx));
  EXPECT_FALSE(fetch_after_stores(generate_simt_gemm(c, 90).ptx));
  // Dropped: a conjugated operand, cp.async stages, {re, im} pairs (shallower warp tiles), f64.
  std::vector<KernelConfig> moot(4, late);
  moot[0].op_a = Op::C;
  moot[1].op_b = Op::C;
  moot[2].stages = 3;
  moot[3].data = DataType::F64;
  KernelConfig pairs = with_tile(late, tile_catalog(DataType::C64)[1]);
  pairs.stages = 2;
  moot.push_back(pairs);
  for (const KernelConfig& v : moot) {
    EXPECT_FALSE(canonical(v).late_fetch) << kernel_name(v);
    EXPECT_EQ(kernel_name(v).find("_lf"), std::string::npos);
  }
}

TEST(KernelConfig, ClampedEdgesOnlyWhereCopiesRunUnchecked) {
  KernelConfig c;
  c.data = DataType::F64;
  c = with_tile(c, tile_catalog(DataType::F64).front());
  c.stages = 3;
  ASSERT_EQ(c.family, Family::Mma);
  KernelConfig e = c;
  e.clamp_edges = true;
  expect_own_variant(e, c, "_ce");
  const std::string clamped = generate_simt_gemm(e, 90).ptx, plain = generate_simt_gemm(c, 90).ptx;
  EXPECT_NE(clamped.find("%v_p_clamp"), std::string::npos);
  EXPECT_NE(clamped.find("setp.eq.or.s32 %v_a_inner, %v_a_mnpart, 0, %v_a_inner;"), std::string::npos);
  EXPECT_NE(clamped.find("setp.eq.or.s32 %v_b_inner, %v_b_mnpart, 0, %v_b_inner;"), std::string::npos);
  EXPECT_EQ(plain.find("%v_p_clamp"), std::string::npos);
  EXPECT_EQ(plain.find("mnpart"), std::string::npos);
  // Register stages (checked copies only) and SIMT without unbounded copies: the flag is moot.
  for (KernelConfig v : {c, KernelConfig{}}) {
    if (v.family == Family::Mma) v.stages = 2;
    else v.stages = 3;
    v.clamp_edges = true;
    EXPECT_FALSE(canonical(v).clamp_edges) << kernel_name(v);
    EXPECT_EQ(kernel_name(v).find("_ce"), std::string::npos);
    v.unbounded = v.family == Family::Simt;
    EXPECT_EQ(canonical(v).clamp_edges, v.family == Family::Simt) << kernel_name(v);
    if (v.family == Family::Simt) EXPECT_NE(generate_simt_gemm(v, 90).ptx.find("%v_p_clamp"), std::string::npos);
  }
  // wgmma copies by TMA: no such slots, the flag dropped.
  KernelConfig w;
  w.data = DataType::F16;
  w = with_tile(w, wgmma_catalog().front());
  w.clamp_edges = true;
  EXPECT_FALSE(canonical(w).clamp_edges);
  EXPECT_EQ(kernel_name(w).find("_ce"), std::string::npos);
}
