/* A CPU BLAS that carries a LAPACK routine of its own, as OpenBLAS does: the BLAS symbols are the
 * reference BLAS's (linked in, so dlsym on this library's handle finds them), dpotrf_ is an
 * unblocked Cholesky here. test_lapacke.cpp names it as ptxblas.toml's cpu.blas and checks which
 * LAPACK a small ?potrf_ kept on the CPU ran: this one by default, the program's with
 * lapack.cpu_calls = "program". */
#include <math.h>
#include <stddef.h>

void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t len) {
  (void)len;
  const int lower = *uplo == 'L' || *uplo == 'l';
  const int ld = *lda;
  /* Element (r, c) of the referenced triangle, stored as the lower one. */
#define AT(r, c) (*(lower ? &a[(r) + (size_t)(c)*ld] : &a[(c) + (size_t)(r)*ld]))
  *info = 0;
  for (int j = 0; j < *n; ++j) {
    double d = AT(j, j);
    for (int k = 0; k < j; ++k) d -= AT(j, k) * AT(j, k);
    if (d <= 0 || isnan(d)) {
      AT(j, j) = d;
      *info = j + 1;
      return;
    }
    d = sqrt(d);
    AT(j, j) = d;
    for (int i = j + 1; i < *n; ++i) {
      double s = AT(i, j);
      for (int k = 0; k < j; ++k) s -= AT(i, k) * AT(j, k);
      AT(i, j) = s / d;
    }
  }
#undef AT
}
