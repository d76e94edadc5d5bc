// LAPACK factorizations served whole on the GPU (shim/fortran_lapack.cpp): ?potrf_ and ?getrf_
// of libptxblas.so on host matrices, with every call sent to the device (test_host_offload.cpp's
// ptxblas.toml says "always"), against Netlib LAPACK on the same data: INFO equal, the factors to
// rounding (a residual for LU, whose pivots rounding may choose differently), padding rows and
// potrf's other triangle untouched. Sizes span several 256-wide panels and a ragged last one.
// gpu_check.sh runs these tests a second time with PTXBLAS_TEST_LU_PANELS=host (LU's panels by
// the host's LAPACK instead of the GPU's column kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_env.hpp"

using zd = std::complex<double>;
using cf = std::complex<float>;

extern "C" {
void dpotrf_(const char*, const int*, double*, const int*, int*, std::size_t);
void zpotrf_(const char*, const int*, zd*, const int*, int*, std::size_t);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void zgetrf_(const int*, const int*, zd*, const int*, int*, int*);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void cgetrf_(const int*, const int*, cf*, const int*, int*, int*);
}

namespace gputest {
namespace {

template <class T>
using PotrfFn = void (*)(const char*, const int*, T*, const int*, int*, std::size_t);
template <class T>
using GetrfFn = void (*)(const int*, const int*, T*, const int*, int*, int*);

template <class T>
T value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(u(g));
  else
    return T(static_cast<float>(u(g)), static_cast<float>(u(g)));
}

template <class T>
T conj_of(T v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return std::conj(v);
}

void expect_gpu(const std::string& what) {
  EXPECT_EQ(last_call().rfind("GPU (", 0), 0u) << what << ": " << last_call();
}

// B B^H + n I in ld rows (NaN in padding rows and the triangle opposite `uplo`); bad >= 0: the
// leading minor of order bad + 1 is not positive definite.
template <class T>
std::vector<T> spd(int n, int ld, char uplo, int bad, std::mt19937_64& g) {
  std::vector<T> b(static_cast<std::size_t>(n) * n), a(static_cast<std::size_t>(ld) * n);
  for (T& x : b) x = value<T>(g);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ld; ++i) {
      const bool other = uplo == 'L' ? i < j : i > j;
      T s{};
      if (i < n && !other) {
        for (int l = 0; l < n; ++l) s += b[i + static_cast<std::size_t>(l) * n] * conj_of(b[j + static_cast<std::size_t>(l) * n]);
        if (i == j) s = T(std::real(s) + n);
        if (bad >= 0 && i == bad && j == bad) s = T(-1);
        if (bad >= 0 && (i == bad) != (j == bad)) s = T(0);
      }
      a[i + static_cast<std::size_t>(j) * ld] = i >= n || other ? T(nan) : s;
    }
  return a;
}

template <class T>
void check_potrf(PotrfFn<T> netlib, const char* symbol, int n, char uplo, int bad, std::mt19937_64& g) {
  const auto mine = reinterpret_cast<PotrfFn<T>>(ptxblas_symbol(symbol));
  ASSERT_NE(mine, nullptr);
  const int ld = n + 5;
  auto a = spd<T>(n, ld, uplo, bad, g), want = a;
  int info = -99, want_info = -99;
  netlib(&uplo, &n, want.data(), &ld, &want_info, 1);
  mine(&uplo, &n, a.data(), &ld, &info, 1);
  const std::string what = std::string(symbol) + " " + uplo + " n=" + std::to_string(n);
  expect_gpu(what);
  EXPECT_EQ(info, want_info) << what;
  if (want_info != 0) return;
  double scale = 1, diff = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ld; ++i) {
      const std::size_t at = i + static_cast<std::size_t>(j) * ld;
      if (i >= n || (uplo == 'L' ? i < j : i > j)) {
        EXPECT_TRUE(std::isnan(std::real(a[at]))) << what << ": wrote (" << i << ", " << j << ")";
        continue;
      }
      scale = std::max(scale, std::abs(want[at]));
      diff = std::max(diff, std::abs(a[at] - want[at]));
    }
  EXPECT_LT(diff / scale, 1e-11) << what;
}

// max |P A - L U| / max |A| from the factors in `lu` and LAPACK's ipiv.
template <class T>
double lu_residual(const std::vector<T>& a, const std::vector<T>& lu, const std::vector<int>& ipiv, int m, int n, int ld) {
  const int mn = std::min(m, n);
  std::vector<T> pa(a);
  for (int r = 0; r < mn; ++r)
    if (ipiv[r] - 1 != r)
      for (int c = 0; c < n; ++c)
        std::swap(pa[r + static_cast<std::size_t>(c) * ld], pa[ipiv[r] - 1 + static_cast<std::size_t>(c) * ld]);
  double scale = 1, diff = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      // In double precision whatever T is (the product's own rounding stays far below the bound).
      auto wide = [](T v) { return zd(std::real(v), std::imag(v)); };
      zd s{};
      for (int l = 0; l <= std::min({i, j, mn - 1}); ++l) {
        const zd lv = l == i ? zd(1) : wide(lu[i + static_cast<std::size_t>(l) * ld]);
        s += lv * wide(lu[l + static_cast<std::size_t>(j) * ld]);
      }
      const zd aij = wide(pa[i + static_cast<std::size_t>(j) * ld]);
      scale = std::max(scale, std::abs(aij));
      diff = std::max(diff, std::abs(s - aij));
    }
  return diff / scale;
}

template <class T>
void check_getrf(GetrfFn<T> netlib, const char* symbol, int m, int n, int zero_col, std::mt19937_64& g) {
  const auto mine = reinterpret_cast<GetrfFn<T>>(ptxblas_symbol(symbol));
  ASSERT_NE(mine, nullptr);
  const int ld = m + 3;
  std::vector<T> a(static_cast<std::size_t>(ld) * n);
  for (T& x : a) x = value<T>(g);
  if (zero_col >= 0)
    for (int i = 0; i < m; ++i) a[i + static_cast<std::size_t>(zero_col) * ld] = T(0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int j = 0; j < n; ++j)
    for (int i = m; i < ld; ++i) a[i + static_cast<std::size_t>(j) * ld] = T(nan);
  auto lu = a, want = a;
  const std::size_t mn = static_cast<std::size_t>(std::min(m, n));
  std::vector<int> ipiv(mn, -1), want_piv(mn, -1);
  int info = -99, want_info = -99;
  netlib(&m, &n, want.data(), &ld, want_piv.data(), &want_info);
  mine(&m, &n, lu.data(), &ld, ipiv.data(), &info);
  const std::string what = std::string(symbol) + " " + std::to_string(m) + "x" + std::to_string(n);
  expect_gpu(what);
  EXPECT_EQ(info, want_info) << what;
  for (int j = 0; j < n; ++j)
    for (int i = m; i < ld; ++i)
      EXPECT_TRUE(std::isnan(std::real(lu[i + static_cast<std::size_t>(j) * ld]))) << what << ": padding written";
  for (std::size_t r = 0; r < mn; ++r) ASSERT_TRUE(ipiv[r] > static_cast<int>(r) && ipiv[r] <= m) << what;
  // A few units of roundoff per row or column (float: 2^-24, double: 2^-53 ~ 1e-16).
  const double tol = (sizeof(std::real(T{})) == 4 ? 1e-5 : 1e-12) * std::max(m, n);
  EXPECT_LT(lu_residual(a, lu, ipiv, m, n, ld), tol) << what;
  // For the comparison's sake: Netlib's factors satisfy the same bound.
  EXPECT_LT(lu_residual(a, want, want_piv, m, n, ld), tol) << what;
}

TEST(Factorizations, CholeskyOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 g(test_seed());
  for (char uplo : {'L', 'U'}) {
    check_potrf<double>(dpotrf_, "dpotrf_", 600, uplo, -1, g);  // panels of 256, 256, 88
    check_potrf<zd>(zpotrf_, "zpotrf_", 300, uplo, -1, g);
    check_potrf<double>(dpotrf_, "dpotrf_", 600, uplo, 300, g);  // not positive definite: INFO 301
  }
}

TEST(Factorizations, LuOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 g(test_seed());
  check_getrf<double>(dgetrf_, "dgetrf_", 600, 600, -1, g);
  check_getrf<double>(dgetrf_, "dgetrf_", 700, 530, -1, g);  // tall
  check_getrf<double>(dgetrf_, "dgetrf_", 530, 700, -1, g);  // wide: columns right of the last panel
  check_getrf<zd>(zgetrf_, "zgetrf_", 300, 300, -1, g);
  check_getrf<double>(dgetrf_, "dgetrf_", 600, 600, 270, g);  // a zero column: INFO 271, completed
  // Columns of 2000 rows: eight blocks of the column kernel leave candidates for its pivot.
  check_getrf<double>(dgetrf_, "dgetrf_", 2000, 300, -1, g);
  check_getrf<float>(sgetrf_, "sgetrf_", 500, 500, -1, g);
  check_getrf<cf>(cgetrf_, "cgetrf_", 300, 280, 100, g);
}

}  // namespace
}  // namespace gputest
