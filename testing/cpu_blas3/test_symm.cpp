// SYMM / HEMM through the adaptor on the CPU engine vs the reference BLAS: both sides, both
// triangles, ragged sizes, alpha/beta zero cases. A's unstored triangle is NaN (must not be read);
// for HEMM so is the imaginary part of its diagonal.
#include "blas3_testing.hpp"
#include "reference_blas.hpp"

namespace blas3test {
namespace {

template <class T>
class Symm : public ::testing::Test {};
TYPED_TEST_SUITE(Symm, ElementTypes);

template <class T>
void run(bool hermitian) {
  std::mt19937_64 rng(1234);
  auto engine = make_cpu_engine(data_type<T>());
  const std::int64_t sizes[] = {0, 1, 3, 17};
  const T alphas[] = {mix<T>(1.5, -0.5), mix<T>(-0.5, 0.25), T(0), T(0)};
  const T betas[] = {mix<T>(0.5, 0.75), T(0), mix<T>(2, -1), T(1)};
  int cases = 0;
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (std::int64_t m : sizes)
        for (std::int64_t n : sizes)
          for (int s = 0; s < 4; ++s) {
            const std::int64_t dim = side == Side::Left ? m : n;
            Matrix<T> a(dim, dim, 1), b(m, n, 2), c(m, n, 1);
            a.randomize(rng);
            b.randomize(rng);
            for (std::int64_t j = 0; j < dim; ++j)
              for (std::int64_t i = 0; i < dim; ++i)
                if (uplo == Uplo::Lower ? i < j : i > j) a(i, j) = quiet_nan<T>();
            if constexpr (Traits<T>::complex)
              if (hermitian)
                for (std::int64_t i = 0; i < dim; ++i) a(i, i).imag(std::numeric_limits<double>::quiet_NaN());
            if (betas[s] != T(0)) c.randomize(rng);  // else C stays NaN: beta = 0 must not read it
            Matrix<T> want = c;
            const T alpha = alphas[s], beta = betas[s];
            const char cs = code(side), cu = code(uplo);
            const int mi = static_cast<int>(m), ni = static_cast<int>(n);
            if constexpr (Traits<T>::complex) {
              if (hermitian)
                RefHermitian<T>::hemm(&cs, &cu, &mi, &ni, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(),
                                      &beta, want.v.data(), &want.ld32(), 1, 1);
            }
            if (!hermitian)
              Ref<T>::symm(&cs, &cu, &mi, &ni, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta,
                           want.v.data(), &want.ld32(), 1, 1);
            symm(*engine, side, uplo, hermitian, m, n, scalar(alpha), a.view(), b.view(), scalar(beta), c.view());
            const std::string err = compare(c, want, tolerance<T>(dim), [](auto, auto) { return true; });
            ASSERT_EQ(err, "") << (hermitian ? "hemm" : "symm") << " side " << cs << " uplo " << cu << " m " << m
                               << " n " << n << " alpha " << alpha << " beta " << beta;
            ++cases;
          }
  EXPECT_GT(cases, 0);
}

TYPED_TEST(Symm, MatchesReferenceSymm) { run<TypeParam>(false); }

TYPED_TEST(Symm, MatchesReferenceHemm) {
  if constexpr (Traits<TypeParam>::complex)
    run<TypeParam>(true);
  else
    GTEST_SKIP() << "HEMM is complex only";
}

}  // namespace
}  // namespace blas3test
