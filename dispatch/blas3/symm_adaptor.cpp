// SYMM / HEMM: materialise the full symmetric (Hermitian) matrix once, then one GEMM.
// The variant that mirrors the stored triangle inside the GEMM's tile loader is a later
// generator option; this one costs an extra dim^2 copy, small next to the 2 m n dim flops.
#include "routines.hpp"

namespace ptxblas::blas3 {

void symm(Engine& e, Side side, Uplo uplo, bool hermitian, std::int64_t m, std::int64_t n, Scalar alpha, MatView a,
          MatView b, Scalar beta, MatView c) {
  if (m == 0 || n == 0 || (alpha.is_zero() && beta.is_one())) return;
  if (alpha.is_zero()) {
    e.scale(m, n, beta, c);
    return;
  }
  const std::int64_t dim = side == Side::Left ? m : n;
  Scratch full(e, dim, dim);
  e.symmetrize(uplo, hermitian, dim, a, full.view());
  if (side == Side::Left)
    e.gemm(Op::N, Op::N, m, n, m, alpha, full.view(), b, beta, c);
  else
    e.gemm(Op::N, Op::N, m, n, n, alpha, b, full.view(), beta, c);
}

}  // namespace ptxblas::blas3
