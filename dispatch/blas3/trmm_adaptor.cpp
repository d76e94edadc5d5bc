// TRMM (cuBLAS's out-of-place form). When C and B overlap, B is copied first (S): GEMM cannot run
// in place. Then, when the triangle fits blk.triangle_bytes, it is materialised whole (explicit
// zeros, unit diagonal) in scratch and C is one banded GEMM (Engine::gemm_band): each block of C
// sums only the part of K where its rows (Left) or columns (Right) of op(A) are not zero, about
// half a full GEMM's work in one launch (perf notes §34; 8 panels of rows or columns, one GEMM
// each, did 9/16 of it in launches of one wave or less). Else the triangle is split
// recursively in halves (whole leaves of nb): for op(A) lower, [C1; C2] = [L11 S1; L21 S1 + L22 S2]:
// each diagonal leaf materialised and multiplied by one GEMM, each off-diagonal block one large
// GEMM (upper and Right side alike).
#include <algorithm>
#include <optional>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

bool overlap(MatView b, MatView c, std::int64_t m, std::int64_t n, DataType t) {
  const auto es = gen::storage_bytes(t);
  const auto* b0 = static_cast<const unsigned char*>(b.p);
  const auto* c0 = static_cast<const unsigned char*>(c.p);
  const auto* b1 = b0 + ((n - 1) * b.ld + m) * es;
  const auto* c1 = c0 + ((n - 1) * c.ld + m) * es;
  return b0 < c1 && c0 < b1;
}

struct Trmm {
  Engine& e;
  Side side;
  Uplo uplo;
  Op transa;
  Diag diag;
  std::int64_t m, n;
  Scalar alpha;
  MatView a, s, c, tri;
  std::int64_t nb;
  DataType t;

  // op(A) lower triangular (stored lower and not transposed, or stored upper and transposed).
  bool lower() const { return (uplo == Uplo::Lower) == (transa == Op::N); }
  // Where op(X)'s block at (r0, c0) is stored (op applied by the GEMM); X is A or its triangle.
  MatView op_block(MatView x, std::int64_t r0, std::int64_t c0) const {
    return transa == Op::N ? sub(x, r0, c0, t) : sub(x, c0, r0, t);
  }

  // The diagonal block [i, i + d) of op(A) times S's matching rows (Left) or columns (Right).
  void leaf(std::int64_t i, std::int64_t d) {
    e.triangle(uplo, diag, d, sub(a, i, i, t), tri);
    if (side == Side::Left)
      e.gemm(transa, Op::N, d, n, d, alpha, tri, sub(s, i, 0, t), Scalar{}, sub(c, i, 0, t));
    else
      e.gemm(Op::N, transa, m, d, d, alpha, sub(s, 0, i, t), tri, Scalar{}, sub(c, 0, i, t));
  }

  // tri holds the whole materialised triangle (dim x dim): C = alpha op(tri) S or alpha S op(tri).
  void banded() {
    const std::int64_t dim = side == Side::Left ? m : n;
    e.triangle(uplo, diag, dim, a, tri);
    if (side == Side::Left)
      e.gemm_band(lower() ? gen::kBandALower : gen::kBandAUpper, transa, Op::N, m, n, dim, alpha, tri, s, Scalar{},
                  c);
    else
      e.gemm_band(lower() ? gen::kBandBLower : gen::kBandBUpper, Op::N, transa, m, n, dim, alpha, s, tri, Scalar{},
                  c);
  }

  void run(std::int64_t i, std::int64_t d) {
    if (d <= nb) return leaf(i, d);
    const std::int64_t leaves = (d + nb - 1) / nb;
    const std::int64_t d1 = nb * ((leaves + 1) / 2), d2 = d - d1, j = i + d1;
    run(i, d1);
    run(j, d2);
    const Scalar one{1, 0};
    if (side == Side::Left) {
      if (lower())  // C2 += op(A)21 S1
        e.gemm(transa, Op::N, d2, n, d1, alpha, op_block(a, j, i), sub(s, i, 0, t), one, sub(c, j, 0, t));
      else  // C1 += op(A)12 S2
        e.gemm(transa, Op::N, d1, n, d2, alpha, op_block(a, i, j), sub(s, j, 0, t), one, sub(c, i, 0, t));
    } else {
      if (lower())  // C1 += S2 op(A)21
        e.gemm(Op::N, transa, m, d1, d2, alpha, sub(s, 0, j, t), op_block(a, j, i), one, sub(c, 0, i, t));
      else  // C2 += S1 op(A)12
        e.gemm(Op::N, transa, m, d2, d1, alpha, sub(s, 0, i, t), op_block(a, i, j), one, sub(c, 0, j, t));
    }
  }
};

}  // namespace

void trmm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, MatView c, Blocking blk) {
  if (m == 0 || n == 0) return;
  if (alpha.is_zero()) {
    e.scale(m, n, Scalar{}, c);
    return;
  }
  const DataType t = e.data();
  const std::int64_t dim = side == Side::Left ? m : n;
  const bool whole = dim <= blk.triangle_bytes / gen::storage_bytes(t) / dim;  // dim^2 elements fit
  const std::int64_t nb = std::max<std::int64_t>(1, std::min(blk.nb, dim));
  Scratch tri(e, whole ? dim : nb, whole ? dim : nb);
  MatView src = b;
  std::optional<Scratch> copy;
  if (overlap(b, c, m, n, t)) {
    copy.emplace(e, m, n);
    e.copy(m, n, b, copy->view());
    src = copy->view();
  }
  Trmm op{e, side, uplo, transa, diag, m, n, alpha, a, src, c, tri.view(), nb, t};
  if (whole)
    op.banded();
  else
    op.run(0, dim);
}

}  // namespace ptxblas::blas3
