// One level-3 call through ptxblas (dlsym'ed from libptxblas.so, RTLD_LOCAL) or the real cuBLAS
// (linked), by the suite line's routine, type and flags; operands in device memory, ld = rows.
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <string>

#include "blas3_suite.hpp"

namespace bench {

struct L3Operands {
  void* a;  // the symmetric/triangular matrix, or op(A) of the rank-k routines
  void* b;  // B (in/out for TRSM)
  void* c;  // C (unused by TRSM)
};

// Elements of A, B and C the routine needs (C: 0 for TRSM).
struct L3Sizes {
  std::size_t a, b, c;
  std::int64_t lda, ldb, ldc;
};
L3Sizes l3_sizes(const L3Shape& s);

// alpha = 1 (complex 1 + 0i), beta = 0.5.
cublasStatus_t run_l3(bool ptxblas, void* library, cublasHandle_t h, const L3Shape& s, const L3Operands& o);

}  // namespace bench
