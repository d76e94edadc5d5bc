// Host side of a GEMM check: values as complex<double>, their encodings in each storage type,
// the float64 reference and a per-element error bound that a correct implementation cannot exceed.
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include <cublas_v2.h>

#include "entries.hpp"

namespace gputest {

using cd = std::complex<double>;

// Nearest value representable in the type (imaginary part dropped for real types).
cd round_to(Elem e, cd v);
cd round_to(Scal s, cd v);

std::vector<unsigned char> encode(Elem e, const std::vector<cd>& v);
std::vector<cd> decode(Elem e, const std::vector<unsigned char>& bytes);
std::vector<unsigned char> encode(Scal s, cd v);

// Uniform in [-1, 1] (both parts for complex types), exactly representable in `e`.
cd random_value(Elem e, std::mt19937_64& rng);

struct Gemm {
  cublasOperation_t ta, tb;
  std::int64_t m, n, k, lda, ldb, ldc;
  cd alpha, beta;
};

// Rows of the stored A / B (before the op) and their column counts.
std::int64_t a_rows(const Gemm& g);
std::int64_t a_cols(const Gemm& g);
std::int64_t b_rows(const Gemm& g);
std::int64_t b_cols(const Gemm& g);

struct Reference {
  std::vector<cd> c;                 // m x n, leading dimension m
  std::vector<double> bound;         // |error| allowed per element for ptxblas (f32 or f64 accumulation)
  std::vector<double> bound_cublas;  // the same for cuBLAS, which may accumulate COMPUTE_16F in f16
};

// alpha * op(A) op(B) + beta * C in float64 (C not read when beta == 0), and each element's bound:
// the classic gamma_k * (|alpha| sum |a||b| + |beta||c|) with the accumulation precision, plus the
// final rounding to the storage type. Real types take a real-arithmetic path (speed).
Reference reference(const Gemm& g, const Entry& e, const std::vector<cd>& a, const std::vector<cd>& b,
                    const std::vector<cd>& c);

}  // namespace gputest
