// ptxblas_set_benchmark_top_k: a process turns the first-sight benchmark on or off without a
// ptxblas.toml (tests, tuners, applications that know their shapes repeat).
#include "export.hpp"
#include "first_sight.hpp"
#include "ptxblas/ptxblas.h"

PTXBLAS_EXPORT int ptxblas_set_benchmark_top_k(int k) {
  if (k > 16) return -1;
  ptxblas::dispatch::set_benchmark_top_k(k);
  return 0;
}
