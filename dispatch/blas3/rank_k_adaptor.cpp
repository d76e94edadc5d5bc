// SYRK / SYRKX / HERK / HERKX / SYR2K / HER2K: C's stored triangle is the output of one GEMM-shaped
// step that computes and writes only that triangle (Engine::gemm_triangle: on the GPU one launch
// whose blocks outside the triangle return at once). SYR2K / HER2K are two such steps, the second
// adding to the first. Nothing outside the triangle is read or written.
#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

bool nothing_to_add(const RankK& r, Scalar alpha) { return alpha.is_zero() || r.k == 0; }

// The triangle of C = alpha op(X) op(Y)^{T|H} + beta C; trans N: X and Y are stored n x k.
void pass(Engine& e, const RankK& r, Scalar alpha, MatView x, MatView y, Scalar beta, MatView c) {
  const Op conj_or_t = r.hermitian ? Op::C : Op::T;
  const Op opx = r.trans == Op::N ? Op::N : conj_or_t, opy = r.trans == Op::N ? conj_or_t : Op::N;
  e.gemm_triangle(r.uplo, r.hermitian, opx, opy, r.n, r.k, alpha, x, y, beta, c);
}

}  // namespace

void rank_k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c) {
  if (r.n == 0 || (nothing_to_add(r, alpha) && beta.is_one())) return;
  pass(e, r, alpha, a, b, beta, c);
}

void rank_2k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c) {
  if (r.n == 0 || (nothing_to_add(r, alpha) && beta.is_one())) return;
  pass(e, r, alpha, a, b, beta, c);
  const Scalar second = r.hermitian ? Scalar{alpha.re, -alpha.im} : alpha;
  if (!nothing_to_add(r, alpha)) pass(e, r, second, b, a, Scalar{1, 0}, c);
}

}  // namespace ptxblas::blas3
