// How each level-3 routine's host call is cut into tiles for the offload (offload_tiles.hpp):
//   GEMM: column strips of C beside a shared A, row strips beside a shared B (the smaller operand
//         shared first), else square blocks of C with their panels of A and B;
//   SYMM/HEMM, TRMM, TRSM: strips of B (and C) beside the shared A, columns for side Left, rows
//         for Right;
//   the rank-k family: column blocks of C's triangle beside the shared A (and B), each a diagonal
//         block (the routine itself, smaller) and the rectangle beside it (one or two GEMMs).
// Operands are the routine's host operands in the order its whole-call body takes them.
#pragma once

#include <vector>

#include "offload_tiles.hpp"
#include "routines.hpp"

namespace ptxblas::dispatch {

std::vector<TiledWork> gemm_tiles(gen::DataType t, gen::Op ta, gen::Op tb, std::int64_t m, std::int64_t n,
                                  std::int64_t k, blas3::Scalar alpha, blas3::Scalar beta, const HostOperand& a,
                                  const HostOperand& b, const HostOperand& c);

std::vector<TiledWork> symm_tiles(gen::DataType t, blas3::Side side, blas3::Uplo uplo, bool hermitian, std::int64_t m,
                                  std::int64_t n, blas3::Scalar alpha, blas3::Scalar beta, const HostOperand& a,
                                  const HostOperand& b, const HostOperand& c);

struct Triangular {
  bool solve;  // TRSM, else TRMM (in place: B = alpha op(A) B)
  blas3::Side side;
  blas3::Uplo uplo;
  gen::Op transa;
  blas3::Diag diag;
};
std::vector<TiledWork> triangular_tiles(gen::DataType t, const Triangular& tr, std::int64_t m, std::int64_t n,
                                        blas3::Scalar alpha, const HostOperand& a, const HostOperand& b);

// ops: A and C (SYRK, HERK), or A, B and C (SYR2K, HER2K: two == true).
std::vector<TiledWork> rank_k_tiles(gen::DataType t, const blas3::RankK& r, bool two, blas3::Scalar alpha,
                                    blas3::Scalar beta, const std::vector<HostOperand>& ops);

}  // namespace ptxblas::dispatch
