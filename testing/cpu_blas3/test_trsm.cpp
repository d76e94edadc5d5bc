// TRSM through the blocked adaptor on the CPU engine vs the reference BLAS: every side / uplo /
// trans / diag, block sizes that cut A into many diagonal blocks (and one that does not), with the
// solution kept whole in scratch and copied per leaf.
#include "reference_blas.hpp"
#include "triangular_setup.hpp"

namespace blas3test {
namespace {

template <class T>
class Trsm : public ::testing::Test {};
TYPED_TEST_SUITE(Trsm, ElementTypes);

TYPED_TEST(Trsm, MatchesReference) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  // Leaves of min(nb, max_inverse): 1, 2 and 3 (many leaves, the last one narrower) and whole.
  auto small = make_cpu_engine(data_type<T>(), 3), whole = make_cpu_engine(data_type<T>());
  const T alphas[] = {T(1), mix<T>(-1.5, 0.5), T(0)};
  int cases = 0;
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (Op trans : {Op::N, Op::T, Op::C})
        for (Diag diag : {Diag::NonUnit, Diag::Unit})
          for (std::int64_t m : {0, 1, 5, 17})
            for (std::int64_t n : {0, 1, 5, 17})
              for (std::int64_t nb : {1, 2, 3, 128})
                for (int s = 0; s < 4; ++s) {  // s == 3: alpha = 1, a copy per leaf (B too large to keep)
                  const std::int64_t dim = side == Side::Left ? m : n;
                  Matrix<T> a = triangular<T>(dim, uplo, diag, rng);
                  Matrix<T> b(m, n, 1);
                  b.randomize(rng);
                  Matrix<T> want = b;
                  const T alpha = alphas[s % 3];
                  const Blocking blk{nb, s == 3 ? 0 : Blocking{}.solution_bytes};
                  const char cs = code(side), cu = code(uplo), ct = code(trans), cd = code(diag);
                  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
                  Ref<T>::trsm(&cs, &cu, &ct, &cd, &mi, &ni, &alpha, a.v.data(), &a.ld32(), want.v.data(),
                               &want.ld32(), 1, 1, 1, 1);
                  Engine& engine = nb == 128 ? *whole : *small;
                  trsm(engine, side, uplo, trans, diag, m, n, scalar(alpha), a.view(), b.view(), blk);
                  const std::string err = compare(b, want, 4 * tolerance<T>(dim), [](auto, auto) { return true; });
                  ASSERT_EQ(err, "") << "trsm " << cs << cu << ct << cd << " m " << m << " n " << n << " nb " << nb
                                     << " alpha " << alpha;
                  ++cases;
                }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace blas3test
