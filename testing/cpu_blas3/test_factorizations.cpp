// The factorizations' blocked algorithms (dispatch/blas3/factorizations.hpp) on the CPU engine:
// several panels and a ragged last one, against the unblocked built-in loops on the whole
// matrix (dispatch/host/builtin_lapack.hpp), which also serve as the host steps here. Pivots and
// INFO must match exactly; the factors to rounding; potrf must never read or write the other
// triangle (NaN there).
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <vector>

#include "blas3_testing.hpp"
#include "builtin_lapack.hpp"
#include "factorizations.hpp"

namespace {

using namespace ptxblas::blas3;
using blas3test::data_type;
using blas3test::random_value;
using ptxblas::host::builtin_getrf;
using ptxblas::host::builtin_potrf;

template <class T>
HostFactor builtin_host() {
  HostFactor h;
  h.potrf = [](Uplo u, std::int64_t n, void* a, std::int64_t ld) {
    return builtin_potrf(u == Uplo::Lower, n, static_cast<T*>(a), ld);
  };
  h.getrf = [](std::int64_t m, std::int64_t n, void* a, std::int64_t ld, int* ipiv) {
    return builtin_getrf(m, n, static_cast<T*>(a), ld, ipiv);
  };
  return h;
}

template <class T>
double tol() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 2e-4 : 1e-11;
}

// A Hermitian positive definite n x n matrix (B B^H + n I) in `ld` rows, NaN in the triangle
// opposite `lower`; with `bad` >= 0, the leading minor of order bad + 1 is not positive definite.
template <class T>
std::vector<T> spd(std::int64_t n, std::int64_t ld, bool lower, std::int64_t bad, std::mt19937_64& rng) {
  std::vector<T> b(static_cast<std::size_t>(n * n)), a(static_cast<std::size_t>(ld * n));
  for (auto& v : b) v = random_value<T>(rng);
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < ld; ++i) {
      T s{};
      if (i < n)
        for (std::int64_t l = 0; l < n; ++l) s += b[i + l * n] * ptxblas::host::conj_value(b[j + l * n]);
      if (i == j) s = T(std::real(s) + n);
      if (bad >= 0 && i == bad && j == bad) s = T(-1);
      if (bad >= 0 && (i == bad) != (j == bad)) s = T(0);
      const bool other = lower ? i < j : i > j;
      a[i + j * ld] = i >= n || other ? nan : s;
    }
  return a;
}

template <class T>
void check_potrf(bool lower, std::int64_t n, std::int64_t nb, std::int64_t bad) {
  std::mt19937_64 rng(1234 + n + nb);
  const std::int64_t ld = n + 3;
  std::vector<T> a = spd<T>(n, ld, lower, bad, rng), want = a;
  auto e = make_cpu_engine(data_type<T>(), 64);
  const int info = potrf(*e, builtin_host<T>(), lower ? Uplo::Lower : Uplo::Upper, n, {a.data(), ld}, nb);
  const int want_info = builtin_potrf(lower, n, want.data(), ld);
  EXPECT_EQ(info, want_info);
  if (info != 0) return;  // past the failure the contents are not LAPACK's to specify
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < ld; ++i) {
      const T got = a[i + j * ld], ref = want[i + j * ld];
      const bool stored = i < n && (lower ? i >= j : i <= j);
      if (!stored) {
        EXPECT_TRUE(std::isnan(std::real(got))) << "wrote outside the triangle at " << i << "," << j;
        continue;
      }
      EXPECT_LE(std::abs(got - ref), tol<T>() * (1 + std::abs(ref))) << i << "," << j;
    }
}

template <class T>
void check_getrf(std::int64_t m, std::int64_t n, std::int64_t nb, std::int64_t zero_col,
                 LuPanels panels = LuPanels::Engine) {
  std::mt19937_64 rng(99 + m * 7 + n + nb);
  const std::int64_t ld = m + 2;
  std::vector<T> a(static_cast<std::size_t>(ld * n));
  for (auto& v : a) v = random_value<T>(rng);
  if (zero_col >= 0)
    for (std::int64_t i = 0; i < m; ++i) a[i + zero_col * ld] = T(0);
  std::vector<T> want = a;
  const std::size_t mn = static_cast<std::size_t>(std::min(m, n));
  std::vector<int> ipiv(mn, -7), want_piv(mn, -7);
  auto e = make_cpu_engine(data_type<T>(), 64);
  const int info = getrf(*e, builtin_host<T>(), m, n, {a.data(), ld}, ipiv.data(), nb, nullptr, panels);
  EXPECT_EQ(info, builtin_getrf(m, n, want.data(), ld, want_piv.data()));
  EXPECT_EQ(ipiv, want_piv);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < ld; ++i) {
      const T got = a[i + j * ld], ref = want[i + j * ld];
      EXPECT_LE(std::abs(got - ref), tol<T>() * (1 + std::abs(ref)) * n) << i << "," << j;
    }
}

template <class T>
class Factorizations : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Factorizations, Types);

TYPED_TEST(Factorizations, CholeskyInPanels) {
  for (bool lower : {true, false}) {
    check_potrf<TypeParam>(lower, 37, 8, -1);  // five panels, the last 5 wide
    check_potrf<TypeParam>(lower, 16, 16, -1);  // one panel
    check_potrf<TypeParam>(lower, 5, 8, -1);    // narrower than a panel
  }
}

TYPED_TEST(Factorizations, CholeskyReportsTheFailingMinor) {
  for (bool lower : {true, false}) {
    check_potrf<TypeParam>(lower, 37, 8, 20);  // inside the third panel: INFO 21
    check_potrf<TypeParam>(lower, 37, 8, 0);   // the first element
  }
}

TYPED_TEST(Factorizations, LuInPanels) {
  check_getrf<TypeParam>(40, 40, 8, -1);
  check_getrf<TypeParam>(45, 37, 8, -1);  // tall: the last panel 5 wide
  check_getrf<TypeParam>(37, 45, 8, -1);  // wide: columns right of the last panel
  check_getrf<TypeParam>(9, 9, 16, -1);
  // Panels wider than the column steps: recursive halves (80 = 32 + 48, 48 = 32 + 16).
  check_getrf<TypeParam>(130, 100, 80, -1);
  check_getrf<TypeParam>(70, 120, 64, -1);  // wide
  // The hybrid form: every panel by the host's LAPACK.
  check_getrf<TypeParam>(45, 37, 8, -1, LuPanels::Host);
  check_getrf<TypeParam>(130, 100, 80, -1, LuPanels::Host);
}

TYPED_TEST(Factorizations, LuReportsTheFirstZeroPivotAndCompletes) {
  check_getrf<TypeParam>(40, 40, 8, 11);  // INFO 12, the factorization goes on
  check_getrf<TypeParam>(100, 100, 64, 40);  // inside a recursive panel
  check_getrf<TypeParam>(40, 40, 8, 11, LuPanels::Host);
}

}  // namespace
