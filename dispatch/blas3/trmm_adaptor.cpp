// TRMM (cuBLAS's out-of-place form): the triangle of A materialised with explicit zeros (and unit
// diagonal), then one GEMM. When C and B overlap, B is copied first: GEMM cannot run in place.
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

}  // namespace

void trmm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, MatView c) {
  if (m == 0 || n == 0) return;
  if (alpha.is_zero()) {
    e.scale(m, n, Scalar{}, c);
    return;
  }
  const DataType t = e.data();
  const std::int64_t dim = side == Side::Left ? m : n;
  Scratch tri(e, dim, dim);
  e.triangle(uplo, diag, dim, a, tri.view());
  MatView src = b;
  std::optional<Scratch> copy;
  if (overlap(b, c, m, n, t)) {
    copy.emplace(e, m, n);
    e.copy(m, n, b, copy->view());
    src = copy->view();
  }
  if (side == Side::Left)
    e.gemm(transa, Op::N, m, n, m, alpha, tri.view(), src, Scalar{}, c);
  else
    e.gemm(Op::N, transa, m, n, n, alpha, src, tri.view(), Scalar{}, c);
}

}  // namespace ptxblas::blas3
