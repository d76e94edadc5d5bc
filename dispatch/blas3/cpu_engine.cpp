#include "cpu_engine.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ptxblas::blas3 {
namespace {

template <class T>
struct Real {
  using type = T;
};
template <class R>
struct Real<std::complex<R>> {
  using type = R;
};

template <class T>
constexpr bool kComplex = !std::is_same_v<T, typename Real<T>::type>;

template <class T>
T conj_of(T v) {
  if constexpr (kComplex<T>)
    return std::conj(v);
  else
    return v;
}

template <class T>
T real_of(T v) {
  if constexpr (kComplex<T>)
    return T(v.real(), 0);
  else
    return v;
}

template <class T>
T from(Scalar s) {
  using R = typename Real<T>::type;
  if constexpr (kComplex<T>)
    return T(static_cast<R>(s.re), static_cast<R>(s.im));
  else
    return static_cast<T>(s.re);
}

template <class T>
class CpuEngine final : public Engine {
 public:
  CpuEngine(DataType t, std::int64_t max_inverse) : t_(t), max_inverse_(max_inverse) {}
  DataType data() const override { return t_; }
  std::int64_t max_inverse() const override { return max_inverse_; }
  std::string summary() const override { return "cpu engine"; }
  bool wrote_caller_memory() const override { return true; }  // not tracked: assume so

  void gemm(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a, MatView b,
            Scalar beta, MatView c) override {
    multiply(ta, tb, m, n, k, alpha, a, b, beta, c, [](std::int64_t, std::int64_t) { return true; }, false);
  }

  void gemm_into(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a, MatView b,
                 Scalar beta, MatView c, MatView d) override {
    if (d.p != c.p && d.ld != c.ld) throw std::invalid_argument("CPU engine: gemm_into needs D's ld == C's");
    multiply(ta, tb, m, n, k, alpha, a, b, beta, c, [](std::int64_t, std::int64_t) { return true; }, false,
             gen::kBandNone, d);
  }

  // Exactly the terms the triangle allows (tighter than the GPU's whole K-steps per block), so a
  // wrong band makes the adaptor tests fail here too.
  void gemm_band(int band, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
                 MatView b, Scalar beta, MatView c) override {
    if (band < gen::kBandALower || band > gen::kBandBUpper) throw std::invalid_argument("CPU engine: unknown band");
    multiply(ta, tb, m, n, k, alpha, a, b, beta, c, [](std::int64_t, std::int64_t) { return true; }, false, band);
  }

  void gemm_triangle(Uplo uplo, bool hermitian, Op ta, Op tb, std::int64_t n, std::int64_t k, Scalar alpha,
                     MatView a, MatView b, Scalar beta, MatView c) override {
    multiply(
        ta, tb, n, n, k, alpha, a, b, beta, c,
        [uplo](std::int64_t i, std::int64_t j) { return i == j || stored(uplo, i, j); }, hermitian);
  }

  MatView scratch(std::int64_t rows, std::int64_t cols) override {
    live_.push_back(std::make_unique<std::vector<T>>(static_cast<std::size_t>(std::max<std::int64_t>(rows * cols, 1))));
    return {live_.back()->data(), std::max<std::int64_t>(rows, 1)};
  }
  void release(MatView w) override {
    // The vector owning w.p is found by address (scratch is rare and short-lived).
    for (auto it = live_.begin(); it != live_.end(); ++it) {
      if ((*it)->data() == w.p) {
        live_.erase(it);
        return;
      }
    }
  }

  void symmetrize(Uplo uplo, bool hermitian, std::int64_t n, MatView a, MatView w) override {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        T v;
        if (i == j)
          v = hermitian ? real_of(at(a, i, i)) : at(a, i, i);
        else if (stored(uplo, i, j))
          v = at(a, i, j);
        else
          v = hermitian ? conj_of(at(a, j, i)) : at(a, j, i);
        at(w, i, j) = v;
      }
  }

  void triangle(Uplo uplo, Diag diag, std::int64_t n, MatView a, MatView w) override {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        at(w, i, j) = i == j ? (diag == Diag::Unit ? T(1) : at(a, i, i)) : stored(uplo, i, j) ? at(a, i, j) : T{};
  }

  void invert_diagonal_blocks(Uplo uplo, Diag diag, std::int64_t n, std::int64_t bs, MatView a,
                              MatView w) override {
    if (bs > max_inverse_ || bs < 1) throw EngineError("invert_diagonal_blocks beyond max_inverse");
    for (std::int64_t b = 0; b < n; b += bs)
      invert_triangle(uplo, diag, std::min(bs, n - b), sub(a, b, b, t_), sub(w, b, 0, t_));
  }

  // One diagonal block, W (n x n) = the inverse of the triangle A holds.
  void invert_triangle(Uplo uplo, Diag diag, std::int64_t n, MatView a, MatView w) {
    triangle(uplo, diag, n, a, w);
    // Column by column: solve W_tri x = e_j by substitution on the copy (T precision, as on GPU).
    std::vector<T> tri(static_cast<std::size_t>(n * n));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) tri[static_cast<std::size_t>(i + j * n)] = at(w, i, j);
    auto L = [&](std::int64_t i, std::int64_t j) { return tri[static_cast<std::size_t>(i + j * n)]; };
    for (std::int64_t j = 0; j < n; ++j) {
      std::vector<T> x(static_cast<std::size_t>(n), T{});
      if (uplo == Uplo::Lower) {
        for (std::int64_t i = j; i < n; ++i) {
          T s = i == j ? T(1) : T{};
          for (std::int64_t l = j; l < i; ++l) s -= L(i, l) * x[static_cast<std::size_t>(l)];
          x[static_cast<std::size_t>(i)] = s / L(i, i);
        }
      } else {
        for (std::int64_t i = j; i >= 0; --i) {
          T s = i == j ? T(1) : T{};
          for (std::int64_t l = i + 1; l <= j; ++l) s -= L(i, l) * x[static_cast<std::size_t>(l)];
          x[static_cast<std::size_t>(i)] = s / L(i, i);
        }
      }
      for (std::int64_t i = 0; i < n; ++i) at(w, i, j) = x[static_cast<std::size_t>(i)];
    }
  }

  void scale(std::int64_t m, std::int64_t n, Scalar alpha, MatView c) override {
    const T al = from<T>(alpha);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) at(c, i, j) = alpha.is_zero() ? T{} : al * at(c, i, j);
  }

  void copy(std::int64_t m, std::int64_t n, MatView a, MatView b) override {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) at(b, i, j) = at(a, i, j);
  }

  void swap_rows(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count) override {
    for (std::int64_t r = 0; r < count; ++r)
      if (pivots[r] != r)
        for (std::int64_t j = 0; j < n; ++j) std::swap(at(a, r, j), at(a, pivots[r], j));
  }
  void swap_rows_engine(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count) override {
    swap_rows(n, a, pivots, count);
  }
  bool has_lu_columns() const override { return true; }
  // The GPU kernel's steps (lu_columns_ptx.cpp) as loops, in the same order.
  void lu_columns(std::int64_t m, std::int64_t w, MatView a, std::int32_t* pivots, std::int64_t offset,
                  std::int64_t left, std::int64_t width) override {
    using R = typename Real<T>::type;
    const MatView panel{static_cast<T*>(a.p) - left * a.ld, a.ld};
    for (std::int64_t j = 0; j < w; ++j) {
      R best = -2;
      std::int64_t p = j;
      for (std::int64_t i = j; i < m; ++i) {
        const T v = at(a, i, j);
        R key = std::abs(std::real(v)) + std::abs(std::imag(v));
        if (key != key) key = -1;
        if (key > best) best = key, p = i;
      }
      pivots[j] = static_cast<std::int32_t>(offset + p);
      if (p != j)
        for (std::int64_t c = 0; c < width; ++c) std::swap(at(panel, j, c), at(panel, p, c));
      const T d = at(a, j, j);
      if (d != T{}) {
        const bool tiny = !kComplex<T> && std::abs(std::real(d)) < std::numeric_limits<R>::min();
        const T inv = T(1) / d;
        for (std::int64_t i = j + 1; i < m; ++i)
          at(a, i, j) = kComplex<T> || tiny ? at(a, i, j) / d : at(a, i, j) * inv;
      }
      for (std::int64_t c = j + 1; c < w; ++c)
        for (std::int64_t i = j + 1; i < m; ++i) at(a, i, c) -= at(a, i, j) * at(a, j, c);
    }
  }
  void* host_buffer(std::size_t bytes) override { return ::operator new(std::max<std::size_t>(bytes, 1)); }
  void release_host_buffer(void* p) override { ::operator delete(p); }
  // The engine's memory is the host's: copies are immediate.
  void to_host(std::int64_t m, std::int64_t n, MatView src, void* host, std::int64_t ld) override {
    copy(m, n, src, {host, ld});
  }
  void from_host(std::int64_t m, std::int64_t n, const void* host, std::int64_t ld, MatView dst) override {
    copy(m, n, {const_cast<void*>(host), ld}, dst);
  }

 private:
  static bool stored(Uplo uplo, std::int64_t i, std::int64_t j) { return uplo == Uplo::Lower ? i > j : i < j; }

  // D(i, j) = alpha op(A) op(B) + beta C(i, j) where keep(i, j), D = C unless d.p is set; C is
  // read only for beta != 0; hermitian: real diagonal.
  template <class Keep>
  void multiply(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a, MatView b,
                Scalar beta, MatView c, Keep keep, bool hermitian, int band = gen::kBandNone, MatView d = {}) {
    if (!d.p) d = c;
    const T al = from<T>(alpha), be = from<T>(beta);
    const bool product = !alpha.is_zero() && k > 0;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        if (!keep(i, j)) continue;
        // The K range where the band's triangle is not zero (all of K without a band).
        std::int64_t lo = 0, hi = k;
        if (band == gen::kBandALower) hi = std::min(k, i + 1);
        if (band == gen::kBandAUpper) lo = i;
        if (band == gen::kBandBLower) lo = j;
        if (band == gen::kBandBUpper) hi = std::min(k, j + 1);
        T sum{};
        if (product)
          for (std::int64_t l = lo; l < hi; ++l) sum += op_at(a, ta, i, l) * op_at(b, tb, l, j);
        const T added = product ? al * sum : T{};
        T& out = at(d, i, j);
        out = beta.is_zero() ? added : added + be * at(c, i, j);
        if (hermitian && i == j) out = real_of(out);
      }
  }
  static T& at(MatView v, std::int64_t i, std::int64_t j) { return static_cast<T*>(v.p)[i + j * v.ld]; }
  static T op_at(MatView v, Op op, std::int64_t i, std::int64_t j) {
    if (op == Op::N) return at(v, i, j);
    return op == Op::C ? conj_of(at(v, j, i)) : at(v, j, i);
  }

  DataType t_;
  std::int64_t max_inverse_;
  std::vector<std::unique_ptr<std::vector<T>>> live_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(DataType t, std::int64_t max_inverse) {
  switch (t) {
    case DataType::F32: return std::make_unique<CpuEngine<float>>(t, max_inverse);
    case DataType::F64: return std::make_unique<CpuEngine<double>>(t, max_inverse);
    case DataType::C32: return std::make_unique<CpuEngine<std::complex<float>>>(t, max_inverse);
    case DataType::C64: return std::make_unique<CpuEngine<std::complex<double>>>(t, max_inverse);
    default: throw std::invalid_argument("CPU engine: only F32, F64, C32, C64");
  }
}

}  // namespace ptxblas::blas3
