// TRSM, recursive: B is scaled by alpha once; the triangle is split in halves (whole leaves of
// nb), the half the triangle dictates is solved first, the other half of B is updated with one
// large GEMM, then solved. A leaf is X_i = inv(op(A_ii)) B_i (engine inverse + GEMM).
// inv(op(D)) == op(inv(D)), so the inverse is taken of the stored block and applied with the
// same op.
#include <algorithm>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

struct Trsm {
  Engine& e;
  bool left;
  Uplo uplo;
  Op transa;
  Diag diag;
  std::int64_t m, n;
  MatView a, b, inv, solved;
  std::int64_t nb;
  bool forward;  // the first half is solved first (left: op(A) lower; right: op(A) upper)
  DataType t;

  // Where op(A)'s block at (r0, c0) is stored (op applied by the GEMM).
  MatView op_a(std::int64_t r0, std::int64_t c0) const {
    return transa == Op::N ? sub(a, r0, c0, t) : sub(a, c0, r0, t);
  }

  void leaf(std::int64_t i, std::int64_t d) {
    const Scalar one{1, 0};
    invert_blocked(e, uplo, diag, d, sub(a, i, i, t), inv);
    if (left) {
      e.gemm(transa, Op::N, d, n, d, one, inv, sub(b, i, 0, t), Scalar{}, solved);
      e.copy(d, n, solved, sub(b, i, 0, t));
    } else {
      e.gemm(Op::N, transa, m, d, d, one, sub(b, 0, i, t), inv, Scalar{}, solved);
      e.copy(m, d, solved, sub(b, 0, i, t));
    }
  }

  // B's rows (left) or columns (right) [to, to + dt) -= the coupling block times the solved X of
  // [from, from + df).
  void update(std::int64_t to, std::int64_t dt, std::int64_t from, std::int64_t df) {
    const Scalar one{1, 0}, minus_one{-1, 0};
    if (left)
      e.gemm(transa, Op::N, dt, n, df, minus_one, op_a(to, from), sub(b, from, 0, t), one, sub(b, to, 0, t));
    else
      e.gemm(Op::N, transa, m, dt, df, minus_one, sub(b, 0, from, t), op_a(from, to), one, sub(b, 0, to, t));
  }

  void run(std::int64_t i, std::int64_t d) {
    if (d <= nb) return leaf(i, d);
    const std::int64_t leaves = (d + nb - 1) / nb;
    const std::int64_t d1 = nb * ((leaves + 1) / 2), d2 = d - d1, j = i + d1;
    if (forward) {
      run(i, d1);
      update(j, d2, i, d1);
      run(j, d2);
    } else {
      run(j, d2);
      update(i, d1, j, d2);
      run(i, d1);
    }
  }
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
  const std::int64_t nb = std::max<std::int64_t>(1, std::min(blk.nb, dim));
  Scratch inv(e, nb, nb);
  Scratch solved(e, left ? nb : m, left ? n : nb);
  if (!alpha.is_one()) e.scale(m, n, alpha, b);  // after the scratch: a refusal before here changed nothing
  Trsm{e, left, uplo, transa, diag, m, n, a, b, inv.view(), solved.view(), nb, left ? op_lower : !op_lower, t}.run(
      0, dim);
}

}  // namespace ptxblas::blas3
