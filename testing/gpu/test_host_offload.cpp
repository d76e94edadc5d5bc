// The host BLAS path offloaded to the GPU: Fortran symbols of libptxblas.so on host matrices
// with every call sent to the device (a ptxblas.toml written here says "always"), against Netlib
// in the same precision. The setting must be in place before the library first reads its config,
// so it is set while the test program starts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gpu_env.hpp"

using zd = std::complex<double>;
using fc = const char*;
using fi = const int*;

extern "C" {
void dgemm_(fc, fc, fi, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*, fi,
            std::size_t, std::size_t);
void zherk_(fc, fc, fi, fi, const double*, const zd*, fi, const double*, zd*, fi, std::size_t, std::size_t);
void dtrsm_(fc, fc, fc, fc, fi, fi, const double*, const double*, fi, double*, fi, std::size_t, std::size_t,
            std::size_t, std::size_t);
void zsymm_(fc, fc, fi, fi, const zd*, const zd*, fi, const zd*, fi, const zd*, zd*, fi, std::size_t, std::size_t);
void dsyrk_(fc, fc, fi, fi, const double*, const double*, fi, const double*, double*, fi, std::size_t, std::size_t);
}

namespace gputest {
namespace {

std::string& config_path() {
  static std::string path = "/tmp/ptxblas-offload-" + std::to_string(::getpid()) + ".toml";
  return path;
}

const bool g_config_written = [] {
  std::ofstream(config_path()) << "[offload]\ndefault = \"always\"\n";
  std::atexit([] { std::remove(config_path().c_str()); });
  return setenv("PTXBLAS_CONFIG", config_path().c_str(), 1) == 0;
}();

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_same_v<T, double>)
      x = u(g);
    else
      x = T(u(g), u(g));
  }
  return v;
}

template <class T>
double max_rel_diff(const std::vector<T>& got, const std::vector<T>& want) {
  double scale = 1, d = 0;
  for (const T& w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i) d = std::max(d, std::abs(got[i] - want[i]));
  return d / scale;
}

void expect_gpu(const std::string& what) {
  EXPECT_EQ(last_call().rfind("GPU (", 0), 0u) << what << ": " << last_call();
}

TEST(HostOffload, FortranRoutinesOnTheGpu) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(g_config_written);
  std::mt19937_64 g(test_seed());
  {
    const auto mine = reinterpret_cast<decltype(&dgemm_)>(ptxblas_symbol("dgemm_"));
    const int m = 200, n = 150, k = 130, lda = 210, ldb = 140, ldc = 205;
    auto a = random_vector<double>(lda * k, g), b = random_vector<double>(ldb * n, g), c = random_vector<double>(ldc * n, g);
    auto want = c;
    const double al = 1.5, be = -0.5;
    dgemm_("N", "N", &m, &n, &k, &al, a.data(), &lda, b.data(), &ldb, &be, want.data(), &ldc, 1, 1);
    mine("N", "N", &m, &n, &k, &al, a.data(), &lda, b.data(), &ldb, &be, c.data(), &ldc, 1, 1);
    expect_gpu("dgemm_");
    EXPECT_LT(max_rel_diff(c, want), 1e-12);
  }
  {
    const auto mine = reinterpret_cast<decltype(&zherk_)>(ptxblas_symbol("zherk_"));
    const int n = 180, k = 60, lda = 64, ldc = 181;
    auto a = random_vector<zd>(lda * n, g), c = random_vector<zd>(ldc * n, g);
    auto want = c;
    const double al = 0.75, be = 0.5;
    zherk_("L", "C", &n, &k, &al, a.data(), &lda, &be, want.data(), &ldc, 1, 1);
    mine("L", "C", &n, &k, &al, a.data(), &lda, &be, c.data(), &ldc, 1, 1);
    expect_gpu("zherk_");
    EXPECT_LT(max_rel_diff(c, want), 1e-12);  // the upper triangle too: copied back unchanged
  }
  {
    const auto mine = reinterpret_cast<decltype(&dtrsm_)>(ptxblas_symbol("dtrsm_"));
    const int m = 300, n = 40, lda = 300, ldb = 301;
    auto a = random_vector<double>(lda * m, g), b = random_vector<double>(ldb * n, g);
    for (int i = 0; i < m; ++i) a[static_cast<std::size_t>(i * lda + i)] = 2 + a[static_cast<std::size_t>(i * lda + i)];
    for (double& x : a) x /= 16;
    for (int i = 0; i < m; ++i) a[static_cast<std::size_t>(i * lda + i)] += 1;
    auto want = b;
    const double al = -2;
    dtrsm_("L", "U", "T", "N", &m, &n, &al, a.data(), &lda, want.data(), &ldb, 1, 1, 1, 1);
    mine("L", "U", "T", "N", &m, &n, &al, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
    expect_gpu("dtrsm_");
    EXPECT_LT(max_rel_diff(b, want), 1e-10);
  }
  {
    const auto mine = reinterpret_cast<decltype(&zsymm_)>(ptxblas_symbol("zsymm_"));
    const int m = 70, n = 90, lda = 90, ldb = 70, ldc = 72;
    auto a = random_vector<zd>(lda * n, g), b = random_vector<zd>(ldb * n, g), c = random_vector<zd>(ldc * n, g);
    auto want = c;
    const zd al(1, -1), be(0.5, 0.25);
    zsymm_("R", "U", &m, &n, &al, a.data(), &lda, b.data(), &ldb, &be, want.data(), &ldc, 1, 1);
    mine("R", "U", &m, &n, &al, a.data(), &lda, b.data(), &ldb, &be, c.data(), &ldc, 1, 1);
    expect_gpu("zsymm_");
    EXPECT_LT(max_rel_diff(c, want), 1e-12);
  }
}

// Matrices larger than one 32 MiB staging buffer go through it in chunks of columns, and a
// column larger than the buffer by the plain copies; outputs with beta == 0 are not copied over
// (so NaN there must not matter); nothing outside the written part of C (padding rows, the other
// triangle) may change. Several sizes in a row also reuse the device buffers kept between calls.
TEST(HostOffload, StagedCopiesInChunks) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(g_config_written);
  std::mt19937_64 g(test_seed());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto gemm = reinterpret_cast<decltype(&dgemm_)>(ptxblas_symbol("dgemm_"));
  const auto syrk = reinterpret_cast<decltype(&dsyrk_)>(ptxblas_symbol("dsyrk_"));
  struct Gemm {
    int m, n, k, ldc;
    double beta;
  };
  // 43.7 MB of C (two chunks), beta 0 and not; a 36 MB column (plain copies); a small one.
  for (const Gemm& s : {Gemm{2600, 2100, 40, 2611, 0.0}, Gemm{2600, 2100, 40, 2605, -0.5},
                        Gemm{4500000, 2, 3, 4500005, 1.0}, Gemm{300, 200, 100, 301, 0.0}}) {
    const int lda = s.m + 1, ldb = s.k + 2;
    auto a = random_vector<double>(static_cast<std::size_t>(lda) * s.k, g);
    auto b = random_vector<double>(static_cast<std::size_t>(ldb) * s.n, g);
    auto c = random_vector<double>(static_cast<std::size_t>(s.ldc) * s.n, g);
    for (int j = 0; j < s.n; ++j)
      for (int i = s.m; i < s.ldc; ++i) c[static_cast<std::size_t>(j) * s.ldc + i] = nan;  // padding rows
    if (s.beta == 0)
      for (int j = 0; j < s.n; ++j)
        for (int i = 0; i < s.m; ++i) c[static_cast<std::size_t>(j) * s.ldc + i] = nan;  // never read
    auto want = c;
    const double al = 0.5;
    dgemm_("N", "N", &s.m, &s.n, &s.k, &al, a.data(), &lda, b.data(), &ldb, &s.beta, want.data(), &s.ldc, 1, 1);
    gemm("N", "N", &s.m, &s.n, &s.k, &al, a.data(), &lda, b.data(), &ldb, &s.beta, c.data(), &s.ldc, 1, 1);
    const std::string what = "dgemm m=" + std::to_string(s.m) + " n=" + std::to_string(s.n);
    expect_gpu(what);
    double err = 0;
    for (int j = 0; j < s.n; ++j) {
      for (int i = 0; i < s.ldc; ++i) {
        const std::size_t at = static_cast<std::size_t>(j) * s.ldc + i;
        if (i >= s.m)
          ASSERT_TRUE(std::isnan(c[at])) << what << ": padding row " << i << " of column " << j << " changed";
        else
          err = std::max(err, std::abs(c[at] - want[at]));
      }
    }
    EXPECT_LT(err, 1e-12) << what;
  }
  for (const char uplo : {'U', 'L'}) {
    const int n = 2200, k = 50, lda = n + 3, ldc = n + 3;  // C: 38.8 MB, two chunks
    auto a = random_vector<double>(static_cast<std::size_t>(lda) * k, g);
    auto c = random_vector<double>(static_cast<std::size_t>(ldc) * n, g);
    for (int j = 0; j < n; ++j)
      for (int i = n; i < ldc; ++i) c[static_cast<std::size_t>(j) * ldc + i] = nan;
    auto want = c;
    const double al = -1, be = 2;
    const char u[2] = {uplo, 0};
    dsyrk_(u, "N", &n, &k, &al, a.data(), &lda, &be, want.data(), &ldc, 1, 1);
    syrk(u, "N", &n, &k, &al, a.data(), &lda, &be, c.data(), &ldc, 1, 1);
    expect_gpu(std::string("dsyrk ") + uplo);
    double err = 0;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < ldc; ++i) {
        const std::size_t at = static_cast<std::size_t>(j) * ldc + i;
        const bool stored = i < n && (uplo == 'U' ? i <= j : i >= j);
        if (stored)
          err = std::max(err, std::abs(c[at] - want[at]));
        else
          ASSERT_EQ(std::memcmp(&c[at], &want[at], sizeof(double)), 0)
              << "dsyrk " << uplo << ": (" << i << ", " << j << ") outside the stored triangle changed";
      }
    }
    EXPECT_LT(err, 1e-11) << "dsyrk " << uplo;
  }
}

}  // namespace
}  // namespace gputest
