// cublasGemmEx, cublasGemmStridedBatchedEx and their _64 variants: the served type combinations
// run generated kernels, every other combination (and any explicit algorithm request) goes to the
// real function.
#include <cublas_api.h>

#include <optional>
#include <string>

#include "export.hpp"
#include "gemm_entry.hpp"
#include "gemm_validate.hpp"
#include "real_cublas.hpp"

namespace ptxblas::shim {
namespace {

struct Served {
  gen::DataType data;
  ScalarKind scalars;
};

// A, B and C share one type; the compute type fixes the scalars' type. Compute types that allow
// approximation (FAST_*, TF32) are forwarded: ptxblas computes exactly.
std::optional<Served> served_combo(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t comp) {
  if (at != bt || at != ct) return std::nullopt;
  switch (at) {
    case CUDA_R_32F:
      if (comp == CUBLAS_COMPUTE_32F) return Served{gen::DataType::F32, ScalarKind::F32};
      break;
    case CUDA_R_64F:
      if (comp == CUBLAS_COMPUTE_64F) return Served{gen::DataType::F64, ScalarKind::F64};
      break;
    case CUDA_R_16F:
      if (comp == CUBLAS_COMPUTE_16F) return Served{gen::DataType::F16, ScalarKind::F16};
      if (comp == CUBLAS_COMPUTE_32F) return Served{gen::DataType::F16, ScalarKind::F32};
      break;
    case CUDA_R_16BF:
      if (comp == CUBLAS_COMPUTE_32F) return Served{gen::DataType::BF16, ScalarKind::F32};
      break;
    case CUDA_C_32F:
      if (comp == CUBLAS_COMPUTE_32F) return Served{gen::DataType::C32, ScalarKind::C32};
      break;
    case CUDA_C_64F:
      if (comp == CUBLAS_COMPUTE_64F) return Served{gen::DataType::C64, ScalarKind::C64};
      break;
    default: break;
  }
  return std::nullopt;
}

// Why a GemmEx-type call goes to the real function as it is, or null where it is served.
const char* unserved_reason(const std::optional<Served>& combo, cublasGemmAlgo_t algo) {
  if (!combo) return "GemmEx type/compute combination not served";
  const bool algo_ok = algo == CUBLAS_GEMM_DEFAULT || algo == CUBLAS_GEMM_DEFAULT_TENSOR_OP;
  return algo_ok ? nullptr : "explicit algorithm requested";
}

// cuBLAS validates what it is given: no checks of ours first.
template <class I, class Forward>
cublasStatus_t forward_unserved(const char* entry, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,
                                const char* why, Forward&& forward) {
  const CallShape shape{entry, {op_char(ta), op_char(tb)}, static_cast<long long>(m), static_cast<long long>(n),
                        static_cast<long long>(k)};
  return serve_or_forward(shape, [&] { return Decision{std::nullopt, why}; }, forward);
}

template <class I>
cublasStatus_t gemm_ex(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n,
                       I k, const void* alpha, const void* A, cudaDataType at, I lda, const void* B,
                       cudaDataType bt, I ldb, const void* beta, void* C, cudaDataType ct, I ldc,
                       cublasComputeType_t comp, cublasGemmAlgo_t algo) {
  using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                  const void*, cudaDataType, I, const void*, cudaDataType, I, const void*, void*,
                                  cudaDataType, I, cublasComputeType_t, cublasGemmAlgo_t);
  auto forward = [&] {
    return call_real<Real>(entry, h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, comp, algo);
  };
  const auto combo = served_combo(at, bt, ct, comp);
  if (const char* why = unserved_reason(combo, algo)) return forward_unserved(entry, ta, tb, m, n, k, why, forward);
  const GemmRequest r{entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, combo->data,
                      combo->scalars};
  return serve_gemm(r, forward);
}

template <class I>
cublasStatus_t gemm_strided_ex(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m,
                               I n, I k, const void* alpha, const void* A, cudaDataType at, I lda, long long sa,
                               const void* B, cudaDataType bt, I ldb, long long sb, const void* beta, void* C,
                               cudaDataType ct, I ldc, long long sc, I batch, cublasComputeType_t comp,
                               cublasGemmAlgo_t algo) {
  using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                  const void*, cudaDataType, I, long long, const void*, cudaDataType, I, long long,
                                  const void*, void*, cudaDataType, I, long long, I, cublasComputeType_t,
                                  cublasGemmAlgo_t);
  auto forward = [&] {
    return call_real<Real>(entry, h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc,
                           batch, comp, algo);
  };
  const auto combo = served_combo(at, bt, ct, comp);
  if (const char* why = unserved_reason(combo, algo)) return forward_unserved(entry, ta, tb, m, n, k, why, forward);
  const GemmRequest r{entry, h,    ta,  tb, m,  n,  k,  alpha, A, lda, B, ldb, beta, C, ldc, combo->data,
                      combo->scalars, batch, sa, sb, sc};
  return serve_gemm(r, forward);
}

}  // namespace
}  // namespace ptxblas::shim

PTXBLAS_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                           int n, int k, const void* alpha, const void* A, cudaDataType at,
                                           int lda, const void* B, cudaDataType bt, int ldb, const void* beta,
                                           void* C, cudaDataType ct, int ldc, cublasComputeType_t comp,
                                           cublasGemmAlgo_t algo) {
  return ptxblas::shim::gemm_ex<int>("cublasGemmEx", h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C,
                                     ct, ldc, comp, algo);
}

PTXBLAS_EXPORT cublasStatus_t cublasGemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                              int64_t m, int64_t n, int64_t k, const void* alpha, const void* A,
                                              cudaDataType at, int64_t lda, const void* B, cudaDataType bt,
                                              int64_t ldb, const void* beta, void* C, cudaDataType ct,
                                              int64_t ldc, cublasComputeType_t comp, cublasGemmAlgo_t algo) {
  return ptxblas::shim::gemm_ex<int64_t>("cublasGemmEx_64", h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb,
                                         beta, C, ct, ldc, comp, algo);
}

PTXBLAS_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                         int m, int n, int k, const void* alpha, const void* A,
                                                         cudaDataType at, int lda, long long sa, const void* B,
                                                         cudaDataType bt, int ldb, long long sb, const void* beta,
                                                         void* C, cudaDataType ct, int ldc, long long sc, int batch,
                                                         cublasComputeType_t comp, cublasGemmAlgo_t algo) {
  return ptxblas::shim::gemm_strided_ex<int>("cublasGemmStridedBatchedEx", h, ta, tb, m, n, k, alpha, A, at, lda, sa,
                                             B, bt, ldb, sb, beta, C, ct, ldc, sc, batch, comp, algo);
}

PTXBLAS_EXPORT cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t h, cublasOperation_t ta,
                                                            cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                                                            const void* alpha, const void* A, cudaDataType at,
                                                            int64_t lda, long long sa, const void* B, cudaDataType bt,
                                                            int64_t ldb, long long sb, const void* beta, void* C,
                                                            cudaDataType ct, int64_t ldc, long long sc, int64_t batch,
                                                            cublasComputeType_t comp, cublasGemmAlgo_t algo) {
  return ptxblas::shim::gemm_strided_ex<int64_t>("cublasGemmStridedBatchedEx_64", h, ta, tb, m, n, k, alpha, A, at,
                                                 lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc, batch, comp, algo);
}
