/* ptxblas-lapack-bench N...: times LAPACKE_dpotrf and LAPACKE_dgetrf (column-major, double) on
 * fresh matrices of each size (after an untimed warm-up; the median of several runs for small
 * sizes) and prints `routine type n seconds info gpu_calls cpu_calls` lines, the last two being
 * ptxblas's counters of level-3 calls served on the GPU and forwarded (-1 when libptxblas.so is
 * not in the process), so that a run which never reached ptxblas shows. A first line
 * `# blas: ...` names the OpenBLAS in the process (its version and the kernels it picked) or
 * "other". It links LAPACKE, LAPACK and the BLAS only: scripts/lapack_bench.sh runs it with
 * libptxblas.so preloaded under the reference LAPACK and with OpenBLAS preloaded, and joins the
 * runs into testing/reports/h100-lapack.csv. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <lapacke.h>
#include <stdint.h>
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

static int cmp(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

/* dpotrf: symmetric, diagonally dominant (positive definite); dgetrf: general. */
static void fill(double* a, lapack_int n, int spd, unsigned long long* s) {
  if (spd) {
    for (lapack_int j = 0; j < n; ++j)
      for (lapack_int i = 0; i <= j; ++i)
        a[i + (size_t)j * n] = a[j + (size_t)i * n] = next(s) + (i == j ? (double)n : 0.0);
  } else {
    for (size_t i = 0; i < (size_t)n * (size_t)n; ++i) a[i] = next(s);
  }
}

static lapack_int factor(int spd, lapack_int n, double* a, lapack_int* ipiv) {
  return spd ? LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, a, n) : LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
}

/* Median seconds of `reps` factorizations, each of a fresh copy of the same matrix (the copy is
 * not timed). */
static double time_factor(int spd, lapack_int n, int reps, lapack_int* info) {
  const size_t elems = (size_t)n * (size_t)n;
  double* pristine = malloc(sizeof(double) * elems);
  double* a = malloc(sizeof(double) * elems);
  lapack_int* ipiv = malloc(sizeof(lapack_int) * (size_t)(n > 0 ? n : 1));
  double* t = malloc(sizeof(double) * (size_t)reps);
  if (!pristine || !a || !ipiv || !t) exit(3);
  unsigned long long s = 42;
  fill(pristine, n, spd, &s);
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < elems; ++i) a[i] = pristine[i];
    const double t0 = now();
    *info = factor(spd, n, a, ipiv);
    t[r] = now() - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp);
  const double median = t[reps / 2];
  free(pristine);
  free(a);
  free(ipiv);
  free(t);
  return median;
}

/* ptxblas's counters of served (GPU) and forwarded level-3 calls; -1 without ptxblas. */
static void counters(long long* served, long long* forwarded) {
  void (*fn)(uint64_t*, uint64_t*) = (void (*)(uint64_t*, uint64_t*))dlsym(RTLD_DEFAULT, "ptxblas_counters");
  uint64_t s = 0, f = 0;
  if (fn) fn(&s, &f);
  *served = fn ? (long long)s : -1;
  *forwarded = fn ? (long long)f : -1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N...\n", argv[0]);
    return 2;
  }
  char* (*config)(void) = (char* (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_config");
  char* (*core)(void) = (char* (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_corename");
  printf("# blas: %s%s%s\n", config ? config() : "other", core ? " core=" : "", core ? core() : "");
  /* One-time costs (the BLAS library's initialisation, its thread pool, ptxblas's configuration,
   * GPU context, the kernels it loads into the process and its pinned staging) are paid by an
   * untimed warm-up of each routine at n = 64 and n = 4096, not by the first size. */
  lapack_int info;
  for (int spd = 1; spd >= 0; --spd) {
    time_factor(spd, 64, 1, &info);
    time_factor(spd, 4096, 1, &info);
  }
  for (int arg = 1; arg < argc; ++arg) {
    const lapack_int n = (lapack_int)atol(argv[arg]);
    /* Small sizes are noisy (OpenBLAS's n = 64 median moved 35 -> 117 us between two runs of 21
     * reps: its thread pool waking or not): the median of many runs; large ones run once. */
    const int reps = n <= 128 ? 401 : n <= 512 ? 21 : n <= 2048 ? 5 : 1;
    for (int spd = 1; spd >= 0; --spd) {
      long long s0, f0, s1, f1;
      counters(&s0, &f0);
      const double secs = time_factor(spd, n, reps, &info);
      counters(&s1, &f1);
      printf("%s D %d %.6f %d %lld %lld\n", spd ? "dpotrf" : "dgetrf", (int)n, secs, (int)info,
             s0 < 0 ? -1 : s1 - s0, f0 < 0 ? -1 : f1 - f0);
      fflush(stdout);
    }
  }
  return 0;
}
