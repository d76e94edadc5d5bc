// CBLAS level 3 (cblas_?gemm, ?symm, ?syrk, ?syr2k, ?trmm, ?trsm; cblas_[cz]hemm, herk, her2k),
// row- and column-major, on top of the Fortran-level routines. Row-major calls become the
// column-major call on the transposed problem (swapped operands or flipped side/uplo/trans; HER2K
// conjugates alpha). Errors go to cblas_xerbla with the CBLAS parameter position.
#include <cblas.h>

#include <cstdarg>
#include <cstdio>

#include "export.hpp"
#include "host_routines.hpp"

// Weak: the program's (or its CBLAS's) cblas_xerbla when the process has one.
extern "C" void cblas_xerbla(CBLAS_INT p, const char* rout, const char* form, ...) __attribute__((weak));

namespace ptxblas::shim {
namespace {

void cblas_report(const char* routine, int position) {
  if (cblas_xerbla) {
    cblas_xerbla(position, routine, "");
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", position, routine);
}

char trans_char(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : '?'; }
char uplo_char(CBLAS_UPLO u) { return u == CblasUpper ? 'U' : u == CblasLower ? 'L' : '?'; }
char side_char(CBLAS_SIDE s) { return s == CblasLeft ? 'L' : s == CblasRight ? 'R' : '?'; }
char diag_char(CBLAS_DIAG d) { return d == CblasUnit ? 'U' : d == CblasNonUnit ? 'N' : '?'; }
char flip_uplo(char u) { return u == 'U' ? 'L' : u == 'L' ? 'U' : u; }
char flip_side(char s) { return s == 'L' ? 'R' : s == 'R' ? 'L' : s; }
// Row-major rank-k: op(A) of the transposed problem. Real: N <-> T (C counts as T); complex
// symmetric: N <-> T; Hermitian: N <-> C.
char flip_trans(char t, bool herm, bool cplx) {
  if (t == 'N') return herm ? 'C' : 'T';
  if (t == 'T') return herm ? '?' : 'N';
  if (t == 'C') return herm || !cplx ? 'N' : '?';
  return t;
}

bool valid_layout(CBLAS_LAYOUT l) { return l == CblasRowMajor || l == CblasColMajor; }

// The CBLAS position of a Fortran INFO: +1 for the layout, and swapped dimensions (and operands)
// where the row-major call swapped them.
int position(int info, bool row_major, std::initializer_list<std::pair<int, int>> row_swaps) {
  if (row_major)
    for (auto [from, to] : row_swaps)
      if (info == from) return to;
  return info + 1;
}

template <class T>
T conj_of(T v) {
  if constexpr (std::is_arithmetic_v<T>)
    return v;
  else
    return std::conj(v);
}

template <class T>
void c_gemm(const char* name, CBLAS_LAYOUT l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha,
          const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  if (!valid_layout(l)) return cblas_report(name, 1);
  const char cta = trans_char(ta), ctb = trans_char(tb);
  // As Netlib's CBLAS numbers them: TransA 2, TransB 3; in row-major both 2.
  const bool row = l == CblasRowMajor;
  if (cta == '?') return cblas_report(name, 2);
  if (ctb == '?') return cblas_report(name, row ? 2 : 3);
  int info;
  if (l == CblasColMajor)
    info = shim::gemm<T>(&cta, &ctb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  else
    info = shim::gemm<T>(&ctb, &cta, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc);
  if (info) cblas_report(name, position(info, l == CblasRowMajor, {{1, 3}, {2, 2}, {3, 5}, {4, 4}, {8, 11}, {10, 9}}));
}

template <class T>
void c_symm(const char* name, bool herm, CBLAS_LAYOUT l, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, T alpha,
          const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  if (!valid_layout(l)) return cblas_report(name, 1);
  const bool row = l == CblasRowMajor;
  const char cs = row ? flip_side(side_char(side)) : side_char(side), cu = row ? flip_uplo(uplo_char(uplo)) : uplo_char(uplo);
  const int mm = row ? n : m, nn = row ? m : n;
  const int info = shim::symm<T>(herm ? "hemm" : "symm", herm, &cs, &cu, &mm, &nn, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  if (info) cblas_report(name, position(info, row, {{3, 5}, {4, 4}}));
}

// SYRK/HERK (b null) and SYR2K/HER2K; SA/SB: the stored types of alpha and beta.
template <class T, class SA, class SB>
void c_rank_k(const char* name, const char* routine, bool herm, CBLAS_LAYOUT l, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans,
            int n, int k, SA alpha, const T* a, int lda, const T* b, int ldb, SB beta, T* c, int ldc) {
  if (!valid_layout(l)) return cblas_report(name, 1);
  const bool row = l == CblasRowMajor, two = b != nullptr;
  const char cu = row ? flip_uplo(uplo_char(uplo)) : uplo_char(uplo);
  const char ct = row ? flip_trans(trans_char(trans), herm, !std::is_arithmetic_v<T>) : trans_char(trans);
  if (cu == '?') return cblas_report(name, 2);  // Netlib checks uplo before trans
  if (ct == '?') return cblas_report(name, 3);
  // Row-major HER2K: C^T = conj(alpha) X^H Y + alpha Y^H X with X = A^T, Y = B^T.
  const SA al = row && herm && two ? conj_of(alpha) : alpha;
  const int info = shim::rank_k<T, SA, SB>(routine, herm, two, &cu, &ct, &n, &k, &al, a, &lda, b, &ldb, &beta, c, &ldc);
  if (info) cblas_report(name, info + 1);
}

template <class T>
void c_triangular(const char* name, bool solve, CBLAS_LAYOUT l, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE ta,
                CBLAS_DIAG diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb) {
  if (!valid_layout(l)) return cblas_report(name, 1);
  const bool row = l == CblasRowMajor;
  const char cs = row ? flip_side(side_char(side)) : side_char(side), cu = row ? flip_uplo(uplo_char(uplo)) : uplo_char(uplo);
  const char ct = trans_char(ta), cd = diag_char(diag);
  const int mm = row ? n : m, nn = row ? m : n;
  const int info = shim::triangular<T>(solve ? "trsm" : "trmm", solve, &cs, &cu, &ct, &cd, &mm, &nn, &alpha, a, &lda, b, &ldb);
  if (info) cblas_report(name, position(info, row, {{5, 7}, {6, 6}}));
}

template <class T>
T value(const void* p) {
  return *static_cast<const T*>(p);
}

}  // namespace
}  // namespace ptxblas::shim

namespace sh = ptxblas::shim;
using cf = std::complex<float>;
using zd = std::complex<double>;

#define PTXBLAS_CBLAS_REAL(P, T)                                                                                   \
  PTXBLAS_EXPORT void cblas_##P##gemm(CBLAS_LAYOUT l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, const CBLAS_INT m,     \
                                      const CBLAS_INT n, const CBLAS_INT k, const T alpha, const T* a,               \
                                      const CBLAS_INT lda, const T* b, const CBLAS_INT ldb, const T beta, T* c,      \
                                      const CBLAS_INT ldc) {                                                         \
    sh::c_gemm<T>("cblas_" #P "gemm", l, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                       \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##symm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, const CBLAS_INT m,                 \
                                      const CBLAS_INT n, const T alpha, const T* a, const CBLAS_INT lda, const T* b,  \
                                      const CBLAS_INT ldb, const T beta, T* c, const CBLAS_INT ldc) {                \
    sh::c_symm<T>("cblas_" #P "symm", false, l, s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc);                     \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##syrk(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,            \
                                      const CBLAS_INT k, const T alpha, const T* a, const CBLAS_INT lda,             \
                                      const T beta, T* c, const CBLAS_INT ldc) {                                     \
    sh::c_rank_k<T, T, T>("cblas_" #P "syrk", "syrk", false, l, u, t, n, k, alpha, a, lda, nullptr, 1, beta, c, ldc); \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##syr2k(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,           \
                                       const CBLAS_INT k, const T alpha, const T* a, const CBLAS_INT lda, const T* b, \
                                       const CBLAS_INT ldb, const T beta, T* c, const CBLAS_INT ldc) {               \
    sh::c_rank_k<T, T, T>("cblas_" #P "syr2k", "syr2k", false, l, u, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);   \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##trmm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d,    \
                                      const CBLAS_INT m, const CBLAS_INT n, const T alpha, const T* a,               \
                                      const CBLAS_INT lda, T* b, const CBLAS_INT ldb) {                              \
    sh::c_triangular<T>("cblas_" #P "trmm", false, l, s, u, t, d, m, n, alpha, a, lda, b, ldb);                       \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##trsm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d,    \
                                      const CBLAS_INT m, const CBLAS_INT n, const T alpha, const T* a,               \
                                      const CBLAS_INT lda, T* b, const CBLAS_INT ldb) {                              \
    sh::c_triangular<T>("cblas_" #P "trsm", true, l, s, u, t, d, m, n, alpha, a, lda, b, ldb);                        \
  }

#define PTXBLAS_CBLAS_COMPLEX(P, T, R)                                                                             \
  PTXBLAS_EXPORT void cblas_##P##gemm(CBLAS_LAYOUT l, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, const CBLAS_INT m,     \
                                      const CBLAS_INT n, const CBLAS_INT k, const void* alpha, const void* a,        \
                                      const CBLAS_INT lda, const void* b, const CBLAS_INT ldb, const void* beta,     \
                                      void* c, const CBLAS_INT ldc) {                                                \
    sh::c_gemm<T>("cblas_" #P "gemm", l, ta, tb, m, n, k, sh::value<T>(alpha), static_cast<const T*>(a), lda,         \
                static_cast<const T*>(b), ldb, sh::value<T>(beta), static_cast<T*>(c), ldc);                        \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##symm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, const CBLAS_INT m,                 \
                                      const CBLAS_INT n, const void* alpha, const void* a, const CBLAS_INT lda,      \
                                      const void* b, const CBLAS_INT ldb, const void* beta, void* c,                 \
                                      const CBLAS_INT ldc) {                                                         \
    sh::c_symm<T>("cblas_" #P "symm", false, l, s, u, m, n, sh::value<T>(alpha), static_cast<const T*>(a), lda,       \
                static_cast<const T*>(b), ldb, sh::value<T>(beta), static_cast<T*>(c), ldc);                        \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##hemm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, const CBLAS_INT m,                 \
                                      const CBLAS_INT n, const void* alpha, const void* a, const CBLAS_INT lda,      \
                                      const void* b, const CBLAS_INT ldb, const void* beta, void* c,                 \
                                      const CBLAS_INT ldc) {                                                         \
    sh::c_symm<T>("cblas_" #P "hemm", true, l, s, u, m, n, sh::value<T>(alpha), static_cast<const T*>(a), lda,        \
                static_cast<const T*>(b), ldb, sh::value<T>(beta), static_cast<T*>(c), ldc);                        \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##syrk(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,            \
                                      const CBLAS_INT k, const void* alpha, const void* a, const CBLAS_INT lda,      \
                                      const void* beta, void* c, const CBLAS_INT ldc) {                              \
    sh::c_rank_k<T, T, T>("cblas_" #P "syrk", "syrk", false, l, u, t, n, k, sh::value<T>(alpha),                      \
                        static_cast<const T*>(a), lda, nullptr, 1, sh::value<T>(beta), static_cast<T*>(c), ldc);    \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##herk(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,            \
                                      const CBLAS_INT k, const R alpha, const void* a, const CBLAS_INT lda,          \
                                      const R beta, void* c, const CBLAS_INT ldc) {                                  \
    sh::c_rank_k<T, R, R>("cblas_" #P "herk", "herk", true, l, u, t, n, k, alpha, static_cast<const T*>(a), lda,      \
                        nullptr, 1, beta, static_cast<T*>(c), ldc);                                                 \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##syr2k(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,           \
                                       const CBLAS_INT k, const void* alpha, const void* a, const CBLAS_INT lda,     \
                                       const void* b, const CBLAS_INT ldb, const void* beta, void* c,               \
                                       const CBLAS_INT ldc) {                                                        \
    sh::c_rank_k<T, T, T>("cblas_" #P "syr2k", "syr2k", false, l, u, t, n, k, sh::value<T>(alpha),                    \
                        static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, sh::value<T>(beta),           \
                        static_cast<T*>(c), ldc);                                                                   \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##her2k(CBLAS_LAYOUT l, CBLAS_UPLO u, CBLAS_TRANSPOSE t, const CBLAS_INT n,           \
                                       const CBLAS_INT k, const void* alpha, const void* a, const CBLAS_INT lda,     \
                                       const void* b, const CBLAS_INT ldb, const R beta, void* c,                   \
                                       const CBLAS_INT ldc) {                                                        \
    sh::c_rank_k<T, T, R>("cblas_" #P "her2k", "her2k", true, l, u, t, n, k, sh::value<T>(alpha),                     \
                        static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, beta, static_cast<T*>(c), ldc); \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##trmm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d,    \
                                      const CBLAS_INT m, const CBLAS_INT n, const void* alpha, const void* a,        \
                                      const CBLAS_INT lda, void* b, const CBLAS_INT ldb) {                           \
    sh::c_triangular<T>("cblas_" #P "trmm", false, l, s, u, t, d, m, n, sh::value<T>(alpha),                          \
                      static_cast<const T*>(a), lda, static_cast<T*>(b), ldb);                                      \
  }                                                                                                                \
  PTXBLAS_EXPORT void cblas_##P##trsm(CBLAS_LAYOUT l, CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d,    \
                                      const CBLAS_INT m, const CBLAS_INT n, const void* alpha, const void* a,        \
                                      const CBLAS_INT lda, void* b, const CBLAS_INT ldb) {                           \
    sh::c_triangular<T>("cblas_" #P "trsm", true, l, s, u, t, d, m, n, sh::value<T>(alpha),                           \
                      static_cast<const T*>(a), lda, static_cast<T*>(b), ldb);                                      \
  }

PTXBLAS_CBLAS_REAL(s, float)
PTXBLAS_CBLAS_REAL(d, double)
PTXBLAS_CBLAS_COMPLEX(c, cf, float)
PTXBLAS_CBLAS_COMPLEX(z, zd, double)
