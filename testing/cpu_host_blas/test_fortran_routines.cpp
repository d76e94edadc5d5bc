// Every Fortran level-3 symbol of libptxblas.so against Netlib BLAS on the same data: all flag
// combinations on ragged sizes and the quick-return cases. Run twice by ctest: with the CPU BLAS
// (results equal to Netlib's) and with no CPU BLAS (the built-in loops, within rounding).
#include <gtest/gtest.h>

#include <cstdlib>

#include "blas3_testing.hpp"
#include "library.hpp"
#include "reference_blas.hpp"

namespace {

using namespace blas3test;

// Which path the run expects (ctest and scripts/gpu_check.sh set these with a ptxblas.toml).
bool expect_loops() { return std::getenv("PTXBLAS_EXPECT_LOOPS") != nullptr; }
bool expect_gpu() { return std::getenv("PTXBLAS_EXPECT_GPU") != nullptr; }

void expect_host_path(const std::string& what) {
  const std::string last = hosttest::last_call();
  if (expect_gpu())
    EXPECT_EQ(last.rfind("GPU (", 0), 0u) << what << ": " << last;
  else if (expect_loops())
    EXPECT_EQ(last.rfind("forwarded: built-in CPU loops", 0), 0u) << what << ": " << last;
  else
    EXPECT_EQ(last.rfind("forwarded: CPU BLAS ", 0), 0u) << what << ": " << last;
}

template <class T>
std::string fname(const char* routine) {
  const char p = std::is_same_v<T, float> ? 's' : std::is_same_v<T, double> ? 'd'
               : std::is_same_v<T, std::complex<float>> ? 'c' : 'z';
  return std::string(1, p) + routine + "_";
}

template <class T>
class FortranRoutines : public ::testing::Test {};
TYPED_TEST_SUITE(FortranRoutines, ElementTypes);

TYPED_TEST(FortranRoutines, Gemm) {
  using T = TypeParam;
  const auto mine = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::gemm)>>(fname<T>("gemm").c_str());
  std::mt19937_64 rng(1);
  for (char ta : {'N', 'T', 'c'})
    for (char tb : {'n', 'T', 'C'})
      for (auto [m, n, k] : {std::tuple{7, 5, 3}, {33, 1, 17}, {1, 40, 64}}) {
        const bool na = ta == 'N' || ta == 'n', nb = tb == 'N' || tb == 'n';
        Matrix<T> a(na ? m : k, na ? k : m, 1), b(nb ? k : n, nb ? n : k, 2), c(m, n, 1);
        a.randomize(rng);
        b.randomize(rng);
        c.randomize(rng);
        Matrix<T> want = c;
        const T alpha = mix<T>(1.5, -0.5), beta = mix<T>(-0.25, 0.5);
        Ref<T>::gemm(&ta, &tb, &m, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, want.v.data(),
                     &want.ld32(), 1, 1);
        mine(&ta, &tb, &m, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, c.v.data(), &c.ld32(),
             1, 1);
        const std::string what = fname<T>("gemm") + " " + ta + tb + " " + std::to_string(m) + "x" +
                                 std::to_string(n) + "x" + std::to_string(k);
        EXPECT_EQ(compare(c, want, tolerance<T>(k), [](auto, auto) { return true; }), "") << what;
        expect_host_path(what);
      }
  // Quick return: alpha = 0 and beta = 1 leave C alone without any call.
  const int m = 3, n = 3, k = 3;
  const char nn = 'N';
  Matrix<T> a(3, 3), c(3, 3);
  a.randomize(rng);
  c.randomize(rng);
  const Matrix<T> before = c;
  const T zero{}, one(1);
  mine(&nn, &nn, &m, &n, &k, &zero, a.v.data(), &a.ld32(), a.v.data(), &a.ld32(), &one, c.v.data(), &c.ld32(), 1, 1);
  EXPECT_EQ(compare(c, before, 0.0, [](auto, auto) { return true; }), "");
}

TYPED_TEST(FortranRoutines, SymmAndHemm) {
  using T = TypeParam;
  for (bool herm : {false, true}) {
    if (herm && !Traits<T>::complex) continue;
    std::remove_const_t<decltype(Ref<T>::symm)> ref = Ref<T>::symm;
    if constexpr (Traits<T>::complex)
      if (herm) ref = RefHermitian<T>::hemm;
    const auto mine = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::symm)>>(fname<T>(herm ? "hemm" : "symm").c_str());
    std::mt19937_64 rng(2);
    for (char side : {'L', 'r'})
      for (char uplo : {'U', 'l'})
        for (auto [m, n] : {std::pair{6, 9}, {17, 4}}) {
          const int dim = (side == 'L' || side == 'l') ? m : n;
          Matrix<T> a(dim, dim, 1), b(m, n, 1), c(m, n, 2);
          a.randomize(rng);
          b.randomize(rng);
          c.randomize(rng);
          Matrix<T> want = c;
          const T alpha = mix<T>(0.5, 1), beta = mix<T>(2, -1);
          ref(&side, &uplo, &m, &n, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, want.v.data(),
              &want.ld32(), 1, 1);
          mine(&side, &uplo, &m, &n, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, c.v.data(),
               &c.ld32(), 1, 1);
          const std::string what = fname<T>(herm ? "hemm" : "symm") + " " + side + uplo;
          EXPECT_EQ(compare(c, want, tolerance<T>(dim), [](auto, auto) { return true; }), "") << what;
          expect_host_path(what);
        }
  }
}

TYPED_TEST(FortranRoutines, RankKFamily) {
  using T = TypeParam;
  using R = typename Traits<T>::Real;
  std::mt19937_64 rng(3);
  for (char uplo : {'U', 'L'})
    for (auto [n, k] : {std::pair{9, 5}, {16, 1}})
      for (char trans : {'N', 'T', 'C'}) {
        const bool by_rows = trans == 'N';
        Matrix<T> a(by_rows ? n : k, by_rows ? k : n, 1), b(by_rows ? n : k, by_rows ? k : n, 1), c(n, n, 1);
        a.randomize(rng);
        b.randomize(rng);
        c.randomize(rng);
        const T alpha = mix<T>(0.75, 0.25), beta = mix<T>(-1, 0.5);
        auto check = [&](const char* routine, auto&& ref_call, auto&& mine_call) {
          Matrix<T> want = c, got = c;
          ref_call(want);
          mine_call(got);
          const std::string what = fname<T>(routine) + " " + uplo + trans;
          EXPECT_EQ(compare(got, want, tolerance<T>(2 * k), [&](std::int64_t i, std::int64_t j) {
                      return uplo == 'L' ? i >= j : i <= j;
                    }), "") << what;
          expect_host_path(what);
        };
        // Symmetric forms: complex types take N and T only.
        if (!(Traits<T>::complex && trans == 'C')) {
          const auto syrk = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::syrk)>>(fname<T>("syrk").c_str());
          const auto syr2k = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::syr2k)>>(fname<T>("syr2k").c_str());
          check("syrk",
                [&](Matrix<T>& w) { Ref<T>::syrk(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), &beta, w.v.data(), &w.ld32(), 1, 1); },
                [&](Matrix<T>& w) { syrk(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), &beta, w.v.data(), &w.ld32(), 1, 1); });
          check("syr2k",
                [&](Matrix<T>& w) { Ref<T>::syr2k(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, w.v.data(), &w.ld32(), 1, 1); },
                [&](Matrix<T>& w) { syr2k(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, w.v.data(), &w.ld32(), 1, 1); });
        }
        if constexpr (Traits<T>::complex) {
          if (trans == 'T') continue;  // Hermitian forms take N and C
          const R ar = static_cast<R>(0.75), br = static_cast<R>(-1);
          const auto herk = hosttest::ptxblas<std::remove_const_t<decltype(RefHermitian<T>::herk)>>(fname<T>("herk").c_str());
          const auto her2k = hosttest::ptxblas<std::remove_const_t<decltype(RefHermitian<T>::her2k)>>(fname<T>("her2k").c_str());
          check("herk",
                [&](Matrix<T>& w) { RefHermitian<T>::herk(&uplo, &trans, &n, &k, &ar, a.v.data(), &a.ld32(), &br, w.v.data(), &w.ld32(), 1, 1); },
                [&](Matrix<T>& w) { herk(&uplo, &trans, &n, &k, &ar, a.v.data(), &a.ld32(), &br, w.v.data(), &w.ld32(), 1, 1); });
          check("her2k",
                [&](Matrix<T>& w) { RefHermitian<T>::her2k(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &br, w.v.data(), &w.ld32(), 1, 1); },
                [&](Matrix<T>& w) { her2k(&uplo, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &br, w.v.data(), &w.ld32(), 1, 1); });
        }
      }
}

TYPED_TEST(FortranRoutines, TrmmAndTrsm) {
  using T = TypeParam;
  const auto trmm = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::trmm)>>(fname<T>("trmm").c_str());
  const auto trsm = hosttest::ptxblas<std::remove_const_t<decltype(Ref<T>::trsm)>>(fname<T>("trsm").c_str());
  std::mt19937_64 rng(4);
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (char trans : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'}) {
          const int m = 11, n = 7, dim = side == 'L' ? m : n;
          Matrix<T> a(dim, dim, 1), b(m, n, 1);
          a.randomize(rng);
          for (int i = 0; i < dim; ++i) a(i, i) = mix<T>(2, 0.5);  // well conditioned
          for (int j = 0; j < dim; ++j)
            for (int i = 0; i < dim; ++i)
              if (i != j) a(i, j) = a(i, j) * static_cast<typename Traits<T>::Real>(0.1);
          b.randomize(rng);
          const T alpha = mix<T>(-0.5, 1);
          for (bool solve : {false, true}) {
            Matrix<T> want = b, got = b;
            auto ref = solve ? Ref<T>::trsm : Ref<T>::trmm;
            auto mine = solve ? trsm : trmm;
            ref(&side, &uplo, &trans, &diag, &m, &n, &alpha, a.v.data(), &a.ld32(), want.v.data(), &want.ld32(), 1, 1, 1, 1);
            mine(&side, &uplo, &trans, &diag, &m, &n, &alpha, a.v.data(), &a.ld32(), got.v.data(), &got.ld32(), 1, 1, 1, 1);
            const std::string what = fname<T>(solve ? "trsm" : "trmm") + " " + side + uplo + trans + diag;
            EXPECT_EQ(compare(got, want, 4 * tolerance<T>(dim), [](auto, auto) { return true; }), "") << what;
            expect_host_path(what);
          }
        }
}

}  // namespace
