// The tiles a host call is cut into for the offload (dispatch/offload_split.hpp), run in place on
// the CPU engine, against Netlib on the same data: every way of every routine, at widths that
// leave ragged last tiles, so each tile's slices and shifted views are checked without a device.
#include <gtest/gtest.h>

#include "blas3_testing.hpp"
#include "cpu_engine.hpp"
#include "offload_split.hpp"
#include "reference_blas.hpp"
#include "triangular_setup.hpp"

namespace {

using namespace blas3test;
using ptxblas::dispatch::HostOperand;
using ptxblas::dispatch::TiledWork;

template <class T>
HostOperand host(Matrix<T>& x, bool written = false, char triangle = 0) {
  return {x.v.data(), x.rows, x.cols, x.ld, written, triangle};
}

Op op_of(char c) { return c == 'N' ? Op::N : c == 'T' ? Op::T : Op::C; }

constexpr std::int64_t kWidths[] = {1, 5, 16, 1000};

// Every way of `ways()` at every width, on a fresh copy of `start` in `out`, against `want`.
template <class T, class Ways, class Pick>
void expect_tiles(const std::string& what, Matrix<T>& out, const Matrix<T>& start, const Matrix<T>& want, Ways ways,
                  double tol, Pick pick) {
  const auto e = make_cpu_engine(data_type<T>());
  const std::size_t count = ways().size();
  ASSERT_GT(count, 0u) << what;
  for (std::size_t w = 0; w < count; ++w)
    for (std::int64_t width : kWidths) {
      out = start;
      ptxblas::dispatch::run_tiles_in_place(*e, ways()[w], width);
      EXPECT_EQ(compare(out, want, tol, pick), "") << what << " way " << w << " width " << width;
    }
}

auto everywhere = [](auto, auto) { return true; };

template <class T>
class OffloadSplit : public ::testing::Test {};
TYPED_TEST_SUITE(OffloadSplit, ElementTypes);

TYPED_TEST(OffloadSplit, Gemm) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  const int m = 37, n = 29, k = 13;
  for (char ta : {'N', 'T', 'C'})
    for (char tb : {'N', 'T', 'C'}) {
      const bool na = ta == 'N', nb = tb == 'N';
      Matrix<T> a(na ? m : k, na ? k : m, 1), b(nb ? k : n, nb ? n : k, 2), c(m, n, 3);
      a.randomize(rng), b.randomize(rng), c.randomize(rng);
      const Matrix<T> start = c;
      Matrix<T> want = c;
      const T alpha = mix<T>(1.5, -0.5), beta = mix<T>(-0.25, 0.5);
      Ref<T>::gemm(&ta, &tb, &m, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, want.v.data(),
                   &want.ld32(), 1, 1);
      const auto ways = [&] {
        return ptxblas::dispatch::gemm_tiles(data_type<T>(), op_of(ta), op_of(tb), m, n, k, scalar(alpha),
                                             scalar(beta), host(a), host(b), host(c, true));
      };
      ASSERT_EQ(ways().size(), 3u);
      expect_tiles(std::string("gemm ") + ta + tb, c, start, want, ways, tolerance<T>(k), everywhere);
    }
}

TYPED_TEST(OffloadSplit, SymmAndHemm) {
  using T = TypeParam;
  std::mt19937_64 rng(8);
  const int m = 33, n = 27;
  for (bool herm : {false, true}) {
    if (herm && !Traits<T>::complex) continue;
    for (Side side : {Side::Left, Side::Right})
      for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
        const int dim = side == Side::Left ? m : n;
        Matrix<T> a(dim, dim, 1), b(m, n, 2), c(m, n, 1);
        a.randomize(rng), b.randomize(rng), c.randomize(rng);
        const Matrix<T> start = c;
        Matrix<T> want = c;
        const T alpha = mix<T>(0.5, 1), beta = mix<T>(2, -1);
        const char s = code(side), u = code(uplo);
        if constexpr (Traits<T>::complex) {
          if (herm) {
            RefHermitian<T>::hemm(&s, &u, &m, &n, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta,
                                  want.v.data(), &want.ld32(), 1, 1);
          }
        }
        if (!herm)
          Ref<T>::symm(&s, &u, &m, &n, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta, want.v.data(),
                       &want.ld32(), 1, 1);
        const auto ways = [&] {
          return ptxblas::dispatch::symm_tiles(data_type<T>(), side, uplo, herm, m, n, scalar(alpha), scalar(beta),
                                               host(a), host(b), host(c, true));
        };
        expect_tiles(std::string(herm ? "hemm " : "symm ") + s + u, c, start, want, ways, tolerance<T>(dim),
                     everywhere);
      }
  }
}

TYPED_TEST(OffloadSplit, TrmmAndTrsm) {
  using T = TypeParam;
  std::mt19937_64 rng(9);
  const int m = 35, n = 26;
  for (bool solve : {false, true})
    for (Side side : {Side::Left, Side::Right})
      for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Op op : {Op::N, Op::T, Op::C}) {
          const Diag diag = op == Op::T ? Diag::Unit : Diag::NonUnit;
          const int dim = side == Side::Left ? m : n;
          Matrix<T> a = triangular<T>(dim, uplo, diag, rng), b(m, n, 2);
          b.randomize(rng);
          const Matrix<T> start = b;
          Matrix<T> want = b;
          const T alpha = mix<T>(-1.5, 0.25);
          const char s = code(side), u = code(uplo), t = code(op), d = code(diag);
          (solve ? Ref<T>::trsm : Ref<T>::trmm)(&s, &u, &t, &d, &m, &n, &alpha, a.v.data(), &a.ld32(), want.v.data(),
                                                &want.ld32(), 1, 1, 1, 1);
          const auto ways = [&] {
            return ptxblas::dispatch::triangular_tiles(data_type<T>(), {solve, side, uplo, op, diag}, m, n,
                                                       scalar(alpha), host(a), host(b, true));
          };
          expect_tiles(std::string(solve ? "trsm " : "trmm ") + s + u + t + d, b, start, want, ways,
                       50 * tolerance<T>(dim), everywhere);
        }
}

TYPED_TEST(OffloadSplit, RankKFamily) {
  using T = TypeParam;
  std::mt19937_64 rng(10);
  const int n = 38, k = 11;
  for (bool herm : {false, true}) {
    if (herm && !Traits<T>::complex) continue;
    for (bool two : {false, true})
      for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (char trans : {'N', herm ? 'C' : 'T'}) {
          const bool by_rows = trans == 'N';
          Matrix<T> a(by_rows ? n : k, by_rows ? k : n, 1), b(by_rows ? n : k, by_rows ? k : n, 2), c(n, n, 1);
          a.randomize(rng), b.randomize(rng), c.randomize(rng);
          const Matrix<T> start = c;
          Matrix<T> want = c;
          const char u = code(uplo);
          const T alpha = herm && !two ? mix<T>(0.75, 0) : mix<T>(0.75, -0.5);
          const T beta = herm ? mix<T>(-1.25, 0) : mix<T>(-1.25, 0.5);
          if constexpr (Traits<T>::complex) {
            using R = typename Traits<T>::Real;
            const R ra = alpha.real(), rb = beta.real();
            if (herm && two)
              RefHermitian<T>::her2k(&u, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &rb,
                                     want.v.data(), &want.ld32(), 1, 1);
            if (herm && !two)
              RefHermitian<T>::herk(&u, &trans, &n, &k, &ra, a.v.data(), &a.ld32(), &rb, want.v.data(), &want.ld32(), 1,
                                    1);
          }
          if (!herm && two)
            Ref<T>::syr2k(&u, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), b.v.data(), &b.ld32(), &beta,
                          want.v.data(), &want.ld32(), 1, 1);
          if (!herm && !two)
            Ref<T>::syrk(&u, &trans, &n, &k, &alpha, a.v.data(), &a.ld32(), &beta, want.v.data(), &want.ld32(), 1, 1);
          const auto ways = [&] {
            std::vector<HostOperand> ops{host(a)};
            if (two) ops.push_back(host(b));
            ops.push_back(host(c, true, u));
            const RankK spec{uplo, op_of(trans), herm, n, k};
            return ptxblas::dispatch::rank_k_tiles(data_type<T>(), spec, two, scalar(alpha), scalar(beta), ops);
          };
          const auto stored = [&](std::int64_t i, std::int64_t j) { return uplo == Uplo::Lower ? i >= j : i <= j; };
          expect_tiles(std::string(herm ? "her" : "syr") + (two ? "2k " : "k ") + u + trans, c, start, want, ways,
                       tolerance<T>(2 * k), stored);
        }
  }
}

}  // namespace
