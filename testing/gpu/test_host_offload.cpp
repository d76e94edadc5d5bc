// The host BLAS path offloaded to the GPU: Fortran symbols of libptxblas.so on host matrices
// with every call sent to the device (a ptxblas.toml written here says "always"), against Netlib
// in the same precision. The setting must be in place before the library first reads its config,
// so it is set while the test program starts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <complex>
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

}  // namespace
}  // namespace gputest
