// The level-3 routines behind the Fortran and CBLAS symbols, in Fortran terms (everything by
// reference, column-major): the reference BLAS's checks and quick returns, then the host path.
// Each returns the reference INFO of a bad argument (0: valid, and done); callers report it.
#pragma once

#include <cctype>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "blas3_entry.hpp"
#include "fortran_validate.hpp"
#include "host_blas.hpp"
#include "offload_split.hpp"
#include "routines.hpp"

namespace ptxblas::shim {

using fchar = const char*;
using fint = const int*;
using flen = std::size_t;

template <class T>
struct FT;
template <>
struct FT<float> {
  static constexpr char p = 's';
  static constexpr gen::DataType data = gen::DataType::F32;
};
template <>
struct FT<double> {
  static constexpr char p = 'd';
  static constexpr gen::DataType data = gen::DataType::F64;
};
template <>
struct FT<std::complex<float>> {
  static constexpr char p = 'c';
  static constexpr gen::DataType data = gen::DataType::C32;
};
template <>
struct FT<std::complex<double>> {
  static constexpr char p = 'z';
  static constexpr gen::DataType data = gen::DataType::C64;
};

template <class S>
blas3::Scalar scalar(const S& v) {
  if constexpr (std::is_arithmetic_v<S>)
    return {static_cast<double>(v), 0};
  else
    return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
}

// "dgemm_" and the reference's "DGEMM " (six characters, as XERBLA receives it).
struct Names {
  std::string routine, symbol, xerbla;
  mutable QuickCpu quick;
  Names(char p, const char* r) : routine(r), symbol(std::string(1, p) + r + "_") {
    for (char c : std::string(1, p) + r) xerbla += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    xerbla.resize(6, ' ');
  }
};

// The names of routine `r` for element type T, built once (every call needs them).
template <class T>
const Names& names_of(const char* r) {
  static const Names all[] = {Names(FT<T>::p, "gemm"),  Names(FT<T>::p, "symm"),  Names(FT<T>::p, "hemm"),
                              Names(FT<T>::p, "syrk"),  Names(FT<T>::p, "herk"),  Names(FT<T>::p, "syr2k"),
                              Names(FT<T>::p, "her2k"), Names(FT<T>::p, "trmm"),  Names(FT<T>::p, "trsm")};
  // Found from a few letters, with no string comparison: LAPACK makes millions of calls (the
  // Fortran tests against Netlib catch a wrong entry: its calls would forward to another routine).
  int i = -1;
  switch (r[0]) {
    case 'g': i = 0; break;
    case 's': i = r[2] == 'm' ? 1 : r[3] == 'k' ? 3 : 5; break;
    case 'h': i = r[2] == 'm' ? 2 : r[3] == 'k' ? 4 : 6; break;
    case 't': i = r[2] == 'm' ? 7 : 8; break;
  }
  if (i < 0) throw std::invalid_argument(std::string("no level-3 routine ") + r);
  return all[i];
}

inline gen::Op op_of(char c) { return lsame(c, 'N') ? gen::Op::N : lsame(c, 'T') ? gen::Op::T : gen::Op::C; }
inline blas3::Side side_of(char c) { return lsame(c, 'L') ? blas3::Side::Left : blas3::Side::Right; }
inline blas3::Uplo uplo_of(char c) { return lsame(c, 'L') ? blas3::Uplo::Lower : blas3::Uplo::Upper; }
inline blas3::Diag diag_of(char c) { return lsame(c, 'U') ? blas3::Diag::Unit : blas3::Diag::NonUnit; }
inline std::string flags(std::initializer_list<char> cs) {
  std::string s;
  for (char c : cs) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
inline double cplx_factor(gen::DataType t) { return gen::is_complex(t) ? 4.0 : 1.0; }

// A matrix the routine reads (or writes) as the host path and the offload see it; `unread`: the
// reference does not reference it in this call (alpha == 0), so it is neither copied nor read.
inline dispatch::HostOperand operand(const void* p, int rows, int cols, int ld, bool written = false,
                                     bool unread = false) {
  if (unread) return {const_cast<void*>(p), 0, 0, ld, false};
  return {const_cast<void*>(p), rows, cols, ld, written};
}

// The matrix a routine writes; with beta == 0 the reference never reads it, so it is not copied
// to the device either.
template <class S>
dispatch::HostOperand output(const void* p, int rows, int cols, int ld, const S& beta) {
  dispatch::HostOperand o = operand(p, rows, cols, ld, true);
  o.read = beta != S(0);
  return o;
}

template <class T>
int gemm(fchar ta, fchar tb, fint m, fint n, fint k, const T* alpha, const T* a, fint lda, const T* b, fint ldb,
         const T* beta, T* c, fint ldc) {
  const Names& nm = names_of<T>("gemm");
  if (int info = gemm_info(*ta, *tb, *m, *n, *k, *lda, *ldb, *ldc)) return info;
  if (*m == 0 || *n == 0 || ((*alpha == T(0) || *k == 0) && *beta == T(1))) return 0;
  const bool na = lsame(*ta, 'N'), nb = lsame(*tb, 'N');
  const auto cpu = [&](void* fn) {
    reinterpret_cast<void (*)(fchar, fchar, fint, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*,
                              fint, flen, flen)>(fn)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  };
  const double flops = 2.0 * *m * *n * *k * cplx_factor(FT<T>::data);
  if (void* fn = quick_cpu(nm.quick, "gemm", nm.symbol.c_str(), flops)) {
    cpu(fn);
    return 0;
  }
  HostCall call{{nm.symbol.c_str(), flags({*ta, *tb}), *m, *n, *k},
                "gemm",
                nm.symbol.c_str(),
                FT<T>::data,
                flops,
                {operand(a, na ? *m : *k, na ? *k : *m, *lda, false, *alpha == T(0)),
                 operand(b, nb ? *k : *n, nb ? *n : *k, *ldb, false, *alpha == T(0)), output(c, *m, *n, *ldc, *beta)}};
  call.tiles = [&, &o = call.operands] {
    return dispatch::gemm_tiles(FT<T>::data, op_of(*ta), op_of(*tb), *m, *n, *k, scalar(*alpha), scalar(*beta), o[0],
                                o[1], o[2]);
  };
  run_host(call, cpu, [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
    e.gemm(op_of(*ta), op_of(*tb), *m, *n, *k, scalar(*alpha), v[0], v[1], scalar(*beta), v[2]);
  });
  return 0;
}

template <class T>
int symm(const char* routine, bool herm, fchar side, fchar uplo, fint m, fint n, const T* alpha, const T* a, fint lda,
         const T* b, fint ldb, const T* beta, T* c, fint ldc) {
  const Names& nm = names_of<T>(routine);
  if (int info = symm_info(*side, *uplo, *m, *n, *lda, *ldb, *ldc)) return info;
  if (*m == 0 || *n == 0 || (*alpha == T(0) && *beta == T(1))) return 0;
  const int dim = lsame(*side, 'L') ? *m : *n;
  const auto cpu = [&](void* fn) {
    reinterpret_cast<void (*)(fchar, fchar, fint, fint, const T*, const T*, fint, const T*, fint, const T*, T*, fint,
                              flen, flen)>(fn)(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  };
  const double flops = 2.0 * *m * *n * dim * cplx_factor(FT<T>::data);
  if (void* fn = quick_cpu(nm.quick, routine, nm.symbol.c_str(), flops)) {
    cpu(fn);
    return 0;
  }
  HostCall call{{nm.symbol.c_str(), flags({*side, *uplo}), *m, *n, 0},
                routine,
                nm.symbol.c_str(),
                FT<T>::data,
                flops,
                {operand(a, dim, dim, *lda, false, *alpha == T(0)), operand(b, *m, *n, *ldb, false, *alpha == T(0)),
                 output(c, *m, *n, *ldc, *beta)}};
  call.tiles = [&, &o = call.operands] {
    return dispatch::symm_tiles(FT<T>::data, side_of(*side), uplo_of(*uplo), herm, *m, *n, scalar(*alpha),
                                scalar(*beta), o[0], o[1], o[2]);
  };
  run_host(call, cpu, [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
    blas3::symm(e, side_of(*side), uplo_of(*uplo), herm, *m, *n, scalar(*alpha), v[0], v[1], scalar(*beta), v[2]);
  });
  return 0;
}

// SYRK / HERK (b == nullptr) and SYR2K / HER2K. SA, SB: how alpha and beta are stored.
template <class T, class SA, class SB>
int rank_k(const char* routine, bool herm, bool two, fchar uplo, fchar trans, fint n, fint k, const SA* alpha,
           const T* a, fint lda, const T* b, fint ldb, const SB* beta, T* c, fint ldc) {
  const Names& nm = names_of<T>(routine);
  const FortranTrans rule = herm                           ? FortranTrans::Hermitian
                            : gen::is_complex(FT<T>::data) ? FortranTrans::ComplexSymmetric
                                                           : FortranTrans::RealSymmetric;
  if (int info = rank_k_info(*uplo, *trans, rule, *n, *k, *lda, two, two ? *ldb : 1, *ldc)) return info;
  if (*n == 0 || ((*alpha == SA(0) || *k == 0) && *beta == SB(1))) return 0;
  const bool by_rows = lsame(*trans, 'N');
  const int rows = by_rows ? *n : *k, cols = by_rows ? *k : *n;
  const auto cpu = [&](void* fn) {
    if (two)
      reinterpret_cast<void (*)(fchar, fchar, fint, fint, const SA*, const T*, fint, const T*, fint, const SB*, T*,
                                fint, flen, flen)>(fn)(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
    else
      reinterpret_cast<void (*)(fchar, fchar, fint, fint, const SA*, const T*, fint, const SB*, T*, fint, flen, flen)>(
          fn)(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, 1, 1);
  };
  const double flops = (two ? 2.0 : 1.0) * *n * *n * *k * cplx_factor(FT<T>::data);
  if (void* fn = quick_cpu(nm.quick, routine, nm.symbol.c_str(), flops)) {
    cpu(fn);
    return 0;
  }
  const bool unread = *alpha == SA(0);  // A and B not referenced
  std::vector<dispatch::HostOperand> ops = {operand(a, rows, cols, *lda, false, unread),
                                            output(c, *n, *n, *ldc, *beta)};
  ops.back().triangle = lsame(*uplo, 'L') ? 'L' : 'U';  // only the stored triangle comes back
  if (two) ops.insert(ops.begin() + 1, operand(b, rows, cols, *ldb, false, unread));
  const blas3::RankK spec{uplo_of(*uplo), op_of(*trans), herm, *n, *k};
  HostCall call{{nm.symbol.c_str(), flags({*uplo, *trans}), *n, *n, *k}, routine, nm.symbol.c_str(), FT<T>::data,
                flops, ops};
  call.tiles = [&, &o = call.operands] {
    return dispatch::rank_k_tiles(FT<T>::data, spec, two, scalar(*alpha), scalar(*beta), o);
  };
  run_host(
      call, cpu, [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
        if (two)
          blas3::rank_2k(e, spec, scalar(*alpha), v[0], v[1], scalar(*beta), v[2]);
        else
          blas3::rank_k(e, spec, scalar(*alpha), v[0], v[0], scalar(*beta), v[1]);
      });
  return 0;
}

template <class T>
int triangular(const char* routine, bool solve, fchar side, fchar uplo, fchar transa, fchar diag, fint m, fint n,
               const T* alpha, const T* a, fint lda, T* b, fint ldb) {
  const Names& nm = names_of<T>(routine);
  if (int info = triangular_info(*side, *uplo, *transa, *diag, *m, *n, *lda, *ldb)) return info;
  if (*m == 0 || *n == 0) return 0;
  const int dim = lsame(*side, 'L') ? *m : *n;
  const auto cpu = [&](void* fn) {
    reinterpret_cast<void (*)(fchar, fchar, fchar, fchar, fint, fint, const T*, const T*, fint, T*, fint, flen, flen,
                              flen, flen)>(fn)(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, 1, 1, 1, 1);
  };
  const double flops = 1.0 * *m * *n * dim * cplx_factor(FT<T>::data);
  if (void* fn = quick_cpu(nm.quick, routine, nm.symbol.c_str(), flops)) {
    cpu(fn);
    return 0;
  }
  HostCall call{{nm.symbol.c_str(), flags({*side, *uplo, *transa, *diag}), *m, *n, 0},
                routine,
                nm.symbol.c_str(),
                FT<T>::data,
                flops,
                {operand(a, dim, dim, *lda, false, *alpha == T(0)), operand(b, *m, *n, *ldb, true)}};
  call.tiles = [&, &o = call.operands] {
    const dispatch::Triangular tr{solve, side_of(*side), uplo_of(*uplo), op_of(*transa), diag_of(*diag)};
    return dispatch::triangular_tiles(FT<T>::data, tr, *m, *n, scalar(*alpha), o[0], o[1]);
  };
  run_host(call, cpu, [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
             if (solve)
               blas3::trsm(e, side_of(*side), uplo_of(*uplo), op_of(*transa), diag_of(*diag), *m, *n, scalar(*alpha),
                           v[0], v[1]);
             else
               blas3::trmm(e, side_of(*side), uplo_of(*uplo), op_of(*transa), diag_of(*diag), *m, *n, scalar(*alpha),
                           v[0], v[1], v[1]);
           });
  return 0;
}

}  // namespace ptxblas::shim
