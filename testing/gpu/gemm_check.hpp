// One GEMM run through ptxblas and the real cuBLAS on the same fresh random data, each into its own
// NaN-poisoned C, both checked against the float64 reference; ptxblas must have served the call.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "entries.hpp"
#include "host_math.hpp"

namespace gputest {

struct CheckOptions {
  bool device_scalars = false;  // alpha/beta in device memory (CUBLAS_POINTER_MODE_DEVICE)
  bool expect_served = true;    // ptxblas_last_call() must name a kernel
  // C starts this many elements into its buffer (a C pointer off 16-byte alignment where the
  // element size does not divide 16); the elements before it must stay poisoned too.
  std::int64_t c_offset = 0;
};

struct CheckResult {
  std::string failure;  // empty: passed
  std::string kernel;   // ptxblas_last_call() after the ptxblas call
};

// Runs `g` on `handle` (its stream is used for the copies too).
CheckResult check_gemm(const Entry& e, const Gemm& g, cublasHandle_t handle, std::mt19937_64& rng,
                       const CheckOptions& opt = {});

std::string describe(const Entry& e, const Gemm& g);

// A leading dimension for `rows` rows: the minimum, or padded when `pad` (lda > rows cases).
std::int64_t leading_dim(std::int64_t rows, bool pad, std::mt19937_64& rng);

}  // namespace gputest
