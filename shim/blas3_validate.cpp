#include "blas3_validate.hpp"

#include <algorithm>

#include "gemm_validate.hpp"

namespace ptxblas::shim {
namespace {

bool valid_side(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT || s == CUBLAS_SIDE_RIGHT; }
bool valid_uplo(cublasFillMode_t u) { return u == CUBLAS_FILL_MODE_LOWER || u == CUBLAS_FILL_MODE_UPPER; }
bool valid_diag(cublasDiagType_t d) { return d == CUBLAS_DIAG_NON_UNIT || d == CUBLAS_DIAG_UNIT; }

bool valid_trans(cublasOperation_t t, TransRule rule) {
  switch (rule) {
    case TransRule::RealSymmetric: return valid_op(t);
    case TransRule::ComplexSymmetric: return t == CUBLAS_OP_N || t == CUBLAS_OP_T;
    case TransRule::Hermitian: return t == CUBLAS_OP_N || t == CUBLAS_OP_C;
  }
  return false;
}

std::int64_t at_least_one(std::int64_t v) { return std::max<std::int64_t>(1, v); }

}  // namespace

std::optional<cublasStatus_t> check_symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                                         std::int64_t m, std::int64_t n, const void* alpha, std::int64_t lda,
                                         std::int64_t ldb, const void* beta, std::int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_side(side) || !valid_uplo(uplo) || m < 0 || n < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const std::int64_t dim = side == CUBLAS_SIDE_LEFT ? m : n;
  if (lda < at_least_one(dim) || ldb < at_least_one(m) || ldc < at_least_one(m)) return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  return std::nullopt;
}

std::optional<cublasStatus_t> check_rank_k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,
                                           TransRule rule, std::int64_t n, std::int64_t k, const void* alpha,
                                           std::int64_t lda, bool has_b, std::int64_t ldb, const void* beta,
                                           std::int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_uplo(uplo) || !valid_trans(trans, rule) || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const std::int64_t rows = trans == CUBLAS_OP_N ? n : k;
  if (lda < at_least_one(rows) || (has_b && ldb < at_least_one(rows)) || ldc < at_least_one(n))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  return std::nullopt;
}

std::optional<cublasStatus_t> check_triangular(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                                               cublasOperation_t trans, cublasDiagType_t diag, std::int64_t m,
                                               std::int64_t n, const void* alpha, std::int64_t lda, std::int64_t ldb,
                                               bool has_c, std::int64_t ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_side(side) || !valid_uplo(uplo) || !valid_op(trans) || !valid_diag(diag) || m < 0 || n < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  const std::int64_t dim = side == CUBLAS_SIDE_LEFT ? m : n;
  if (lda < at_least_one(dim) || ldb < at_least_one(m) || (has_c && ldc < at_least_one(m)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  return std::nullopt;
}

char side_char(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT ? 'L' : s == CUBLAS_SIDE_RIGHT ? 'R' : '?'; }
char uplo_char(cublasFillMode_t u) {
  return u == CUBLAS_FILL_MODE_LOWER ? 'L' : u == CUBLAS_FILL_MODE_UPPER ? 'U' : '?';
}
char diag_char(cublasDiagType_t d) { return d == CUBLAS_DIAG_UNIT ? 'U' : d == CUBLAS_DIAG_NON_UNIT ? 'N' : '?'; }

}  // namespace ptxblas::shim
