// Unblocked Cholesky and LU in plain loops: the host steps of ptxblas's factorizations when the
// process has no LAPACK of its own (correct, not fast), and a reference for the tests. LAPACK's
// conventions: column-major, INFO returned, ipiv 1-based.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>

namespace ptxblas::host {

template <class T>
T conj_value(T v) {
  if constexpr (std::is_arithmetic_v<T>)
    return v;
  else
    return std::conj(v);
}

// The `lower` (else upper) triangle of the n x n matrix becomes L (A = L L^H) or U (A = U^H U).
template <class T>
int builtin_potrf(bool lower, std::int64_t n, T* a, std::int64_t ld) {
  auto at = [&](std::int64_t i, std::int64_t j) -> T& { return a[i + j * ld]; };
  // L(i, j) for i >= j: lower stores it, upper stores U = L^H.
  auto L = [&](std::int64_t i, std::int64_t j) { return lower ? at(i, j) : conj_value(at(j, i)); };
  for (std::int64_t j = 0; j < n; ++j) {
    double d = std::real(at(j, j));
    for (std::int64_t l = 0; l < j; ++l) d -= std::norm(L(j, l));
    if (!(d > 0)) {
      at(j, j) = T(d);
      return static_cast<int>(j + 1);
    }
    const auto r = static_cast<decltype(std::real(T{}))>(std::sqrt(d));
    at(j, j) = T(r);
    for (std::int64_t i = j + 1; i < n; ++i) {
      T s = L(i, j);
      for (std::int64_t l = 0; l < j; ++l) s -= L(i, l) * conj_value(L(j, l));
      s /= r;
      (lower ? at(i, j) : at(j, i)) = lower ? s : conj_value(s);
    }
  }
  return 0;
}

// P A = L U of the m x n matrix with partial pivoting (the largest |re| + |im|, as LAPACK's
// i?amax); ipiv[i] = the 1-based row swapped with row i + 1.
template <class T>
int builtin_getrf(std::int64_t m, std::int64_t n, T* a, std::int64_t ld, int* ipiv) {
  auto at = [&](std::int64_t i, std::int64_t j) -> T& { return a[i + j * ld]; };
  auto size = [](T v) { return std::abs(std::real(v)) + std::abs(std::imag(v)); };
  int info = 0;
  for (std::int64_t j = 0; j < std::min(m, n); ++j) {
    std::int64_t p = j;
    for (std::int64_t i = j + 1; i < m; ++i)
      if (size(at(i, j)) > size(at(p, j))) p = i;
    ipiv[j] = static_cast<int>(p + 1);
    if (at(p, j) == T(0)) {
      if (info == 0) info = static_cast<int>(j + 1);
      continue;
    }
    if (p != j)
      for (std::int64_t c = 0; c < n; ++c) std::swap(at(j, c), at(p, c));
    const T inv = T(1) / at(j, j);
    for (std::int64_t i = j + 1; i < m; ++i) at(i, j) *= inv;
    for (std::int64_t c = j + 1; c < n; ++c)
      for (std::int64_t i = j + 1; i < m; ++i) at(i, c) -= at(i, j) * at(j, c);
  }
  return info;
}

}  // namespace ptxblas::host
