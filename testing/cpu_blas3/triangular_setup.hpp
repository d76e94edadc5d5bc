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

}  // namespace blas3test
