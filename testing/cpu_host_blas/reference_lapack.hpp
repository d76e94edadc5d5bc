// Netlib LAPACK's factorizations, the reference for ptxblas's ?potrf_ / ?getrf_.
#pragma once

#include <complex>
#include <cstddef>

extern "C" {
#define PTXBLAS_REF_FACTOR(p, T)                                                  \
  void p##potrf_(const char*, const int*, T*, const int*, int*, std::size_t);     \
  void p##getrf_(const int*, const int*, T*, const int*, int*, int*);
PTXBLAS_REF_FACTOR(s, float)
PTXBLAS_REF_FACTOR(d, double)
PTXBLAS_REF_FACTOR(c, std::complex<float>)
PTXBLAS_REF_FACTOR(z, std::complex<double>)
#undef PTXBLAS_REF_FACTOR
}
