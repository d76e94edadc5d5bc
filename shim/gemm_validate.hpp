// cuBLAS's documented argument checks for GEMM, in one place for every entry point.
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <optional>

namespace ptxblas::shim {

// A status to return before any GPU work (an error, or SUCCESS for an empty C), or nothing when
// the call should run.
std::optional<cublasStatus_t> check_gemm_args(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, std::int64_t m, std::int64_t n,
                                              std::int64_t k, const void* alpha, std::int64_t lda,
                                              std::int64_t ldb, const void* beta, std::int64_t ldc);

// cuBLAS's null-operand rule, checked once the scalars are known: C may be null only when it is
// left alone (beta == 1 and nothing is added), A and B only when nothing is accumulated (alpha == 0
// or k == 0). Scalars in device memory are unknown on the host: the operands count as needed.
// alpha/beta are {re, im}; ignored when device_scalars.
std::optional<cublasStatus_t> check_null_operands(bool device_scalars, const double alpha[2], const double beta[2],
                                                  std::int64_t k, const void* a, const void* b, const void* c);

bool valid_op(cublasOperation_t op);
char op_char(cublasOperation_t op);

}  // namespace ptxblas::shim
