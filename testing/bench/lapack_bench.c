/* ptxblas-lapack-bench N...: times LAPACKE_dpotrf and LAPACKE_dgetrf (column-major, double) on
 * fresh matrices of each size and prints `routine type n seconds info` lines. It links LAPACKE,
 * LAPACK and the BLAS only: scripts/lapack_bench.sh runs it once with libptxblas.so preloaded and
 * once with OpenBLAS preloaded, and joins the two into testing/reports/h100-lapack.csv. */
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double next(unsigned long long* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N...\n", argv[0]);
    return 2;
  }
  for (int arg = 1; arg < argc; ++arg) {
    const lapack_int n = (lapack_int)atol(argv[arg]);
    double* a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    lapack_int* ipiv = malloc(sizeof(lapack_int) * (size_t)n);
    if (!a || !ipiv) return 3;
    unsigned long long s = 42;
    /* dpotrf: symmetric, diagonally dominant (positive definite) */
    for (lapack_int j = 0; j < n; ++j)
      for (lapack_int i = 0; i <= j; ++i)
        a[i + (size_t)j * n] = a[j + (size_t)i * n] = next(&s) + (i == j ? (double)n : 0.0);
    double t0 = now();
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, a, n);
    printf("dpotrf D %d %.6f %d\n", (int)n, now() - t0, (int)info);
    fflush(stdout);
    /* dgetrf: general */
    for (size_t i = 0; i < (size_t)n * (size_t)n; ++i) a[i] = next(&s);
    t0 = now();
    info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
    printf("dgetrf D %d %.6f %d\n", (int)n, now() - t0, (int)info);
    fflush(stdout);
    free(a);
    free(ipiv);
  }
  return 0;
}
