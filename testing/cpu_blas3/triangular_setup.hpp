// A triangular test matrix: the stored triangle random, scaled so the matrix is well conditioned;
// the unstored triangle NaN, and the diagonal NaN too when it is implicitly unit (none of it may be read).
#pragma once

#include "blas3_testing.hpp"

namespace blas3test {

template <class T>
Matrix<T> triangular(std::int64_t dim, Uplo uplo, Diag diag, std::mt19937_64& rng) {
  Matrix<T> a(dim, dim, 1);
  for (std::int64_t j = 0; j < dim; ++j)
    for (std::int64_t i = 0; i < dim; ++i) {
      const bool in = uplo == Uplo::Lower ? i > j : i < j;
      if (in) a(i, j) = random_value<T>(rng) / static_cast<typename Traits<T>::Real>(dim);
      if (i == j && diag == Diag::NonUnit)
        a(i, j) = random_value<T>(rng) * static_cast<typename Traits<T>::Real>(0.5) + mix<T>(1.5, 0.5);
    }
  return a;
}

// The unit lower factor L of a random dim x dim matrix's LU factorisation with partial pivoting
// (|L(i, j)| <= 1): the triangles LAPACK's getrf hands TRSM, much less well conditioned than
// triangular()'s. Upper triangle and diagonal NaN (never read with Diag::Unit).
template <class T>
Matrix<T> lu_unit_lower(std::int64_t dim, std::mt19937_64& rng) {
  Matrix<T> a(dim, dim, 0);
  a.randomize(rng);
  for (std::int64_t k = 0; k < dim; ++k) {
    std::int64_t p = k;
    for (std::int64_t i = k + 1; i < dim; ++i)
      if (std::abs(a(i, k)) > std::abs(a(p, k))) p = i;
    for (std::int64_t j = 0; j < dim; ++j) std::swap(a(k, j), a(p, j));
    for (std::int64_t i = k + 1; i < dim; ++i) {
      a(i, k) /= a(k, k);
      for (std::int64_t j = k + 1; j < dim; ++j) a(i, j) -= a(i, k) * a(k, j);
    }
  }
  const auto nan = std::numeric_limits<typename Traits<T>::Real>::quiet_NaN();
  for (std::int64_t j = 0; j < dim; ++j)
    for (std::int64_t i = 0; i <= j; ++i) a(i, j) = T(nan);
  return a;
}

}  // namespace blas3test
