// cuBLAS's argument checks on the level-3 entry points (S, D, C, Z; _v2 and _64): each bad
// argument returns its status before any GPU work or handle query, "error: <status>" is the last
// call, and empty problems return SUCCESS as "empty". Nothing here reaches cuBLAS.
#include <gtest/gtest.h>

#include <cublas_api.h>

#include <string>

#include "shim_loader.hpp"

namespace {

const auto kH = reinterpret_cast<cublasHandle_t>(0x1);  // never dereferenced: checks fail first
const auto kBadOp = static_cast<cublasOperation_t>(9);
const auto kBadSide = static_cast<cublasSideMode_t>(5);
const auto kBadUplo = CUBLAS_FILL_MODE_FULL;
const auto kBadDiag = static_cast<cublasDiagType_t>(7);
const auto L = CUBLAS_SIDE_LEFT, R = CUBLAS_SIDE_RIGHT;
const auto Lo = CUBLAS_FILL_MODE_LOWER, Up = CUBLAS_FILL_MODE_UPPER;
const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T, C = CUBLAS_OP_C;
const auto NU = CUBLAS_DIAG_NON_UNIT;

template <class E>
struct Names;
template <>
struct Names<float> {
  static constexpr char p = 'S';
  using R = float;
  static constexpr bool cplx = false;
};
template <>
struct Names<double> {
  static constexpr char p = 'D';
  using R = double;
  static constexpr bool cplx = false;
};
template <>
struct Names<cuComplex> {
  static constexpr char p = 'C';
  using R = float;
  static constexpr bool cplx = true;
};
template <>
struct Names<cuDoubleComplex> {
  static constexpr char p = 'Z';
  using R = double;
  static constexpr bool cplx = true;
};

template <class E>
class Level3Validation : public ::testing::Test {
 protected:
  template <class Fn>
  Fn fn(const std::string& routine) {
    return reinterpret_cast<Fn>(cpushim::cublas_symbol((std::string("cublas") + Names<E>::p + routine).c_str()));
  }
  // The call returned `want`, named it as the last call, and counted nothing (errors) or one served call (empty).
  void expect(cublasStatus_t got, cublasStatus_t want, const std::string& what) {
    EXPECT_EQ(got, want) << what;
    if (want == CUBLAS_STATUS_SUCCESS)
      EXPECT_EQ(cpushim::last_call(), "empty") << what;
    else
      EXPECT_EQ(cpushim::last_call().rfind("error: CUBLAS_STATUS_", 0), 0u) << what << ": " << cpushim::last_call();
  }
  E one{}, buf[64]{};
  typename Names<E>::R real_one = 1;
};

using Types = ::testing::Types<float, double, cuComplex, cuDoubleComplex>;
TYPED_TEST_SUITE(Level3Validation, Types);

TYPED_TEST(Level3Validation, Symm) {
  using E = TypeParam;
  for (const char* name : {"symm_v2", "hemm_v2"}) {
    if (std::string(name) == "hemm_v2" && !Names<E>::cplx) continue;
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int, const E*, const E*,
                                  int, const E*, int, const E*, E*, int);
    const Fn f = this->template fn<Fn>(name);
    E* b = this->buf;
    const E* a = &this->one;
    const auto INV = CUBLAS_STATUS_INVALID_VALUE;
    this->expect(f(nullptr, L, Lo, 4, 4, a, b, 4, b, 4, a, b, 4), CUBLAS_STATUS_NOT_INITIALIZED, "null handle");
    this->expect(f(kH, kBadSide, Lo, 4, 4, a, b, 4, b, 4, a, b, 4), INV, "side");
    this->expect(f(kH, L, kBadUplo, 4, 4, a, b, 4, b, 4, a, b, 4), INV, "uplo FULL");
    this->expect(f(kH, L, Lo, -1, 4, a, b, 4, b, 4, a, b, 4), INV, "m < 0");
    this->expect(f(kH, L, Lo, 4, -1, a, b, 4, b, 4, a, b, 4), INV, "n < 0");
    this->expect(f(kH, L, Lo, 4, 6, a, b, 3, b, 4, a, b, 4), INV, "lda < m (left)");
    this->expect(f(kH, R, Lo, 4, 6, a, b, 5, b, 4, a, b, 4), INV, "lda < n (right)");
    this->expect(f(kH, L, Lo, 4, 4, a, b, 4, b, 3, a, b, 4), INV, "ldb < m");
    this->expect(f(kH, L, Lo, 4, 4, a, b, 4, b, 4, a, b, 3), INV, "ldc < m");
    this->expect(f(kH, L, Lo, 4, 4, nullptr, b, 4, b, 4, a, b, 4), INV, "null alpha");
    this->expect(f(kH, L, Lo, 4, 4, a, b, 4, b, 4, nullptr, b, 4), INV, "null beta");
    this->expect(f(kH, L, Lo, 0, 4, a, b, 1, b, 1, a, b, 1), CUBLAS_STATUS_SUCCESS, "m = 0");
    this->expect(f(kH, R, Up, 4, 0, a, b, 1, b, 4, a, b, 4), CUBLAS_STATUS_SUCCESS, "n = 0");
  }
}

TYPED_TEST(Level3Validation, RankK) {
  using E = TypeParam;
  using RS = typename Names<E>::R;
  using FnK = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const void*, const E*,
                                 int, const void*, E*, int);
  using Fn2 = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const void*, const E*,
                                 int, const E*, int, const void*, E*, int);
  const auto INV = CUBLAS_STATUS_INVALID_VALUE;
  E* b = this->buf;
  for (bool herm : {false, true}) {
    if (herm && !Names<E>::cplx) continue;
    const void* alpha = herm ? static_cast<const void*>(&this->real_one) : static_cast<const void*>(&this->one);
    const void* beta = alpha;
    // The op that is wrong for this family: HERK takes N/C, complex SYRK N/T, real SYRK all three.
    const cublasOperation_t other = herm ? C : T;
    const FnK k1 = this->template fn<FnK>(herm ? "herk_v2" : "syrk_v2");
    this->expect(k1(nullptr, Lo, N, 4, 4, alpha, b, 4, beta, b, 4), CUBLAS_STATUS_NOT_INITIALIZED, "null handle");
    this->expect(k1(kH, kBadUplo, N, 4, 4, alpha, b, 4, beta, b, 4), INV, "uplo");
    this->expect(k1(kH, Lo, kBadOp, 4, 4, alpha, b, 4, beta, b, 4), INV, "trans");
    if (Names<E>::cplx) this->expect(k1(kH, Lo, herm ? T : C, 4, 4, alpha, b, 4, beta, b, 4), INV, "trans not allowed");
    this->expect(k1(kH, Lo, N, -1, 4, alpha, b, 4, beta, b, 4), INV, "n < 0");
    this->expect(k1(kH, Lo, N, 4, -1, alpha, b, 4, beta, b, 4), INV, "k < 0");
    this->expect(k1(kH, Lo, N, 6, 4, alpha, b, 5, beta, b, 6), INV, "lda < n (N)");
    this->expect(k1(kH, Lo, other, 6, 4, alpha, b, 3, beta, b, 6), INV, "lda < k (T/C)");
    this->expect(k1(kH, Up, N, 6, 4, alpha, b, 6, beta, b, 5), INV, "ldc < n");
    this->expect(k1(kH, Lo, N, 4, 4, nullptr, b, 4, beta, b, 4), INV, "null alpha");
    this->expect(k1(kH, Lo, N, 4, 4, alpha, b, 4, nullptr, b, 4), INV, "null beta");
    this->expect(k1(kH, Lo, N, 0, 4, alpha, b, 1, beta, b, 1), CUBLAS_STATUS_SUCCESS, "n = 0");
    for (const char* two : {"syr2k_v2", "syrkx"}) {
      std::string name = two;
      if (herm) name = name == "syr2k_v2" ? "her2k_v2" : "herkx";
      const Fn2 f = this->template fn<Fn2>(name);
      const void* a2 = &this->one;  // SYR2K/HER2K/SYRKX/HERKX: alpha of the element type
      this->expect(f(kH, Lo, N, 6, 4, a2, b, 6, b, 5, beta, b, 6), INV, name + " ldb < n");
      this->expect(f(kH, Lo, other, 6, 4, a2, b, 4, b, 3, beta, b, 6), INV, name + " ldb < k");
      this->expect(f(kH, Lo, kBadOp, 6, 4, a2, b, 6, b, 6, beta, b, 6), INV, name + " trans");
      this->expect(f(kH, Lo, N, 0, 0, a2, b, 1, b, 1, beta, b, 1), CUBLAS_STATUS_SUCCESS, name + " n = 0");
    }
  }
  (void)sizeof(RS);
}

TYPED_TEST(Level3Validation, TrmmAndTrsm) {
  using E = TypeParam;
  using FnM = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, int, int, const E*, const E*, int, const E*, int, E*, int);
  using FnS = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, int, int, const E*, const E*, int, E*, int);
  const FnM m = this->template fn<FnM>("trmm_v2");
  const FnS s = this->template fn<FnS>("trsm_v2");
  const auto INV = CUBLAS_STATUS_INVALID_VALUE;
  E* b = this->buf;
  const E* a = &this->one;
  this->expect(m(nullptr, L, Lo, N, NU, 4, 4, a, b, 4, b, 4, b, 4), CUBLAS_STATUS_NOT_INITIALIZED, "trmm handle");
  this->expect(s(nullptr, L, Lo, N, NU, 4, 4, a, b, 4, b, 4), CUBLAS_STATUS_NOT_INITIALIZED, "trsm handle");
  this->expect(m(kH, kBadSide, Lo, N, NU, 4, 4, a, b, 4, b, 4, b, 4), INV, "trmm side");
  this->expect(s(kH, L, kBadUplo, N, NU, 4, 4, a, b, 4, b, 4), INV, "trsm uplo");
  this->expect(m(kH, L, Lo, kBadOp, NU, 4, 4, a, b, 4, b, 4, b, 4), INV, "trmm trans");
  this->expect(s(kH, L, Lo, C, kBadDiag, 4, 4, a, b, 4, b, 4), INV, "trsm diag");
  this->expect(s(kH, L, Lo, N, NU, -1, 4, a, b, 4, b, 4), INV, "trsm m < 0");
  this->expect(m(kH, R, Lo, T, NU, 4, -1, a, b, 4, b, 4, b, 4), INV, "trmm n < 0");
  this->expect(s(kH, L, Lo, N, NU, 6, 4, a, b, 5, b, 6), INV, "trsm lda < m (left)");
  this->expect(s(kH, R, Up, N, NU, 4, 6, a, b, 5, b, 4), INV, "trsm lda < n (right)");
  this->expect(s(kH, L, Lo, N, NU, 6, 4, a, b, 6, b, 5), INV, "trsm ldb < m");
  this->expect(m(kH, L, Lo, N, NU, 6, 4, a, b, 6, b, 6, b, 5), INV, "trmm ldc < m");
  this->expect(s(kH, L, Lo, N, NU, 4, 4, nullptr, b, 4, b, 4), INV, "trsm null alpha");
  this->expect(m(kH, L, Lo, N, NU, 4, 4, nullptr, b, 4, b, 4, b, 4), INV, "trmm null alpha");
  this->expect(s(kH, L, Lo, N, NU, 0, 4, a, b, 1, b, 1), CUBLAS_STATUS_SUCCESS, "trsm m = 0");
  this->expect(m(kH, R, Up, C, CUBLAS_DIAG_UNIT, 4, 0, a, b, 1, b, 4, b, 4), CUBLAS_STATUS_SUCCESS, "trmm n = 0");
}

// The 64-bit variants share the checks: one of each family.
TEST(Level3Validation64, SameChecks) {
  using FnS = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, std::int64_t, std::int64_t, const double*, const double*,
                                 std::int64_t, double*, std::int64_t);
  const auto s = reinterpret_cast<FnS>(cpushim::cublas_symbol("cublasDtrsm_v2_64"));
  double one = 1, buf[16] = {};
  EXPECT_EQ(s(kH, L, Lo, N, NU, std::int64_t{1} << 33, 4, &one, buf, 4, buf, 4), CUBLAS_STATUS_INVALID_VALUE)
      << "lda far below m";
  EXPECT_EQ(s(kH, L, Lo, N, NU, 0, 4, &one, buf, 1, buf, 1), CUBLAS_STATUS_SUCCESS);
  using FnK = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, std::int64_t, std::int64_t,
                                 const float*, const cuComplex*, std::int64_t, const float*, cuComplex*, std::int64_t);
  const auto k = reinterpret_cast<FnK>(cpushim::cublas_symbol("cublasCherk_v2_64"));
  float r = 1;
  cuComplex c[16] = {};
  EXPECT_EQ(k(kH, Lo, T, 4, 4, &r, c, 4, &r, c, 4), CUBLAS_STATUS_INVALID_VALUE) << "HERK takes no T";
}

}  // namespace
