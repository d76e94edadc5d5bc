// TRSM, blocked and right-looking: B is scaled by alpha once; then, diagonal block by diagonal
// block in the order the triangle dictates, X_i = inv(op(A_ii)) B_i (engine inverse + GEMM) and
// the not yet solved part of B is updated with one GEMM. inv(op(D)) == op(inv(D)), so the
// inverse is taken of the stored block and applied with the same op.
#include <algorithm>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

struct Blocks {
  std::int64_t dim, nb;
  bool forward;
  std::int64_t count() const { return (dim + nb - 1) / nb; }
  // Start of the i-th block in solve order.
  std::int64_t start(std::int64_t i) const { return (forward ? i : count() - 1 - i) * nb; }
  std::int64_t size(std::int64_t s) const { return std::min(nb, dim - s); }
};

}  // namespace

void invert_blocked(Engine& e, Uplo uplo, Diag diag, std::int64_t n, MatView a, MatView w) {
  if (n <= e.max_inverse()) {
    e.invert_triangle(uplo, diag, n, a, w);
    return;
  }
  const DataType t = e.data();
  // Split on a multiple of the engine's block so the leaves are full blocks.
  const std::int64_t leaf = std::max<std::int64_t>(1, e.max_inverse());
  const std::int64_t n1 = std::max<std::int64_t>(leaf, (n / 2) / leaf * leaf), n2 = n - n1;
  invert_blocked(e, uplo, diag, n1, a, w);
  invert_blocked(e, uplo, diag, n2, sub(a, n1, n1, t), sub(w, n1, n1, t));
  const Scalar one{1, 0}, minus_one{-1, 0};
  if (uplo == Uplo::Lower) {
    Scratch tmp(e, n2, n1);  // A21 inv11
    e.gemm(Op::N, Op::N, n2, n1, n1, one, sub(a, n1, 0, t), w, Scalar{}, tmp.view());
    e.gemm(Op::N, Op::N, n2, n1, n2, minus_one, sub(w, n1, n1, t), tmp.view(), Scalar{}, sub(w, n1, 0, t));
    e.scale(n1, n2, Scalar{}, sub(w, 0, n1, t));
  } else {
    Scratch tmp(e, n1, n2);  // A12 inv22
    e.gemm(Op::N, Op::N, n1, n2, n2, one, sub(a, 0, n1, t), sub(w, n1, n1, t), Scalar{}, tmp.view());
    e.gemm(Op::N, Op::N, n1, n2, n1, minus_one, w, tmp.view(), Scalar{}, sub(w, 0, n1, t));
    e.scale(n2, n1, Scalar{}, sub(w, n1, 0, t));
  }
}

void trsm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, Blocking blk) {
  if (m == 0 || n == 0) return;
  if (alpha.is_zero()) {  // B = 0, A not referenced
    e.scale(m, n, alpha, b);
    return;
  }
  const DataType t = e.data();
  const bool left = side == Side::Left;
  const std::int64_t dim = left ? m : n;
  // Left: op(A) lower-triangular solves top-down; right: op(A) upper-triangular solves left to right.
  const bool op_lower = (uplo == Uplo::Lower) == (transa == Op::N);
  const Blocks blocks{dim, std::max<std::int64_t>(1, std::min(blk.nb, dim)), left ? op_lower : !op_lower};
  const Scalar one{1, 0}, minus_one{-1, 0};
  Scratch inv(e, blocks.nb, blocks.nb);
  Scratch solved(e, left ? blocks.nb : m, left ? n : blocks.nb);
  if (!alpha.is_one()) e.scale(m, n, alpha, b);  // after the scratch: a refusal before here changed nothing

  for (std::int64_t i = 0; i < blocks.count(); ++i) {
    const std::int64_t s = blocks.start(i), w = blocks.size(s);
    invert_blocked(e, uplo, diag, w, sub(a, s, s, t), inv.view());
    // Rows (left) or columns (right) not solved yet, and the block of op(A) coupling them to s.
    const std::int64_t rest0 = blocks.forward ? s + w : 0;
    const std::int64_t rest = blocks.forward ? dim - s - w : s;
    if (left) {
      e.gemm(transa, Op::N, w, n, w, one, inv.view(), sub(b, s, 0, t), Scalar{}, solved.view());
      e.copy(w, n, solved.view(), sub(b, s, 0, t));
      if (rest > 0) {
        // op(A)(rest, s): stored at A(rest, s) for N, at A(s, rest) transposed otherwise.
        const MatView coupling = transa == Op::N ? sub(a, rest0, s, t) : sub(a, s, rest0, t);
        e.gemm(transa, Op::N, rest, n, w, minus_one, coupling, sub(b, s, 0, t), one, sub(b, rest0, 0, t));
      }
    } else {
      e.gemm(Op::N, transa, m, w, w, one, sub(b, 0, s, t), inv.view(), Scalar{}, solved.view());
      e.copy(m, w, solved.view(), sub(b, 0, s, t));
      if (rest > 0) {
        // op(A)(s, rest): stored at A(s, rest) for N, at A(rest, s) transposed otherwise.
        const MatView coupling = transa == Op::N ? sub(a, s, rest0, t) : sub(a, rest0, s, t);
        e.gemm(Op::N, transa, m, rest, w, minus_one, sub(b, 0, s, t), coupling, one, sub(b, 0, rest0, t));
      }
    }
  }
}

}  // namespace ptxblas::blas3
