// TRSM through the blocked adaptor on the CPU engine vs the reference BLAS: every side / uplo /
// trans / diag, block sizes that cut A into many diagonal blocks (and one that does not), with the
// B-shaped scratch of the updates (perf notes §65) and with one leaf's scratch copied back per leaf.
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

// Triangles of 260 and 600 take leaves of 64 and 128 (the GPU's wider inverses), the last one
// narrower; n = 3 keeps the reference cheap.
TYPED_TEST(Trsm, WideLeavesMatchReference) {
  using T = TypeParam;
  std::mt19937_64 rng(12);
  auto engine = make_cpu_engine(data_type<T>(), 128);
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (Op trans : {Op::N, Op::C})
        for (std::int64_t dim : {260, 600}) {
          const std::int64_t m = side == Side::Left ? dim : 3, n = side == Side::Left ? 3 : dim;
          Matrix<T> a = triangular<T>(dim, uplo, Diag::NonUnit, rng);
          Matrix<T> b(m, n, 2);
          b.randomize(rng);
          Matrix<T> want = b;
          const T alpha = mix<T>(0.5, -1);
          const char cs = code(side), cu = code(uplo), ct = code(trans), cd = 'N';
          const int mi = static_cast<int>(m), ni = static_cast<int>(n);
          Ref<T>::trsm(&cs, &cu, &ct, &cd, &mi, &ni, &alpha, a.v.data(), &a.ld32(), want.v.data(), &want.ld32(), 1, 1,
                       1, 1);
          trsm(*engine, side, uplo, trans, Diag::NonUnit, m, n, scalar(alpha), a.view(), b.view(), Blocking{});
          const std::string err = compare(b, want, 4 * tolerance<T>(dim), [](auto, auto) { return true; });
          ASSERT_EQ(err, "") << "trsm " << cs << cu << ct << " dim " << dim;
        }
}

// LAPACK's getrf panel solve (L L N U) with an LU factor of order 600: leaves of 128 apply
// explicit inverses of 128-wide diagonal blocks, which amplify rounding errors by those blocks'
// condition; against the reference's substitution in the same precision, with leaves of 32 (the
// GPU's before) printed beside them. The bound is far inside tolerance() so that a loss of an
// order of magnitude shows.
TYPED_TEST(Trsm, LuFactorWithWideLeaves) {
  using T = TypeParam;
  std::mt19937_64 rng(13);
  const std::int64_t dim = 600, n = 16;
  Matrix<T> a = lu_unit_lower<T>(dim, rng);
  Matrix<T> b(dim, n, 1);
  b.randomize(rng);
  Matrix<T> want = b;
  const T one(1);
  const char cs = 'L', cu = 'L', ct = 'N', cd = 'U';
  const int mi = static_cast<int>(dim), ni = static_cast<int>(n);
  Ref<T>::trsm(&cs, &cu, &ct, &cd, &mi, &ni, &one, a.v.data(), &a.ld32(), want.v.data(), &want.ld32(), 1, 1, 1, 1);
  double worst[2] = {};
  for (int w = 0; w < 2; ++w) {
    auto engine = make_cpu_engine(data_type<T>(), w == 0 ? 32 : 128);
    Matrix<T> got = b;
    trsm(*engine, Side::Left, Uplo::Lower, Op::N, Diag::Unit, dim, n, scalar(one), a.view(), got.view(), Blocking{});
    double scale = 1;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < dim; ++i) {
        scale = std::max(scale, static_cast<double>(std::abs(want(i, j))));
        worst[w] = std::max(worst[w], static_cast<double>(std::abs(got(i, j) - want(i, j))));
      }
    worst[w] /= scale * tolerance<T>(dim);
  }
  std::printf("LU factor, order %lld: worst error / tolerance, leaves of 32: %.3g, of 128: %.3g\n",
              static_cast<long long>(dim), worst[0], worst[1]);
  EXPECT_LE(worst[1], 0.1);  // seen: 0.007-0.012 (leaves of 32: 0.005-0.007)
}

// Forwards every step to the CPU engine and notes where each writes: whether into the caller's B
// (its bytes) or elsewhere (scratch), and how many elements each copy moves.
class StepLog final : public Engine {
 public:
  StepLog(Engine& inner, const void* b, std::size_t bytes)
      : e_(inner), lo_(static_cast<const unsigned char*>(b)), hi_(lo_ + bytes) {}
  int leaves_into_b = 0, leaves_from_b = 0, updates_into_b = 0, copies = 0;
  std::int64_t copied = 0;  // elements

  DataType data() const override { return e_.data(); }
  std::string summary() const override { return e_.summary(); }
  bool wrote_caller_memory() const override { return e_.wrote_caller_memory(); }
  std::int64_t max_inverse() const override { return e_.max_inverse(); }
  void gemm(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar al, MatView a, MatView b, Scalar be,
            MatView c) override {
    updates_into_b += in_b(c);
    e_.gemm(ta, tb, m, n, k, al, a, b, be, c);
  }
  void gemm_into(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar al, MatView a, MatView b,
                 Scalar be, MatView c, MatView d) override {
    updates_into_b += in_b(d);
    e_.gemm_into(ta, tb, m, n, k, al, a, b, be, c, d);
  }
  void gemm_band(int band, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar al, MatView a,
                 MatView b, Scalar be, MatView c) override {
    leaves_into_b += in_b(c);
    leaves_from_b += band <= ptxblas::gen::kBandAUpper ? in_b(b) : in_b(a);  // the operand that is not the inverse
    e_.gemm_band(band, ta, tb, m, n, k, al, a, b, be, c);
  }
  void gemm_triangle(Uplo u, bool h, Op ta, Op tb, std::int64_t n, std::int64_t k, Scalar al, MatView a, MatView b,
                     Scalar be, MatView c) override {
    e_.gemm_triangle(u, h, ta, tb, n, k, al, a, b, be, c);
  }
  MatView scratch(std::int64_t rows, std::int64_t cols) override { return e_.scratch(rows, cols); }
  void release(MatView w) override { e_.release(w); }
  void symmetrize(Uplo u, bool h, std::int64_t n, MatView a, MatView w) override { e_.symmetrize(u, h, n, a, w); }
  void triangle(Uplo u, Diag d, std::int64_t n, MatView a, MatView w) override { e_.triangle(u, d, n, a, w); }
  void invert_diagonal_blocks(Uplo u, Diag d, std::int64_t n, std::int64_t bs, MatView a, MatView w) override {
    e_.invert_diagonal_blocks(u, d, n, bs, a, w);
  }
  void scale(std::int64_t m, std::int64_t n, Scalar al, MatView c) override { e_.scale(m, n, al, c); }
  void copy(std::int64_t m, std::int64_t n, MatView a, MatView b) override {
    ++copies;
    copied += m * n;
    e_.copy(m, n, a, b);
  }

 private:
  bool in_b(MatView v) const {
    const auto* p = static_cast<const unsigned char*>(v.p);
    return p >= lo_ && p < hi_;
  }
  Engine& e_;
  const unsigned char *lo_, *hi_;
};

// With the solution's scratch (perf notes §65): the updates write only the scratch, every leaf
// reads it and writes its X into B, and the one copy moves the one leaf no update reaches (the
// first solved: forward the top rows, backward the bottom ones); without it (B over
// solution_bytes), each leaf reads B and copies its X back, and the updates work in B.
TYPED_TEST(Trsm, StepsWriteBOnlyWhereTheySolve) {
  using T = TypeParam;
  std::mt19937_64 rng(17);
  const std::int64_t dim = 600, n = 5, leaves = 5;  // leaves of 128: 4 x 128 + 88
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (bool whole : {true, false}) {
        const std::int64_t m = side == Side::Left ? dim : n, nn = side == Side::Left ? n : dim;
        Matrix<T> a = triangular<T>(dim, uplo, Diag::NonUnit, rng);
        Matrix<T> b(m, nn, 2);
        b.randomize(rng);
        auto cpu = make_cpu_engine(data_type<T>(), 128);
        StepLog log(*cpu, b.v.data(), b.v.size() * sizeof(T));
        const Blocking blk{128, whole ? Blocking{}.solution_bytes : 0};
        trsm(log, side, uplo, Op::N, Diag::NonUnit, m, nn, scalar(T(1)), a.view(), b.view(), blk);
        const std::string what = std::string(1, code(side)) + code(uplo) + (whole ? " whole" : " per leaf");
        EXPECT_EQ(log.leaves_into_b, whole ? leaves : 0) << what;
        EXPECT_EQ(log.leaves_from_b, whole ? 0 : leaves) << what;
        EXPECT_EQ(log.copies, whole ? 1 : leaves) << what;
        const bool first_is_narrow = (side == Side::Left) != (uplo == Uplo::Lower);  // solved from the 88-wide end
        EXPECT_EQ(log.copied, whole ? (first_is_narrow ? 88 : 128) * n : dim * n) << what;
        if (whole) {
          EXPECT_EQ(log.updates_into_b, 0) << what;
        } else {
          EXPECT_EQ(log.updates_into_b, leaves - 1) << what;
        }
      }
}

// The widest leaves the engine and blk.nb allow (powers of two from 32 on), halved towards 32 while
// the triangle is shorter than 4 of them.
TEST(TrsmLeafWidth, WidestWithFourLeaves) {
  EXPECT_EQ(trsm_leaf_width(4096, 256, 256), 256);  // the GPU's default: 128-wide inverses doubled
  EXPECT_EQ(trsm_leaf_width(1024, 256, 256), 256);
  EXPECT_EQ(trsm_leaf_width(1023, 256, 256), 128);
  EXPECT_EQ(trsm_leaf_width(4096, 256, 128), 128);  // Z on the GPU
  EXPECT_EQ(trsm_leaf_width(4096, 128, 128), 128);
  EXPECT_EQ(trsm_leaf_width(512, 128, 128), 128);
  EXPECT_EQ(trsm_leaf_width(511, 128, 128), 64);
  EXPECT_EQ(trsm_leaf_width(256, 128, 128), 64);
  EXPECT_EQ(trsm_leaf_width(255, 128, 128), 32);
  EXPECT_EQ(trsm_leaf_width(100, 128, 128), 32);
  EXPECT_EQ(trsm_leaf_width(20, 128, 128), 20);  // one leaf
  EXPECT_EQ(trsm_leaf_width(4096, 128, 64), 64);
  EXPECT_EQ(trsm_leaf_width(4096, 3, 128), 3);
  EXPECT_EQ(trsm_leaf_width(4096, 100, 128), 64);  // a blocking the GPU's kernels cannot take
  EXPECT_EQ(trsm_leaf_width(4096, 48, 128), 32);
  EXPECT_EQ(trsm_leaf_width(4096, 128, 3), 3);
  EXPECT_EQ(trsm_leaf_width(0, 128, 128), 1);
}

}  // namespace
}  // namespace blas3test
