#include "fortran_validate.hpp"

#include <algorithm>

namespace ptxblas::shim {
namespace {

int at_least_one(int v) { return std::max(1, v); }
bool is_op(char c) { return lsame(c, 'N') || lsame(c, 'T') || lsame(c, 'C'); }
bool is_uplo(char c) { return lsame(c, 'U') || lsame(c, 'L'); }
bool is_side(char c) { return lsame(c, 'L') || lsame(c, 'R'); }

}  // namespace

int gemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc) {
  const int nrowa = lsame(transa, 'N') ? m : k, nrowb = lsame(transb, 'N') ? k : n;
  if (!is_op(transa)) return 1;
  if (!is_op(transb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < at_least_one(nrowa)) return 8;
  if (ldb < at_least_one(nrowb)) return 10;
  if (ldc < at_least_one(m)) return 13;
  return 0;
}

int symm_info(char side, char uplo, int m, int n, int lda, int ldb, int ldc) {
  const int nrowa = lsame(side, 'L') ? m : n;
  if (!is_side(side)) return 1;
  if (!is_uplo(uplo)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (lda < at_least_one(nrowa)) return 7;
  if (ldb < at_least_one(m)) return 9;
  if (ldc < at_least_one(m)) return 12;
  return 0;
}

int rank_k_info(char uplo, char trans, FortranTrans rule, int n, int k, int lda, bool has_b, int ldb, int ldc) {
  const int nrowa = lsame(trans, 'N') ? n : k;
  bool trans_ok = lsame(trans, 'N');
  if (rule != FortranTrans::Hermitian) trans_ok = trans_ok || lsame(trans, 'T');
  if (rule != FortranTrans::ComplexSymmetric) trans_ok = trans_ok || lsame(trans, 'C');
  if (!is_uplo(uplo)) return 1;
  if (!trans_ok) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < at_least_one(nrowa)) return 7;
  if (has_b && ldb < at_least_one(nrowa)) return 9;
  if (ldc < at_least_one(n)) return has_b ? 12 : 10;
  return 0;
}

int triangular_info(char side, char uplo, char transa, char diag, int m, int n, int lda, int ldb) {
  const int nrowa = lsame(side, 'L') ? m : n;
  if (!is_side(side)) return 1;
  if (!is_uplo(uplo)) return 2;
  if (!is_op(transa)) return 3;
  if (!lsame(diag, 'U') && !lsame(diag, 'N')) return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < at_least_one(nrowa)) return 9;
  if (ldb < at_least_one(m)) return 11;
  return 0;
}

}  // namespace ptxblas::shim
