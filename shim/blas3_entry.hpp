// The path every level-3 entry point takes: cuBLAS's checks, the handle's state, the scalars
// (read from device memory when the pointer mode says so), then the routine's adaptor on the GPU
// engine — or a reason to forward the whole call to the real cuBLAS.
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "engine.hpp"
#include "scalars.hpp"
#include "serve.hpp"

namespace ptxblas::shim {

struct Blas3Request {
  cublasHandle_t handle;
  gen::DataType data;
  ScalarKind alpha_kind, beta_kind;
  const void* alpha;
  const void* beta;  // nullptr for TRMM / TRSM
};

using Blas3Body = std::function<void(blas3::Engine&, blas3::Scalar alpha, blas3::Scalar beta)>;

// `checked`: what the routine's argument check returned.
Decision try_serve_blas3(const CallShape& shape, std::optional<cublasStatus_t> checked, const Blas3Request& r,
                         const Blas3Body& body);

inline blas3::MatView view(const void* p, std::int64_t ld) { return {const_cast<void*>(p), ld}; }
inline blas3::Side to_side(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT ? blas3::Side::Left : blas3::Side::Right; }
inline blas3::Uplo to_uplo(cublasFillMode_t u) {
  return u == CUBLAS_FILL_MODE_LOWER ? blas3::Uplo::Lower : blas3::Uplo::Upper;
}
inline blas3::Diag to_diag(cublasDiagType_t d) { return d == CUBLAS_DIAG_UNIT ? blas3::Diag::Unit : blas3::Diag::NonUnit; }
inline gen::Op to_gen_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? gen::Op::N : op == CUBLAS_OP_T ? gen::Op::T : gen::Op::C;
}

}  // namespace ptxblas::shim
