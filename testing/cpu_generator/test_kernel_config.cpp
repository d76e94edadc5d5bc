#include <gtest/gtest.h>

#include "kernel_config.hpp"
#include "load_plan.hpp"
#include "simt_gemm_ptx.hpp"

using namespace ptxblas::gen;

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

TEST(Generator, IsAPureFunction) {
  KernelConfig c;
  c.data = DataType::C32;
  c.op_a = Op::C;
  EXPECT_EQ(generate_simt_gemm(c, 90).ptx, generate_simt_gemm(c, 90).ptx);
  EXPECT_NE(generate_simt_gemm(c, 90).ptx, generate_simt_gemm(c, 80).ptx);
}
