// Netlib reference BLAS (libblas-dev), called through its Fortran ABI (gfortran: everything by
// reference, hidden character lengths last), behind one typed interface for the tests.
#pragma once

#include <complex>
#include <cstddef>

using fchar = const char*;
using fint = const int*;
using flen = std::size_t;

#define PTXBLAS_REF_COMMON(p, T)                                                                           \
  void p##gemm_(fchar, fchar, fint, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*, fint, \
                flen, flen);                                                                               \
  void p##symm_(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*, fint, flen, \
                flen);                                                                                     \
  void p##syrk_(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, T*, fint, flen, flen);        \
  void p##syr2k_(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*, fint, flen, \
                 flen);                                                                                    \
  void p##trmm_(fchar, fchar, fchar, fchar, fint, fint, const T*, const T*, fint, T*, fint, flen, flen, flen, \
                flen);                                                                                     \
  void p##trsm_(fchar, fchar, fchar, fchar, fint, fint, const T*, const T*, fint, T*, fint, flen, flen, flen, \
                flen);

#define PTXBLAS_REF_HERMITIAN(p, T, R)                                                                     \
  void p##hemm_(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*, fint, flen, \
                flen);                                                                                     \
  void p##herk_(fchar, fchar, fint, fint, const R*, const T*, fint, const R*, T*, fint, flen, flen);        \
  void p##her2k_(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, fint, const R*, T*, fint, flen, \
                 flen);

extern "C" {
PTXBLAS_REF_COMMON(s, float)
PTXBLAS_REF_COMMON(d, double)
PTXBLAS_REF_COMMON(c, std::complex<float>)
PTXBLAS_REF_COMMON(z, std::complex<double>)
PTXBLAS_REF_HERMITIAN(c, std::complex<float>, float)
PTXBLAS_REF_HERMITIAN(z, std::complex<double>, double)
}

#undef PTXBLAS_REF_COMMON
#undef PTXBLAS_REF_HERMITIAN

// Ref<T>::gemm, ::symm, ... with the Fortran routine of T's precision.
template <class T>
struct Ref;

#define PTXBLAS_REF_TRAITS(p, T)                                                   \
  template <>                                                                      \
  struct Ref<T> {                                                                  \
    static constexpr auto gemm = p##gemm_;                                         \
    static constexpr auto symm = p##symm_;                                         \
    static constexpr auto syrk = p##syrk_;                                         \
    static constexpr auto syr2k = p##syr2k_;                                       \
    static constexpr auto trmm = p##trmm_;                                         \
    static constexpr auto trsm = p##trsm_;                                         \
  };
PTXBLAS_REF_TRAITS(s, float)
PTXBLAS_REF_TRAITS(d, double)
PTXBLAS_REF_TRAITS(c, std::complex<float>)
PTXBLAS_REF_TRAITS(z, std::complex<double>)
#undef PTXBLAS_REF_TRAITS

template <class T>
struct RefHermitian;
template <>
struct RefHermitian<std::complex<float>> {
  static constexpr auto hemm = chemm_;
  static constexpr auto herk = cherk_;
  static constexpr auto her2k = cher2k_;
};
template <>
struct RefHermitian<std::complex<double>> {
  static constexpr auto hemm = zhemm_;
  static constexpr auto herk = zherk_;
  static constexpr auto her2k = zher2k_;
};
