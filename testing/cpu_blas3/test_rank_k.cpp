// SYRK / SYRKX / SYR2K / HERK / HERKX / HER2K through the adaptor on the CPU engine vs the reference
// BLAS (SYRKX/HERKX vs a reference GEMM restricted to the triangle). C's unstored triangle is NaN
// and must come back bit for bit; block sizes small enough to cut C into many diagonal blocks.
#include "blas3_testing.hpp"
#include "reference_blas.hpp"

namespace blas3test {
namespace {

enum class Routine { Syrk, Syrkx, Syr2k, Herk, Herkx, Her2k };

const char* name(Routine r) {
  switch (r) {
    case Routine::Syrk: return "syrk";
    case Routine::Syrkx: return "syrkx";
    case Routine::Syr2k: return "syr2k";
    case Routine::Herk: return "herk";
    case Routine::Herkx: return "herkx";
    case Routine::Her2k: return "her2k";
  }
  return "?";
}

bool hermitian(Routine r) { return r == Routine::Herk || r == Routine::Herkx || r == Routine::Her2k; }

template <class T>
class RankUpdates : public ::testing::Test {};
TYPED_TEST_SUITE(RankUpdates, ElementTypes);

bool stored(Uplo u, std::int64_t i, std::int64_t j) { return u == Uplo::Lower ? i >= j : i <= j; }

// What the reference BLAS leaves in C.
template <class T>
void reference(Routine r, Uplo uplo, Op trans, std::int64_t n, std::int64_t k, T alpha, Matrix<T>& a, Matrix<T>& b,
               T beta, Matrix<T>& c) {
  const char cu = code(uplo), ct = code(trans);
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  using R = typename Traits<T>::Real;
  if (r == Routine::Syrk) Ref<T>::syrk(&cu, &ct, &ni, &ki, &alpha, a.v.data(), &a.ld32(), &beta, c.v.data(), &c.ld32(), 1, 1);
  if (r == Routine::Syr2k)
    Ref<T>::syr2k(&cu, &ct, &ni, &ki, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, c.v.data(),
                  &c.ld32(), 1, 1);
  if constexpr (Traits<T>::complex) {
    const R ar = alpha.real(), br = beta.real();
    if (r == Routine::Herk)
      RefHermitian<T>::herk(&cu, &ct, &ni, &ki, &ar, a.v.data(), &a.ld32(), &br, c.v.data(), &c.ld32(), 1, 1);
    if (r == Routine::Her2k)
      RefHermitian<T>::her2k(&cu, &ct, &ni, &ki, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &br,
                             c.v.data(), &c.ld32(), 1, 1);
  }
  if (r == Routine::Syrkx || r == Routine::Herkx) {
    Matrix<T> full(n, n);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) full(i, j) = stored(uplo, i, j) ? c(i, j) : T(0);
    const char opa = ct, opb = trans == Op::N ? (r == Routine::Herkx ? 'C' : 'T') : 'N';
    Ref<T>::gemm(&opa, &opb, &ni, &ni, &ki, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta,
                 full.v.data(), &full.ld32(), 1, 1);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        if (stored(uplo, i, j)) c(i, j) = full(i, j);
  }
}

template <class T>
void run(Routine routine) {
  std::mt19937_64 rng(99);
  auto engine = make_cpu_engine(data_type<T>());
  const bool herm = hermitian(routine);
  const T alphas[] = {mix<T>(1.25, -0.5), mix<T>(-0.75, 0.5), T(0), T(0), T(1)};
  const T betas[] = {mix<T>(0.5, 0.25), T(0), mix<T>(2, -1), T(1), T(1)};
  int cases = 0;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (Op trans : {Op::N, herm ? Op::C : Op::T})
      for (std::int64_t n : {0, 1, 5, 13, 37})
        for (std::int64_t k : {0, 1, 7})
            for (int s = 0; s < 5; ++s) {
              T alpha = alphas[s], beta = betas[s];
              if (herm) beta = T(std::real(beta));
              if (routine == Routine::Herk || routine == Routine::Herkx) alpha = T(std::real(alpha));
              const bool by_rows = trans == Op::N;
              Matrix<T> a(by_rows ? n : k, by_rows ? k : n, 1), b(by_rows ? n : k, by_rows ? k : n, 2);
              a.randomize(rng);
              b.randomize(rng);
              if (routine == Routine::Syrk || routine == Routine::Herk) b = a;
              if (routine == Routine::Herkx) {  // op(A) R op(A)^H with R real diagonal: Hermitian
                b = a;
                for (std::int64_t l = 0; l < k; ++l) {
                  const double r = 0.5 + std::abs(std::real(random_value<T>(rng)));
                  for (std::int64_t i = 0; i < n; ++i) (by_rows ? b(i, l) : b(l, i)) *= static_cast<typename Traits<T>::Real>(r);
                }
              }
              Matrix<T> c(n, n, 1);
              for (std::int64_t j = 0; j < n; ++j)
                for (std::int64_t i = 0; i < n; ++i)
                  if (stored(uplo, i, j) && beta != T(0)) c(i, j) = random_value<T>(rng);
              if constexpr (Traits<T>::complex)
                if (routine == Routine::Herkx && beta != T(0))
                  for (std::int64_t i = 0; i < n; ++i) c(i, i).imag(0);
              Matrix<T> want = c;
              reference(routine, uplo, trans, n, k, alpha, a, b, beta, want);

              const RankK spec{uplo, trans, herm, n, k};
              if (routine == Routine::Syr2k || routine == Routine::Her2k)
                rank_2k(*engine, spec, scalar(alpha), a.view(), b.view(), scalar(beta), c.view());
              else
                rank_k(*engine, spec, scalar(alpha), a.view(), b.view(), scalar(beta), c.view());
              const std::string err =
                  compare(c, want, tolerance<T>(2 * k + 2), [&](std::int64_t i, std::int64_t j) { return stored(uplo, i, j); });
              ASSERT_EQ(err, "") << name(routine) << " uplo " << code(uplo) << " trans " << code(trans) << " n " << n
                                  << " k " << k << " alpha " << alpha << " beta " << beta;
              ++cases;
            }
  EXPECT_GT(cases, 0);
}

TYPED_TEST(RankUpdates, Syrk) { run<TypeParam>(Routine::Syrk); }
TYPED_TEST(RankUpdates, Syrkx) { run<TypeParam>(Routine::Syrkx); }
TYPED_TEST(RankUpdates, Syr2k) { run<TypeParam>(Routine::Syr2k); }

TYPED_TEST(RankUpdates, Herk) {
  if constexpr (Traits<TypeParam>::complex) run<TypeParam>(Routine::Herk); else GTEST_SKIP() << "complex only";
}
TYPED_TEST(RankUpdates, Herkx) {
  if constexpr (Traits<TypeParam>::complex) run<TypeParam>(Routine::Herkx); else GTEST_SKIP() << "complex only";
}
TYPED_TEST(RankUpdates, Her2k) {
  if constexpr (Traits<TypeParam>::complex) run<TypeParam>(Routine::Her2k); else GTEST_SKIP() << "complex only";
}

}  // namespace
}  // namespace blas3test
