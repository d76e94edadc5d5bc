// TRMM (cuBLAS's out-of-place form, and in place with C == B) through the adaptor on the CPU
// engine vs the reference BLAS's in-place TRMM: every side / uplo / trans / diag.
#include "reference_blas.hpp"
#include "triangular_setup.hpp"

namespace blas3test {
namespace {

template <class T>
class Trmm : public ::testing::Test {};
TYPED_TEST_SUITE(Trmm, ElementTypes);

TYPED_TEST(Trmm, MatchesReference) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  auto engine = make_cpu_engine(data_type<T>());
  const T alphas[] = {T(1), mix<T>(0.5, -0.25), T(0)};
  int cases = 0;
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (Op trans : {Op::N, Op::T, Op::C})
        for (Diag diag : {Diag::NonUnit, Diag::Unit})
          for (std::int64_t m : {0, 1, 4, 13})
            for (std::int64_t n : {0, 1, 4, 13})
              // One banded GEMM over the materialised triangle (the default); recursive halving
              // (triangle_bytes 0) with leaves of 4.
              for (std::int64_t nb : {4, -4})
                for (int s = 0; s < 3; ++s)
                  for (bool in_place : {false, true}) {
                    const std::int64_t dim = side == Side::Left ? m : n;
                    Matrix<T> a = triangular<T>(dim, uplo, diag, rng);
                    Matrix<T> b(m, n, 2);
                    b.randomize(rng);
                    Matrix<T> want = b;
                    const T alpha = alphas[s];
                    const char cs = code(side), cu = code(uplo), ct = code(trans), cd = code(diag);
                    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
                    Ref<T>::trmm(&cs, &cu, &ct, &cd, &mi, &ni, &alpha, a.v.data(), &a.ld32(), want.v.data(),
                                 &want.ld32(), 1, 1, 1, 1);
                    Matrix<T> c(m, n, 1);  // out of place: C starts NaN and is never read
                    Matrix<T>& out = in_place ? b : c;
                    const Blocking blk = nb > 0 ? Blocking{nb} : Blocking{-nb, Blocking{}.solution_bytes, 0};
                    trmm(*engine, side, uplo, trans, diag, m, n, scalar(alpha), a.view(), b.view(), out.view(),
                         blk);
                    Matrix<T> got(m, n, 2);
                    for (std::int64_t j = 0; j < n; ++j)
                      for (std::int64_t i = 0; i < m; ++i) got(i, j) = out(i, j);
                    const std::string err = compare(got, want, tolerance<T>(dim), [](auto, auto) { return true; });
                    ASSERT_EQ(err, "") << "trmm " << cs << cu << ct << cd << " m " << m << " n " << n << " alpha "
                                       << alpha << " nb " << nb << (in_place ? " in place" : "");
                    ++cases;
                  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace blas3test
