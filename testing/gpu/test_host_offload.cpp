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
void dsyr2k_(fc, fc, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*, fi,
             std::size_t, std::size_t);
void ztrmm_(fc, fc, fc, fc, fi, fi, const zd*, const zd*, fi, zd*, fi, std::size_t, std::size_t, std::size_t,
            std::size_t);
void dsymm_(fc, fc, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*, fi,
            std::size_t, std::size_t);
}

namespace gputest {
namespace {

std::string& config_path() {
  static std::string path = "/tmp/ptxblas-offload-" + std::to_string(::getpid()) + ".toml";
  return path;
}

const bool g_config_written = [] {
  std::ofstream config(config_path());
  config << "[offload]\ndefault = \"always\"\n";
  // gpu_check.sh's second run of the factorization tests: LU's panels on the host.
  if (const char* lu = std::getenv("PTXBLAS_TEST_LU_PANELS")) config << "[lapack]\nlu_panels = \"" << lu << "\"\n";
  config.close();
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

// Elements (i, j) < (rows, cols) where stored(i, j) within tol of want (relative to its largest;
// NaN fails); every other element of the ld x cols arrays bit for bit unchanged.
template <class T, class Stored>
void expect_result(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, int rows, int ld,
                   double tol, Stored stored) {
  double scale = 1, err = 0;
  for (const T& w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t at = 0; at < got.size(); ++at) {
    const int i = static_cast<int>(at % ld), j = static_cast<int>(at / ld);
    if (i < rows && stored(i, j)) {
      const double d = std::abs(got[at] - want[at]);
      if (!(d <= err)) err = d;  // NaN too (std::max would drop it)
    } else
      ASSERT_EQ(std::memcmp(&got[at], &want[at], sizeof(T)), 0) << what << ": (" << i << ", " << j << ") changed";
  }
  EXPECT_LT(err / scale, tol) << what;
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
    expect_result(what, c, want, s.m, s.ldc, 1e-12, [](int, int) { return true; });  // padding rows: NaN kept
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
    expect_result(std::string("dsyrk ") + uplo, c, want, n, ldc, 1e-11,
                  [&](int i, int j) { return uplo == 'U' ? i <= j : i >= j; });
  }
}

// Tiled offload (dispatch/offload_tiles.hpp) on matrices far smaller than the device: with 4 MiB
// of device memory per call and 1 MiB tiles (ptxblas_set_offload_tiling), each routine's calls,
// too large to run whole (operands and scratch of their size over 4 MiB), run in pipelined tiles
// (strips beside a shared operand, or blocks of C when neither A nor B leaves room for strips),
// and a call whose narrowest tiles do not fit runs on the CPU. Results against Netlib;
// padding rows and the unstored triangle must not change.
class OffloadTiling {
 public:
  OffloadTiling(long long memory_mib, long long tile_mib) { set()(memory_mib, tile_mib); }
  ~OffloadTiling() { set()(-1, -1); }
  static int (*set())(long long, long long) {
    return reinterpret_cast<int (*)(long long, long long)>(ptxblas_symbol("ptxblas_set_offload_tiling"));
  }
};

void expect_tiles(const std::string& what) {
  const std::string last = last_call();
  EXPECT_EQ(last.rfind("GPU (", 0), 0u) << what << ": " << last;
  EXPECT_NE(last.find(" tiles"), std::string::npos) << what << " ran whole: " << last;
}

TEST(HostOffload, TiledCalls) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(g_config_written);
  std::mt19937_64 g(test_seed());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto all = [](int, int) { return true; };
  OffloadTiling tiling(4, 1);
  {
    const auto mine = reinterpret_cast<decltype(&dgemm_)>(ptxblas_symbol("dgemm_"));
    struct Case {
      char ta, tb;
      int m, n, k;
      double beta;
      bool tiled;  // false: even the narrowest tiles exceed 4 MiB, so the CPU runs it
    };
    // Row strips beside B; column strips beside A (C not read: NaN); blocks of C (A and B 2.3 MB
    // each: no room for 64-wide strips beside either); B (6.4 MB) cannot be shared and a 128 x
    // 5000 panel of A alone is 5 MB: the CPU.
    for (const Case& s : {Case{'N', 'N', 700, 600, 300, -0.5, true}, Case{'T', 'N', 300, 650, 280, 0.0, true},
                          Case{'T', 'T', 900, 900, 300, 1.5, true}, Case{'N', 'T', 1000, 130, 5000, 1.0, false}}) {
      const bool na = s.ta == 'N', nb = s.tb == 'N';
      const int lda = (na ? s.m : s.k) + 3, ldb = (nb ? s.k : s.n) + 1, ldc = s.m + 5;
      auto a = random_vector<double>(static_cast<std::size_t>(lda) * (na ? s.k : s.m), g);
      auto b = random_vector<double>(static_cast<std::size_t>(ldb) * (nb ? s.n : s.k), g);
      std::vector<double> c(static_cast<std::size_t>(ldc) * s.n, nan);
      if (s.beta != 0)
        for (int j = 0; j < s.n; ++j)
          for (int i = 0; i < s.m; ++i) c[static_cast<std::size_t>(j) * ldc + i] = std::sin(i + 3.0 * j);
      auto want = c;
      const double al = 0.75;
      const char ta[2] = {s.ta, 0}, tb[2] = {s.tb, 0};
      dgemm_(ta, tb, &s.m, &s.n, &s.k, &al, a.data(), &lda, b.data(), &ldb, &s.beta, want.data(), &ldc, 1, 1);
      mine(ta, tb, &s.m, &s.n, &s.k, &al, a.data(), &lda, b.data(), &ldb, &s.beta, c.data(), &ldc, 1, 1);
      const std::string what = std::string("dgemm ") + s.ta + s.tb + " " + std::to_string(s.m) + "x" +
                               std::to_string(s.n) + "x" + std::to_string(s.k);
      if (s.tiled)
        expect_tiles(what);
      else
        EXPECT_NE(last_call().find("do not fit"), std::string::npos) << what << ": " << last_call();
      expect_result(what, c, want, s.m, ldc, 1e-12, all);
    }
  }
  for (const char uplo : {'L', 'U'}) {  // column blocks of C's triangle beside A
    const auto mine = reinterpret_cast<decltype(&zherk_)>(ptxblas_symbol("zherk_"));
    const int n = 500, k = 200, lda = k + 2, ldc = n + 1;
    auto a = random_vector<zd>(static_cast<std::size_t>(lda) * n, g), c = random_vector<zd>(static_cast<std::size_t>(ldc) * n, g);
    auto want = c;
    const double al = -0.5, be = 2;
    const char u[2] = {uplo, 0};
    zherk_(u, "C", &n, &k, &al, a.data(), &lda, &be, want.data(), &ldc, 1, 1);
    mine(u, "C", &n, &k, &al, a.data(), &lda, &be, c.data(), &ldc, 1, 1);
    expect_tiles(std::string("zherk ") + uplo);
    expect_result(std::string("zherk ") + uplo, c, want, n, ldc, 1e-12,
                  [&](int i, int j) { return uplo == 'L' ? i >= j : i <= j; });
  }
  {
    const auto mine = reinterpret_cast<decltype(&dsyr2k_)>(ptxblas_symbol("dsyr2k_"));
    const int n = 600, k = 150, ld = n + 3, ldc = n;
    auto a = random_vector<double>(static_cast<std::size_t>(ld) * k, g), b = random_vector<double>(static_cast<std::size_t>(ld) * k, g);
    auto c = random_vector<double>(static_cast<std::size_t>(ldc) * n, g);
    auto want = c;
    const double al = 1.25, be = -1;
    dsyr2k_("U", "N", &n, &k, &al, a.data(), &ld, b.data(), &ld, &be, want.data(), &ldc, 1, 1);
    mine("U", "N", &n, &k, &al, a.data(), &ld, b.data(), &ld, &be, c.data(), &ldc, 1, 1);
    expect_tiles("dsyr2k U N");
    expect_result("dsyr2k U N", c, want, n, ldc, 1e-12, [](int i, int j) { return i <= j; });
  }
  {  // rows of B beside a shared triangle
    const auto mine = reinterpret_cast<decltype(&dtrsm_)>(ptxblas_symbol("dtrsm_"));
    const int m = 700, n = 300, lda = n, ldb = m + 2;
    auto a = random_vector<double>(static_cast<std::size_t>(lda) * n, g), b = random_vector<double>(static_cast<std::size_t>(ldb) * n, g);
    for (double& x : a) x /= n;
    for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * lda + i] = 1.5;
    auto want = b;
    const double al = 2;
    dtrsm_("R", "L", "N", "N", &m, &n, &al, a.data(), &lda, want.data(), &ldb, 1, 1, 1, 1);
    mine("R", "L", "N", "N", &m, &n, &al, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
    expect_tiles("dtrsm RLNN");
    expect_result("dtrsm RLNN", b, want, m, ldb, 1e-10, all);
  }
  {  // columns of B beside a shared triangle
    const auto mine = reinterpret_cast<decltype(&ztrmm_)>(ptxblas_symbol("ztrmm_"));
    const int m = 200, n = 400, lda = m + 1, ldb = m;
    auto a = random_vector<zd>(static_cast<std::size_t>(lda) * m, g), b = random_vector<zd>(static_cast<std::size_t>(ldb) * n, g);
    auto want = b;
    const zd al(0.5, -1);
    ztrmm_("L", "U", "C", "N", &m, &n, &al, a.data(), &lda, want.data(), &ldb, 1, 1, 1, 1);
    mine("L", "U", "C", "N", &m, &n, &al, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
    expect_tiles("ztrmm LUCN");
    expect_result("ztrmm LUCN", b, want, m, ldb, 1e-12, all);
  }
  {
    const auto mine = reinterpret_cast<decltype(&dsymm_)>(ptxblas_symbol("dsymm_"));
    const int m = 256, n = 700, lda = m, ldb = m + 1, ldc = m + 2;
    auto a = random_vector<double>(static_cast<std::size_t>(lda) * m, g), b = random_vector<double>(static_cast<std::size_t>(ldb) * n, g);
    auto c = random_vector<double>(static_cast<std::size_t>(ldc) * n, g);
    auto want = c;
    const double al = -1, be = 0.5;
    dsymm_("L", "L", &m, &n, &al, a.data(), &lda, b.data(), &ldb, &be, want.data(), &ldc, 1, 1);
    mine("L", "L", &m, &n, &al, a.data(), &lda, b.data(), &ldb, &be, c.data(), &ldc, 1, 1);
    expect_tiles("dsymm LL");
    expect_result("dsymm LL", c, want, m, ldc, 1e-12, all);
  }
}

// With the device's own memory (three quarters of the free) and 1 MiB tiles: a call that fits is
// cut for the overlap when its kernels take a fair share of the copies' time (a 3000^3 dgemm, its
// tiles against the same call run whole), and runs whole when they would not (a k = 256 update,
// against Netlib).
TEST(HostOffload, TiledForOverlap) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(g_config_written);
  std::mt19937_64 g(test_seed());
  const auto mine = reinterpret_cast<decltype(&dgemm_)>(ptxblas_symbol("dgemm_"));
  {
    const int n = 3000;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    auto a = random_vector<double>(nn, g), b = random_vector<double>(nn, g), c = random_vector<double>(nn, g);
    auto whole = c;
    const double al = 0.5, be = -1;
    {
      OffloadTiling no_tiles(0, 0);
      mine("N", "T", &n, &n, &n, &al, a.data(), &n, b.data(), &n, &be, whole.data(), &n, 1, 1);
      EXPECT_EQ(last_call().find(" tiles"), std::string::npos) << last_call();
    }
    OffloadTiling tiling(0, 1);
    mine("N", "T", &n, &n, &n, &al, a.data(), &n, b.data(), &n, &be, c.data(), &n, 1, 1);
    expect_tiles("dgemm NT 3000^3");
    expect_result("dgemm NT 3000^3 (tiles against whole)", c, whole, n, n, 1e-12, [](int, int) { return true; });
  }
  OffloadTiling tiling(0, 1);
  const int m = 1200, n = 1100, k = 256, ld = 1200;
  auto a = random_vector<double>(static_cast<std::size_t>(ld) * k, g), b = random_vector<double>(static_cast<std::size_t>(k) * n, g);
  auto c = random_vector<double>(static_cast<std::size_t>(ld) * n, g);
  auto want = c;
  const double al = 1, be = 1;
  dgemm_("N", "N", &m, &n, &k, &al, a.data(), &ld, b.data(), &k, &be, want.data(), &ld, 1, 1);
  mine("N", "N", &m, &n, &k, &al, a.data(), &ld, b.data(), &k, &be, c.data(), &ld, 1, 1);
  EXPECT_EQ(last_call().rfind("GPU (", 0), 0u) << last_call();
  EXPECT_EQ(last_call().find(" tiles"), std::string::npos) << "a copy-bound call was cut: " << last_call();
  expect_result("dgemm NN 1200x1100x256", c, want, m, ld, 1e-12, [](int, int) { return true; });
}

}  // namespace
}  // namespace gputest
