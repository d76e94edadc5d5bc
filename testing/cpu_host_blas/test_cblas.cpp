// CBLAS level 3 of libptxblas.so against Netlib's CBLAS, row- and column-major, every flag; bad
// layouts and flags reported to cblas_xerbla at the same position as Netlib's, outputs untouched.
#include <gtest/gtest.h>

#include <cblas.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "library.hpp"

namespace {

struct CblasReport {
  int position = 0, calls = 0;
  std::string routine;
};
CblasReport g_cblas;

}  // namespace

// The program's cblas_xerbla (exported dynamically): records instead of exiting.
extern "C" void cblas_xerbla(CBLAS_INT p, const char* rout, const char*, ...) {
  g_cblas.position = p;
  g_cblas.routine = rout;
  ++g_cblas.calls;
}

namespace {

using zd = std::complex<double>;
using cf = std::complex<float>;

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_arithmetic_v<T>)
      x = static_cast<T>(u(g));
    else
      x = T(static_cast<typename T::value_type>(u(g)), static_cast<typename T::value_type>(u(g)));
  }
  return v;
}

template <class T>
double max_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::abs(a[i] - b[i])));
  return d;
}

constexpr double kTol = 1e-4;  // float routines included; the CPU path runs the same BLAS underneath

TEST(Cblas, GemmBothLayouts) {
  const auto d = hosttest::ptxblas<decltype(&cblas_dgemm)>("cblas_dgemm");
  const auto z = hosttest::ptxblas<decltype(&cblas_zgemm)>("cblas_zgemm");
  std::mt19937_64 g(1);
  for (CBLAS_LAYOUT l : {CblasRowMajor, CblasColMajor})
    for (CBLAS_TRANSPOSE ta : {CblasNoTrans, CblasTrans, CblasConjTrans})
      for (CBLAS_TRANSPOSE tb : {CblasNoTrans, CblasTrans, CblasConjTrans}) {
        const int m = 7, n = 5, k = 9, ld = 12;
        auto a = random_vector<double>(ld * 12, g), b = random_vector<double>(ld * 12, g), c = random_vector<double>(ld * 12, g);
        auto c2 = c;
        cblas_dgemm(l, ta, tb, m, n, k, 1.5, a.data(), ld, b.data(), ld, -0.5, c.data(), ld);
        d(l, ta, tb, m, n, k, 1.5, a.data(), ld, b.data(), ld, -0.5, c2.data(), ld);
        EXPECT_LT(max_diff(c, c2), kTol) << l << " " << ta << " " << tb;
        auto za = random_vector<zd>(ld * 12, g), zb = random_vector<zd>(ld * 12, g), zc = random_vector<zd>(ld * 12, g);
        auto zc2 = zc;
        const zd al(0.5, -1), be(0.25, 0.5);
        cblas_zgemm(l, ta, tb, m, n, k, &al, za.data(), ld, zb.data(), ld, &be, zc.data(), ld);
        z(l, ta, tb, m, n, k, &al, za.data(), ld, zb.data(), ld, &be, zc2.data(), ld);
        EXPECT_LT(max_diff(zc, zc2), kTol) << "zgemm " << l << " " << ta << " " << tb;
      }
}

TEST(Cblas, SymmHemmBothLayouts) {
  const auto s = hosttest::ptxblas<decltype(&cblas_ssymm)>("cblas_ssymm");
  const auto h = hosttest::ptxblas<decltype(&cblas_chemm)>("cblas_chemm");
  std::mt19937_64 g(2);
  for (CBLAS_LAYOUT l : {CblasRowMajor, CblasColMajor})
    for (CBLAS_SIDE side : {CblasLeft, CblasRight})
      for (CBLAS_UPLO u : {CblasUpper, CblasLower}) {
        const int m = 6, n = 9, ld = 10;
        auto a = random_vector<float>(ld * ld, g), b = random_vector<float>(ld * ld, g), c = random_vector<float>(ld * ld, g);
        auto c2 = c;
        cblas_ssymm(l, side, u, m, n, 0.75f, a.data(), ld, b.data(), ld, 1.25f, c.data(), ld);
        s(l, side, u, m, n, 0.75f, a.data(), ld, b.data(), ld, 1.25f, c2.data(), ld);
        EXPECT_LT(max_diff(c, c2), kTol) << "ssymm " << l << side << u;
        auto ca = random_vector<cf>(ld * ld, g), cb = random_vector<cf>(ld * ld, g), cc = random_vector<cf>(ld * ld, g);
        auto cc2 = cc;
        const cf al(1, 0.5), be(-0.5, 0.25);
        cblas_chemm(l, side, u, m, n, &al, ca.data(), ld, cb.data(), ld, &be, cc.data(), ld);
        h(l, side, u, m, n, &al, ca.data(), ld, cb.data(), ld, &be, cc2.data(), ld);
        EXPECT_LT(max_diff(cc, cc2), kTol) << "chemm " << l << side << u;
      }
}

TEST(Cblas, RankKBothLayouts) {
  const auto dsyrk = hosttest::ptxblas<decltype(&cblas_dsyrk)>("cblas_dsyrk");
  const auto dsyr2k = hosttest::ptxblas<decltype(&cblas_dsyr2k)>("cblas_dsyr2k");
  const auto zsyrk = hosttest::ptxblas<decltype(&cblas_zsyrk)>("cblas_zsyrk");
  const auto zherk = hosttest::ptxblas<decltype(&cblas_zherk)>("cblas_zherk");
  const auto zher2k = hosttest::ptxblas<decltype(&cblas_zher2k)>("cblas_zher2k");
  const auto zsyr2k = hosttest::ptxblas<decltype(&cblas_zsyr2k)>("cblas_zsyr2k");
  std::mt19937_64 g(3);
  const int n = 8, k = 5, ld = 11;
  for (CBLAS_LAYOUT l : {CblasRowMajor, CblasColMajor})
    for (CBLAS_UPLO u : {CblasUpper, CblasLower})
      for (CBLAS_TRANSPOSE t : {CblasNoTrans, CblasTrans, CblasConjTrans}) {
        const std::string what = std::to_string(l) + " " + std::to_string(u) + " " + std::to_string(t);
        auto a = random_vector<double>(ld * ld, g), b = random_vector<double>(ld * ld, g), c = random_vector<double>(ld * ld, g);
        auto c2 = c, c3 = c, c4 = c;
        cblas_dsyrk(l, u, t, n, k, 1.5, a.data(), ld, 0.5, c.data(), ld);
        dsyrk(l, u, t, n, k, 1.5, a.data(), ld, 0.5, c2.data(), ld);
        EXPECT_LT(max_diff(c, c2), kTol) << "dsyrk " << what;
        cblas_dsyr2k(l, u, t, n, k, 1.5, a.data(), ld, b.data(), ld, 0.5, c3.data(), ld);
        dsyr2k(l, u, t, n, k, 1.5, a.data(), ld, b.data(), ld, 0.5, c4.data(), ld);
        EXPECT_LT(max_diff(c3, c4), kTol) << "dsyr2k " << what;
        auto za = random_vector<zd>(ld * ld, g), zb = random_vector<zd>(ld * ld, g), zc = random_vector<zd>(ld * ld, g);
        const zd al(0.5, -0.75), be(1.5, 0.25);
        if (t != CblasConjTrans) {  // complex symmetric: N and T
          auto x = zc, y = zc;
          cblas_zsyrk(l, u, t, n, k, &al, za.data(), ld, &be, x.data(), ld);
          zsyrk(l, u, t, n, k, &al, za.data(), ld, &be, y.data(), ld);
          EXPECT_LT(max_diff(x, y), kTol) << "zsyrk " << what;
          auto x2 = zc, y2 = zc;
          cblas_zsyr2k(l, u, t, n, k, &al, za.data(), ld, zb.data(), ld, &be, x2.data(), ld);
          zsyr2k(l, u, t, n, k, &al, za.data(), ld, zb.data(), ld, &be, y2.data(), ld);
          EXPECT_LT(max_diff(x2, y2), kTol) << "zsyr2k " << what;
        }
        if (t != CblasTrans) {  // Hermitian: N and C
          auto x = zc, y = zc;
          cblas_zherk(l, u, t, n, k, 0.75, za.data(), ld, -0.5, x.data(), ld);
          zherk(l, u, t, n, k, 0.75, za.data(), ld, -0.5, y.data(), ld);
          EXPECT_LT(max_diff(x, y), kTol) << "zherk " << what;
          auto x2 = zc, y2 = zc;
          cblas_zher2k(l, u, t, n, k, &al, za.data(), ld, zb.data(), ld, -0.5, x2.data(), ld);
          zher2k(l, u, t, n, k, &al, za.data(), ld, zb.data(), ld, -0.5, y2.data(), ld);
          EXPECT_LT(max_diff(x2, y2), kTol) << "zher2k " << what;
        }
      }
}

TEST(Cblas, TriangularBothLayouts) {
  const auto trmm = hosttest::ptxblas<decltype(&cblas_ztrmm)>("cblas_ztrmm");
  const auto trsm = hosttest::ptxblas<decltype(&cblas_dtrsm)>("cblas_dtrsm");
  std::mt19937_64 g(4);
  const int m = 7, n = 6, ld = 9;
  for (CBLAS_LAYOUT l : {CblasRowMajor, CblasColMajor})
    for (CBLAS_SIDE s : {CblasLeft, CblasRight})
      for (CBLAS_UPLO u : {CblasUpper, CblasLower})
        for (CBLAS_TRANSPOSE t : {CblasNoTrans, CblasTrans, CblasConjTrans})
          for (CBLAS_DIAG dg : {CblasNonUnit, CblasUnit}) {
            auto za = random_vector<zd>(ld * ld, g), zb = random_vector<zd>(ld * ld, g);
            auto zb2 = zb;
            const zd al(0.5, 1);
            cblas_ztrmm(l, s, u, t, dg, m, n, &al, za.data(), ld, zb.data(), ld);
            trmm(l, s, u, t, dg, m, n, &al, za.data(), ld, zb2.data(), ld);
            EXPECT_LT(max_diff(zb, zb2), kTol) << "ztrmm " << l << s << u << t << dg;
            auto a = random_vector<double>(ld * ld, g), b = random_vector<double>(ld * ld, g);
            for (int i = 0; i < ld; ++i) a[static_cast<std::size_t>(i * ld + i)] += 4;  // well conditioned
            auto b2 = b;
            cblas_dtrsm(l, s, u, t, dg, m, n, -1.5, a.data(), ld, b.data(), ld);
            trsm(l, s, u, t, dg, m, n, -1.5, a.data(), ld, b2.data(), ld);
            EXPECT_LT(max_diff(b, b2), kTol) << "dtrsm " << l << s << u << t << dg;
          }
}

TEST(Cblas, BadLayoutAndFlagsReported) {
  SKIP_WITHOUT_NETLIB();
  const auto d = hosttest::ptxblas<decltype(&cblas_dgemm)>("cblas_dgemm");
  double a[16] = {}, c[16] = {};
  struct Bad {
    CBLAS_LAYOUT l;
    CBLAS_TRANSPOSE ta, tb;
  } cases[] = {{static_cast<CBLAS_LAYOUT>(7), CblasNoTrans, CblasNoTrans},
               {CblasColMajor, static_cast<CBLAS_TRANSPOSE>(7), CblasNoTrans},
               {CblasRowMajor, CblasNoTrans, static_cast<CBLAS_TRANSPOSE>(7)},
               {CblasRowMajor, static_cast<CBLAS_TRANSPOSE>(7), CblasNoTrans}};
  for (const Bad& b : cases) {
    g_cblas = {};
    cblas_dgemm(b.l, b.ta, b.tb, 2, 2, 2, 1.0, a, 2, a, 2, 1.0, c, 2);
    const CblasReport ref = g_cblas;
    g_cblas = {};
    d(b.l, b.ta, b.tb, 2, 2, 2, 1.0, a, 2, a, 2, 1.0, c, 2);
    EXPECT_EQ(ref.calls, 1);
    EXPECT_EQ(g_cblas.calls, 1);
    EXPECT_EQ(g_cblas.position, ref.position);
    EXPECT_EQ(g_cblas.routine, ref.routine);
  }
  g_cblas = {};
  d(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 2, 2, 1.0, a, 3, a, 2, 1.0, c, 4);  // lda < m
  EXPECT_EQ(g_cblas.calls, 1);
  EXPECT_EQ(g_cblas.position, 9);
  for (double x : c) EXPECT_EQ(x, 0.0);
}

}  // namespace
