// The reference BLAS's argument checks for the level-3 routines, with its parameter numbers:
// each returns INFO (0: valid), the number xerbla_ reports.
#pragma once

namespace ptxblas::shim {

// Case-insensitive for ASCII letters only, as the reference LSAME; inline and locale-free, since
// LAPACK's small factorizations make ~130 level-3 calls each (std::toupper was 7% of dpotrf n=64).
inline bool lsame(char a, char b) {
  const auto upper = [](unsigned char c) { return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c; };
  return upper(static_cast<unsigned char>(a)) == upper(static_cast<unsigned char>(b));
}

enum class FortranTrans { RealSymmetric, ComplexSymmetric, Hermitian };  // N/T/C, N/T, N/C

int gemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc);
int symm_info(char side, char uplo, int m, int n, int lda, int ldb, int ldc);
// SYRK/HERK (has_b false: ldc is parameter 10) and SYR2K/HER2K (ldb 9, ldc 12).
int rank_k_info(char uplo, char trans, FortranTrans rule, int n, int k, int lda, bool has_b, int ldb, int ldc);
int triangular_info(char side, char uplo, char transa, char diag, int m, int n, int lda, int ldb);

}  // namespace ptxblas::shim
