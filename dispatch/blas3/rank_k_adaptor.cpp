// SYRK / SYRKX / HERK / HERKX / SYR2K / HER2K: C's stored triangle in block columns of nb. The
// part strictly off the diagonal blocks is plain GEMM straight into C; each diagonal block is a
// GEMM into scratch, of which only the stored triangle is blended into C. Nothing outside the
// triangle is read or written.
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

// One pass: triangle of C = alpha op(X) op(Y)^{T|H} + beta C.
void pass(Engine& e, const RankK& r, Scalar alpha, MatView x, MatView y, Scalar beta, MatView c, Blocking blk) {
  const DataType t = e.data();
  const Operands o = operands(r, t, x, y);
  const std::int64_t nb = std::max<std::int64_t>(1, std::min(blk.nb, r.n));
  Scratch diag(e, nb, nb);
  for (std::int64_t j = 0; j < r.n; j += nb) {
    const std::int64_t jb = std::min(nb, r.n - j);
    e.gemm(o.opx, o.opy, jb, jb, r.k, alpha, o.x_at(j), o.y_at(j), Scalar{}, diag.view());
    e.blend_triangle(r.uplo, r.hermitian, jb, diag.view(), beta, sub(c, j, j, t));
    if (r.uplo == Uplo::Lower) {
      const std::int64_t below = r.n - j - jb;
      if (below > 0) e.gemm(o.opx, o.opy, below, jb, r.k, alpha, o.x_at(j + jb), o.y_at(j), beta, sub(c, j + jb, j, t));
    } else if (j > 0) {
      e.gemm(o.opx, o.opy, j, jb, r.k, alpha, o.x_at(0), o.y_at(j), beta, sub(c, 0, j, t));
    }
  }
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
