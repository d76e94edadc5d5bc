// The Fortran BLAS level-3 symbols (gfortran convention: everything by reference, hidden
// character lengths last and never read, since C callers often omit them): ?gemm_, ?symm_,
// ?syrk_, ?syr2k_, ?trmm_, ?trsm_ for S, D, C, Z and ?hemm_, ?herk_, ?her2k_ for C, Z. A bad
// argument goes to xerbla_ with the reference routine name and parameter number.
#include "export.hpp"
#include "host_routines.hpp"

namespace ptxblas::shim {
namespace {

template <class T>
void report(const char* routine, int info) {
  if (info) report_bad_argument(names_of<T>(routine).xerbla.c_str(), info);
}

}  // namespace
}  // namespace ptxblas::shim

using ptxblas::shim::fchar;
using ptxblas::shim::fint;
using ptxblas::shim::flen;
using ptxblas::shim::report;
namespace sh = ptxblas::shim;

#define PTXBLAS_FORTRAN_COMMON(P, T)                                                                               \
  PTXBLAS_EXPORT void P##gemm_(fchar ta, fchar tb, fint m, fint n, fint k, const T* alpha, const T* a, fint lda,     \
                               const T* b, fint ldb, const T* beta, T* c, fint ldc, flen, flen) {                    \
    report<T>("gemm", sh::gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));                           \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##symm_(fchar side, fchar uplo, fint m, fint n, const T* alpha, const T* a, fint lda,         \
                               const T* b, fint ldb, const T* beta, T* c, fint ldc, flen, flen) {                    \
    report<T>("symm", sh::symm<T>("symm", false, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc));           \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##syrk_(fchar uplo, fchar trans, fint n, fint k, const T* alpha, const T* a, fint lda,        \
                               const T* beta, T* c, fint ldc, flen, flen) {                                          \
    report<T>("syrk", sh::rank_k<T, T, T>("syrk", false, false, uplo, trans, n, k, alpha, a, lda, nullptr, nullptr,  \
                                          beta, c, ldc));                                                            \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##syr2k_(fchar uplo, fchar trans, fint n, fint k, const T* alpha, const T* a, fint lda,       \
                                const T* b, fint ldb, const T* beta, T* c, fint ldc, flen, flen) {                   \
    report<T>("syr2k",                                                                                             \
              sh::rank_k<T, T, T>("syr2k", false, true, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc));    \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##trmm_(fchar side, fchar uplo, fchar transa, fchar diag, fint m, fint n, const T* alpha,     \
                               const T* a, fint lda, T* b, fint ldb, flen, flen, flen, flen) {                       \
    report<T>("trmm", sh::triangular<T>("trmm", false, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb));      \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##trsm_(fchar side, fchar uplo, fchar transa, fchar diag, fint m, fint n, const T* alpha,     \
                               const T* a, fint lda, T* b, fint ldb, flen, flen, flen, flen) {                       \
    report<T>("trsm", sh::triangular<T>("trsm", true, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb));       \
  }

#define PTXBLAS_FORTRAN_HERMITIAN(P, T, R)                                                                         \
  PTXBLAS_EXPORT void P##hemm_(fchar side, fchar uplo, fint m, fint n, const T* alpha, const T* a, fint lda,         \
                               const T* b, fint ldb, const T* beta, T* c, fint ldc, flen, flen) {                    \
    report<T>("hemm", sh::symm<T>("hemm", true, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc));            \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##herk_(fchar uplo, fchar trans, fint n, fint k, const R* alpha, const T* a, fint lda,        \
                               const R* beta, T* c, fint ldc, flen, flen) {                                          \
    report<T>("herk", sh::rank_k<T, R, R>("herk", true, false, uplo, trans, n, k, alpha, a, lda, nullptr, nullptr,   \
                                          beta, c, ldc));                                                            \
  }                                                                                                                \
  PTXBLAS_EXPORT void P##her2k_(fchar uplo, fchar trans, fint n, fint k, const T* alpha, const T* a, fint lda,       \
                                const T* b, fint ldb, const R* beta, T* c, fint ldc, flen, flen) {                   \
    report<T>("her2k",                                                                                             \
              sh::rank_k<T, T, R>("her2k", true, true, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc));     \
  }

PTXBLAS_FORTRAN_COMMON(s, float)
PTXBLAS_FORTRAN_COMMON(d, double)
PTXBLAS_FORTRAN_COMMON(c, std::complex<float>)
PTXBLAS_FORTRAN_COMMON(z, std::complex<double>)
PTXBLAS_FORTRAN_HERMITIAN(c, std::complex<float>, float)
PTXBLAS_FORTRAN_HERMITIAN(z, std::complex<double>, double)
