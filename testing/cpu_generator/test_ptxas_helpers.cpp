// The level-3 helper kernels (element-wise helpers, small triangular inverse, LU's row
// interchanges) for every type and variant, assembled for sm_80 and sm_90: no spills, no stack,
// shared memory as declared.
#include <gtest/gtest.h>

#include <vector>

#include "matrix_helpers_ptx.hpp"
#include "ptxas_runner.hpp"

namespace {

using ptxblas::gen::DataType;
using ptxblas::gen::HelperKind;
using ptxblas::gen::MatrixHelper;

constexpr DataType kTypes[] = {DataType::F32, DataType::F64, DataType::C32, DataType::C64};

std::vector<MatrixHelper> all_helpers() {
  std::vector<MatrixHelper> v;
  for (DataType t : kTypes) {
    v.push_back({HelperKind::Copy, t});
    v.push_back({HelperKind::Scale, t});
    for (bool lower : {true, false}) {
      for (bool herm : {false, true}) {
        if (herm && !ptxblas::gen::is_complex(t)) continue;
        v.push_back({HelperKind::Symmetrize, t, lower, herm});
      }
      for (bool unit : {false, true}) v.push_back({HelperKind::Triangle, t, lower, false, unit});
    }
  }
  return v;
}

void expect_clean(const ptxblas::gen::GeneratedKernel& k, int sm) {
  const PtxasReport r = run_ptxas(k.ptx, sm);
  ASSERT_TRUE(r.ok) << k.name << " sm_" << sm << "\n" << r.log << "\n" << k.ptx;
  EXPECT_EQ(r.spill_bytes, 0) << k.name;
  EXPECT_EQ(r.stack_bytes, 0) << k.name;
  EXPECT_EQ(r.smem_bytes, k.resources.smem_bytes) << k.name;
}

TEST(PtxasHelpers, ElementwiseHelpersAssemble) {
  std::vector<std::string> names;
  for (const MatrixHelper& h : all_helpers())
    for (int sm : {80, 90}) {
      const auto k = ptxblas::gen::generate_matrix_helper(h, sm);
      expect_clean(k, sm);
      if (sm == 80) names.push_back(k.name);
    }
  // Every variant has its own name (the kernel cache is keyed by it).
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

TEST(PtxasHelpers, TriangularInversesAssemble) {
  for (DataType t : kTypes)
    for (int width : ptxblas::gen::kInverseWidths)
      for (bool lower : {true, false})
        for (bool unit : {false, true})
          for (int sm : {80, 90}) {
            const auto k = ptxblas::gen::generate_triangular_inverse(t, lower, unit, width, sm);
            expect_clean(k, sm);
            EXPECT_EQ(k.resources.threads, width);
            EXPECT_EQ(k.dynamic_smem, ptxblas::gen::inverse_smem_bytes(t, width));
          }
}

TEST(PtxasHelpers, RowSwapsAssemble) {
  for (DataType t : kTypes)
    for (int sm : {80, 90}) {
      const auto k = ptxblas::gen::generate_row_swaps(t, sm);
      expect_clean(k, sm);
      EXPECT_EQ(k.resources.threads, ptxblas::gen::kRowSwapThreads);
    }
}

TEST(PtxasHelpers, LuColumnsAssemble) {
  for (DataType t : kTypes)
    for (int sm : {80, 90}) {
      const auto k = ptxblas::gen::generate_lu_columns(t, sm);
      expect_clean(k, sm);
      EXPECT_EQ(k.resources.threads, ptxblas::gen::kLuThreads);
      EXPECT_EQ(k.dynamic_smem, ptxblas::gen::lu_columns_smem_bytes());
    }
}

// The widest inverse whose tile fits 227 KiB (sm_90's opt-in maximum): S, D, C 128; Z 64 (its
// 128-wide tile needs ~268 KiB).
TEST(PtxasHelpers, InverseWidthsFitSharedMemory) {
  const int limit = ptxblas::gen::Limits{}.max_dynamic_smem;
  EXPECT_EQ(ptxblas::gen::max_inverse_width(DataType::F32, limit), 128);
  EXPECT_EQ(ptxblas::gen::max_inverse_width(DataType::F64, limit), 128);
  EXPECT_EQ(ptxblas::gen::max_inverse_width(DataType::C32, limit), 128);
  EXPECT_EQ(ptxblas::gen::max_inverse_width(DataType::C64, limit), 64);
  EXPECT_GT(ptxblas::gen::inverse_smem_bytes(DataType::C64, 128), limit);
  EXPECT_EQ(ptxblas::gen::max_inverse_width(DataType::C64, 1000), 0);
}

TEST(PtxasHelpers, HalfTypesAreRefused) {
  EXPECT_THROW(ptxblas::gen::generate_matrix_helper({HelperKind::Copy, DataType::F16}, 90), std::invalid_argument);
  EXPECT_THROW(ptxblas::gen::generate_triangular_inverse(DataType::BF16, true, false, 32, 90), std::invalid_argument);
  EXPECT_THROW(ptxblas::gen::generate_triangular_inverse(DataType::F64, true, false, 48, 90), std::invalid_argument);
}

}  // namespace
