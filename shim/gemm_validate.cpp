#include "gemm_validate.hpp"

#include <algorithm>

namespace ptxblas::shim {

bool valid_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

char op_char(cublasOperation_t op) {
  switch (op) {
    case CUBLAS_OP_N: return 'N';
    case CUBLAS_OP_T: return 'T';
    case CUBLAS_OP_C: return 'C';
    default: return '?';
  }
}

std::optional<cublasStatus_t> check_gemm_args(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, std::int64_t m, std::int64_t n,
                                              std::int64_t k, const void* alpha, std::int64_t lda,
                                              std::int64_t ldb, const void* beta, std::int64_t ldc) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(transa) || !valid_op(transb) || m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const std::int64_t a_rows = transa == CUBLAS_OP_N ? m : k;
  const std::int64_t b_rows = transb == CUBLAS_OP_N ? k : n;
  if (lda < std::max<std::int64_t>(1, a_rows) || ldb < std::max<std::int64_t>(1, b_rows) ||
      ldc < std::max<std::int64_t>(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  return std::nullopt;
}

std::optional<cublasStatus_t> check_null_operands(bool device_scalars, const double alpha[2], const double beta[2],
                                                  std::int64_t k, const void* a, const void* b, const void* c) {
  if (a && b && c) return std::nullopt;
  const bool accumulates = k > 0 && (device_scalars || alpha[0] != 0 || alpha[1] != 0);
  const bool touches_c = accumulates || device_scalars || beta[0] != 1 || beta[1] != 0;
  if ((!c && touches_c) || ((!a || !b) && accumulates)) return CUBLAS_STATUS_INVALID_VALUE;
  if (!touches_c) return CUBLAS_STATUS_SUCCESS;  // C = 1 * C: nothing to do
  return std::nullopt;
}

}  // namespace ptxblas::shim
