// Level-3 BLAS routines as GEMM-shaped steps on an Engine (the OA adaptors). Arguments are
// already validated; semantics follow the reference BLAS, including its quick returns, with
// cuBLAS's out-of-place TRMM (C = alpha op(A) B, C may alias B).
#pragma once

#include "engine.hpp"

namespace ptxblas::blas3 {

// Block size of the triangular adaptors (diagonal blocks of TRSM and TRMM).
struct Blocking {
  std::int64_t nb = 128;
  // TRSM's updates write into one B-shaped scratch (B's leading dimension), which its leaves read
  // to write X into B (no copy of the solution, not one per leaf), when that takes at most this
  // many bytes.
  std::int64_t solution_bytes = std::int64_t{256} << 20;
  // TRMM materialises the whole triangle in scratch and runs one banded GEMM over it when it takes
  // at most this many bytes; larger ones go by recursive halving with nb-wide diagonal leaves.
  std::int64_t triangle_bytes = std::int64_t{1} << 30;
};

// SYMM / HEMM: C = alpha A B + beta C (Left) or alpha B A + beta C (Right), A symmetric (or
// Hermitian) and stored in its `uplo` triangle. C is m x n.
void symm(Engine& e, Side side, Uplo uplo, bool hermitian, std::int64_t m, std::int64_t n, Scalar alpha, MatView a,
          MatView b, Scalar beta, MatView c);

// The triangular-output family on n x n C, op(X) n x k (trans N: X is n x k, else k x n):
//   SYRK  C = alpha op(A) op(A)^T + beta C            (b == a)
//   SYRKX C = alpha op(A) op(B)^T + beta C
//   HERK/HERKX with ^H, real alpha and beta, real diagonal
// Only C's `uplo` triangle is read or written: one Engine::gemm_triangle step (two for the 2k forms).
struct RankK {
  Uplo uplo = Uplo::Lower;
  Op trans = Op::N;
  bool hermitian = false;
  std::int64_t n = 0, k = 0;
};
void rank_k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c);
// SYR2K  C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C
// HER2K  C = alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C (beta real)
void rank_2k(Engine& e, const RankK& r, Scalar alpha, MatView a, MatView b, Scalar beta, MatView c);

// TRMM (cuBLAS form): C = alpha op(A) B (Left) or alpha B op(A) (Right); A triangular. B and C
// are m x n and may be the same matrix. Panels over the materialised triangle
// (blk.triangle_bytes), else recursive halving with diagonal leaves of blk.nb (256 by default).
void trmm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, MatView c, Blocking blk = {256});

// TRSM: B := X with op(A) X = alpha B (Left) or X op(A) = alpha B (Right). Recursive halving down
// to leaves of min(blk.nb, the engine's max_inverse()) (the H100's: 256, Z 128, doubled from
// 64-wide inverses), halved towards 32 for small triangles (trsm_leaf_width): every
// leaf's diagonal block is inverted by the engine in one step and applied with GEMM, the rest
// updated with GEMM.
void trsm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, Blocking blk = {256});
// The leaf width TRSM uses for a triangle of order dim.
std::int64_t trsm_leaf_width(std::int64_t dim, std::int64_t nb, std::int64_t max_inverse);

}  // namespace ptxblas::blas3
