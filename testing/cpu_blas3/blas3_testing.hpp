// Shared pieces of the adaptor tests: typed matrices with random values, the engine and data type
// for an element type, the reference BLAS's character codes, and a tolerance check.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_engine.hpp"
#include "routines.hpp"

namespace blas3test {

using namespace ptxblas::blas3;

template <class T>
struct Traits {
  using Real = T;
  static constexpr bool complex = false;
};
template <class R>
struct Traits<std::complex<R>> {
  using Real = R;
  static constexpr bool complex = true;
};

template <class T>
DataType data_type() {
  if constexpr (std::is_same_v<T, float>) return DataType::F32;
  if constexpr (std::is_same_v<T, double>) return DataType::F64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return DataType::C32;
  return DataType::C64;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (Traits<T>::complex)
    return T(static_cast<typename Traits<T>::Real>(u(rng)), static_cast<typename Traits<T>::Real>(u(rng)));
  else
    return static_cast<T>(u(rng));
}

template <class T>
T quiet_nan() {
  const auto n = std::numeric_limits<typename Traits<T>::Real>::quiet_NaN();
  if constexpr (Traits<T>::complex)
    return T(n, n);
  else
    return n;
}

template <class T>
bool is_nan(T v) {
  if constexpr (Traits<T>::complex)
    return std::isnan(v.real()) || std::isnan(v.imag());
  else
    return std::isnan(v);
}

// Column-major rows x cols with leading dimension ld; padding rows hold NaN.
template <class T>
struct Matrix {
  std::int64_t rows = 0, cols = 0, ld = 1;
  std::vector<T> v;
  int ld_int = 1;  // for the Fortran interface
  Matrix(std::int64_t r, std::int64_t c, std::int64_t pad = 0)
      : rows(r), cols(c), ld(std::max<std::int64_t>(1, r) + pad),
        v(static_cast<std::size_t>(ld * std::max<std::int64_t>(c, 1)), quiet_nan<T>()),
        ld_int(static_cast<int>(ld)) {}
  T& operator()(std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>(i + j * ld)]; }
  T operator()(std::int64_t i, std::int64_t j) const { return v[static_cast<std::size_t>(i + j * ld)]; }
  MatView view() { return {v.data(), ld}; }
  const int& ld32() const { return ld_int; }
  void randomize(std::mt19937_64& rng) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) (*this)(i, j) = random_value<T>(rng);
  }
};

// re + i im for complex T, re for real T.
template <class T>
T mix(double re, double im) {
  if constexpr (Traits<T>::complex)
    return T(static_cast<typename Traits<T>::Real>(re), static_cast<typename Traits<T>::Real>(im));
  else
    return static_cast<T>(re);
}

template <class T>
Scalar scalar(T v) {
  if constexpr (Traits<T>::complex)
    return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
  else
    return {static_cast<double>(v), 0};
}

inline char code(Side s) { return s == Side::Left ? 'L' : 'R'; }
inline char code(Uplo u) { return u == Uplo::Lower ? 'L' : 'U'; }
inline char code(Diag d) { return d == Diag::Unit ? 'U' : 'N'; }
inline char code(Op o) { return o == Op::N ? 'N' : o == Op::T ? 'T' : 'C'; }

// Elements (i, j) with pick(i, j) must agree within tol * scale; NaN where the reference has NaN
// (untouched poison) must be NaN bit for bit as well, i.e. identical bytes.
template <class T, class Pick>
std::string compare(const Matrix<T>& got, const Matrix<T>& want, double tol, Pick pick) {
  double scale = 1;
  for (std::int64_t j = 0; j < want.cols; ++j)
    for (std::int64_t i = 0; i < want.rows; ++i)
      if (pick(i, j) && !is_nan(want(i, j))) scale = std::max(scale, static_cast<double>(std::abs(want(i, j))));
  std::ostringstream os;
  int bad = 0;
  for (std::int64_t j = 0; j < want.cols; ++j)
    for (std::int64_t i = 0; i < want.rows; ++i) {
      const T g = got(i, j), w = want(i, j);
      bool ok;
      if (!pick(i, j) || is_nan(w))
        ok = std::memcmp(&g, &w, sizeof(T)) == 0;
      else
        ok = !is_nan(g) && static_cast<double>(std::abs(g - w)) <= tol * scale;
      if (!ok && bad++ < 3) os << " (" << i << "," << j << "): got " << g << " want " << w << ";";
    }
  if (!bad) return {};
  return std::to_string(bad) + " wrong:" + os.str();
}

// Tolerance for sums of `terms` products in T's precision.
template <class T>
double tolerance(std::int64_t terms) {
  const double eps = std::numeric_limits<typename Traits<T>::Real>::epsilon();
  return 8.0 * eps * static_cast<double>(std::max<std::int64_t>(terms, 1) + 4);
}

using ElementTypes = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;

}  // namespace blas3test
