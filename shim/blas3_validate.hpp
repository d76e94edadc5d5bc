// cuBLAS's documented argument checks for the level-3 routines. Each returns a status to return
// before any GPU work (an error, or SUCCESS for an empty problem), or nothing when the call runs.
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <optional>

namespace ptxblas::shim {

// Which op(A) a rank-k routine accepts: real SYRK-like (N, T, C), complex SYRK-like (N, T),
// Hermitian HERK-like (N, C).
enum class TransRule { RealSymmetric, ComplexSymmetric, Hermitian };

// SYMM / HEMM. C is m x n; A is m x m (left) or n x n (right).
std::optional<cublasStatus_t> check_symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                                         std::int64_t m, std::int64_t n, const void* alpha, std::int64_t lda,
                                         std::int64_t ldb, const void* beta, std::int64_t ldc);

// SYRK / HERK (has_b false) and SYR2K / HER2K / SYRKX / HERKX. C is n x n; op(A) n x k.
std::optional<cublasStatus_t> check_rank_k(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,
                                           TransRule rule, std::int64_t n, std::int64_t k, const void* alpha,
                                           std::int64_t lda, bool has_b, std::int64_t ldb, const void* beta,
                                           std::int64_t ldc);

// TRMM (has_c: cuBLAS's out-of-place C) and TRSM. B is m x n; A m x m (left) or n x n (right).
std::optional<cublasStatus_t> check_triangular(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                                               cublasOperation_t trans, cublasDiagType_t diag, std::int64_t m,
                                               std::int64_t n, const void* alpha, std::int64_t lda, std::int64_t ldb,
                                               bool has_c, std::int64_t ldc);

char side_char(cublasSideMode_t s);
char uplo_char(cublasFillMode_t u);
char diag_char(cublasDiagType_t d);

}  // namespace ptxblas::shim
