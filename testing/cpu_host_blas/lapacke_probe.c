/* A plain LAPACKE program (linked against LAPACK and the reference BLAS only): solves, factors
 * and decomposes fixed pseudo-random matrices and prints every result with 17 digits. The test
 * runs it with and without LD_PRELOAD=libptxblas.so and compares the two outputs. */
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>

static double next(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xFFFF) / 32768.0 - 1.0;
}

static void print(const char* what, const double* v, int n) {
  printf("%s", what);
  for (int i = 0; i < n; ++i) printf(" %.17g", v[i]);
  printf("\n");
}

int main(void) {
  enum { N = 160, NRHS = 3 };
  unsigned s = 7;
  double* a = malloc(sizeof(double) * N * N);
  double* b = malloc(sizeof(double) * N * NRHS);
  double* w = malloc(sizeof(double) * N);
  lapack_int* ipiv = malloc(sizeof(lapack_int) * N);
  lapack_complex_double* z = malloc(sizeof(lapack_complex_double) * N * N);
  lapack_complex_double* tau = malloc(sizeof(lapack_complex_double) * N);

  /* dgesv: general solve */
  for (int i = 0; i < N * N; ++i) a[i] = next(&s);
  for (int i = 0; i < N * NRHS; ++i) b[i] = next(&s);
  printf("dgesv info %d\n", (int)LAPACKE_dgesv(LAPACK_COL_MAJOR, N, NRHS, a, N, ipiv, b, N));
  print("dgesv x", b, N * NRHS);

  /* dpotrf: Cholesky of a symmetric positive definite matrix (blocked: calls dsyrk, dgemm, dtrsm) */
  for (int j = 0; j < N; ++j)
    for (int i = 0; i <= j; ++i) a[i + j * N] = a[j + i * N] = next(&s) + (i == j ? 2.0 * N : 0.0);
  printf("dpotrf info %d\n", (int)LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', N, a, N));
  print("dpotrf diag", a, N);

  /* zgeqrf: QR of a complex matrix */
  for (int i = 0; i < N * N; ++i) z[i] = lapack_make_complex_double(next(&s), next(&s));
  printf("zgeqrf info %d\n", (int)LAPACKE_zgeqrf(LAPACK_COL_MAJOR, N, N, z, N, tau));
  print("zgeqrf r", (const double*)z, 2 * N);

  /* dsyevd: symmetric eigenvalues */
  for (int j = 0; j < N; ++j)
    for (int i = 0; i <= j; ++i) a[i + j * N] = a[j + i * N] = next(&s);
  printf("dsyevd info %d\n", (int)LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', N, a, N, w));
  print("dsyevd w", w, N);
  return 0;
}
