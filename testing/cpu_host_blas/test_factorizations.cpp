// ?potrf_ and ?getrf_ of libptxblas.so without a GPU: the whole call goes to a host LAPACK, the CPU
// BLAS library's when it has one, else the process's own (here: Netlib's BLAS has none, so
// Netlib's LAPACK), so the results are Netlib's bit for bit; and the built-in loops (the
// panels' host steps when a process has no LAPACK) agree with Netlib to rounding.
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "blas3_testing.hpp"
#include "builtin_lapack.hpp"
#include "library.hpp"
#include "reference_lapack.hpp"

namespace {

using cd = std::complex<double>;

template <class T>
std::vector<T> random_matrix(int rows, int cols, std::mt19937_64& g) {
  std::vector<T> v(static_cast<std::size_t>(rows) * cols);
  for (T& x : v) x = blas3test::random_value<T>(g);
  return v;
}

// A + A^H + n I: Hermitian positive definite (diagonally dominant).
template <class T>
std::vector<T> spd(int n, std::mt19937_64& g) {
  auto a = random_matrix<T>(n, n, g);
  std::vector<T> s(a.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const T t = a[i + j * n] + ptxblas::host::conj_value(a[j + i * n]);
      s[i + j * n] = i == j ? t + T(2.0 * n) : t;
    }
  return s;
}

TEST(Factorizations, WithoutAGpuTheProcessLapackAnswers) {
  SKIP_WITHOUT_NETLIB();
  std::mt19937_64 g(7);
  const int n = 70, m = 90;
  {
    const auto mine = hosttest::ptxblas<decltype(&dpotrf_)>("dpotrf_");
    for (char uplo : {'L', 'U'}) {
      auto a = spd<double>(n, g), want = a;
      int info = -1, want_info = -1;
      dpotrf_(&uplo, &n, want.data(), &n, &want_info, 1);
      mine(&uplo, &n, a.data(), &n, &info, 1);
      EXPECT_EQ(info, want_info);
      EXPECT_EQ(a, want) << "dpotrf " << uplo;
      EXPECT_NE(hosttest::last_call().find("host LAPACK"), std::string::npos) << hosttest::last_call();
    }
  }
  {
    const auto mine = hosttest::ptxblas<decltype(&zgetrf_)>("zgetrf_");
    auto a = random_matrix<cd>(m, n, g), want = a;
    std::vector<int> piv(n), want_piv(n);
    int info = -1, want_info = -1;
    zgetrf_(&m, &n, want.data(), &m, want_piv.data(), &want_info);
    mine(&m, &n, a.data(), &m, piv.data(), &info);
    EXPECT_EQ(info, want_info);
    EXPECT_EQ(piv, want_piv);
    EXPECT_EQ(a, want) << "zgetrf";
  }
}

TEST(Factorizations, BuiltInLoopsAgreeWithNetlib) {
  SKIP_WITHOUT_NETLIB();
  std::mt19937_64 g(11);
  const int n = 40, m = 55;
  for (char uplo : {'L', 'U'}) {
    auto a = spd<cd>(n, g), want = a;
    int want_info = -1;
    zpotrf_(&uplo, &n, want.data(), &n, &want_info, 1);
    EXPECT_EQ(ptxblas::host::builtin_potrf(uplo == 'L', n, a.data(), n), want_info);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (uplo == 'L' ? i >= j : i <= j) EXPECT_NEAR(std::abs(a[i + j * n] - want[i + j * n]), 0, 1e-12);
  }
  for (auto [rows, cols] : {std::pair{m, n}, std::pair{n, m}}) {
    auto a = random_matrix<double>(rows, cols, g), want = a;
    std::vector<int> piv(std::min(rows, cols)), want_piv(piv.size());
    int want_info = -1;
    dgetrf_(&rows, &cols, want.data(), &rows, want_piv.data(), &want_info);
    EXPECT_EQ(ptxblas::host::builtin_getrf(rows, cols, a.data(), rows, piv.data()), want_info);
    EXPECT_EQ(piv, want_piv);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], want[i], 1e-12);
  }
}

}  // namespace
