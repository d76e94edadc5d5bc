// SYRK / SYRKX / HERK / HERKX / SYR2K / HER2K: C's stored triangle split recursively in halves
// (whole leaves of nb each): the off-diagonal square of each split is one plain GEMM straight
// into C, so most of the work runs as a few large GEMMs; each diagonal leaf is a GEMM into
// scratch, of which only the stored triangle is blended into C. Nothing outside the triangle is
// read or written.
#include <algorithm>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

// op(X) rows starting at i (X: the n x k operand as multiplied) and op(Y)^T columns starting at j.
struct Operands {
  Op opx, opy;
  MatView x, y;
  DataType t;
  bool by_rows;  // trans N: X and Y are stored n x k
  MatView x_at(std::int64_t i) const { return by_rows ? sub(x, i, 0, t) : sub(x, 0, i, t); }
  MatView y_at(std::int64_t j) const { return by_rows ? sub(y, j, 0, t) : sub(y, 0, j, t); }
};

Operands operands(const RankK& r, DataType t, MatView x, MatView y) {
  const Op conj_or_t = r.hermitian ? Op::C : Op::T;
  if (r.trans == Op::N) return {Op::N, conj_or_t, x, y, t, true};
  return {conj_or_t, Op::N, x, y, t, false};
}

bool nothing_to_add(const RankK& r, Scalar alpha) { return alpha.is_zero() || r.k == 0; }

// Triangle rows/columns [i, i + n) of C = alpha op(X) op(Y)^{T|H} + beta C.
void triangle(Engine& e, const RankK& r, const Operands& o, Scalar alpha, Scalar beta, MatView c, std::int64_t i,
              std::int64_t n, std::int64_t nb, MatView diag) {
  const DataType t = e.data();
  if (n <= nb) {
    e.gemm(o.opx, o.opy, n, n, r.k, alpha, o.x_at(i), o.y_at(i), Scalar{}, diag);
    e.blend_triangle(r.uplo, r.hermitian, n, diag, beta, sub(c, i, i, t));
    return;
  }
  // The first half of the leaves (rounded up): at least one, fewer than all, since n > nb.
  const std::int64_t leaves = (n + nb - 1) / nb;
  const std::int64_t first = nb * ((leaves + 1) / 2);
  const std::int64_t n2 = n - first;
  triangle(e, r, o, alpha, beta, c, i, first, nb, diag);
  if (r.uplo == Uplo::Lower)
    e.gemm(o.opx, o.opy, n2, first, r.k, alpha, o.x_at(i + first), o.y_at(i), beta, sub(c, i + first, i, t));
  else
    e.gemm(o.opx, o.opy, first, n2, r.k, alpha, o.x_at(i), o.y_at(i + first), beta, sub(c, i, i + first, t));
  triangle(e, r, o, alpha, beta, c, i + first, n2, nb, diag);
}

// One pass over the whole triangle.
void pass(Engine& e, const RankK& r, Scalar alpha, MatView x, MatView y, Scalar beta, MatView c, Blocking blk) {
  const std::int64_t nb = std::max<std::int64_t>(1, std::min(blk.nb, r.n));
  Scratch diag(e, nb, nb);
  triangle(e, r, operands(r, e.data(), x, y), alpha, beta, c, 0, r.n, nb, diag.view());
}

}  // namespace

void rank_k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c, Blocking blk) {
  if (r.n == 0 || (nothing_to_add(r, alpha) && beta.is_one())) return;
  pass(e, r, alpha, a, b, beta, c, blk);
}

void rank_2k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c, Blocking blk) {
  if (r.n == 0 || (nothing_to_add(r, alpha) && beta.is_one())) return;
  pass(e, r, alpha, a, b, beta, c, blk);
  const Scalar second = r.hermitian ? Scalar{alpha.re, -alpha.im} : alpha;
  if (!nothing_to_add(r, alpha)) pass(e, r, second, b, a, Scalar{1, 0}, c, blk);
}

}  // namespace ptxblas::blas3
