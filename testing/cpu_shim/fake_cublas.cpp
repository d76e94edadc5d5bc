// The stand-in libcublas.so.13 (see fake_cublas.h): never touches a GPU, never dereferences the
// handle or the matrices; it records what reached it and returns what it is told.
#include <cublas_api.h>

#include <cstdint>
#include <cstring>

#include "fake_cublas.h"

namespace {

FakeCublas g_state = {CUBLAS_STATUS_NOT_INITIALIZED, nullptr, CUBLAS_POINTER_MODE_HOST, CUBLAS_DEFAULT_MATH,
                      CUBLAS_STATUS_NOT_SUPPORTED, 0, 0, {}};

template <class I>
cublasStatus_t record(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n,
                      I k, const void* alpha, const void* A, I lda, const void* B, I ldb, const void* beta, void* C,
                      I ldc, int atype = -1, int btype = -1, int ctype = -1, int compute = -1, int algo = -1) {
  FakeCublasCall& c = g_state.last;
  std::memset(&c, 0, sizeof c);
  std::strncpy(c.entry, entry, sizeof c.entry - 1);
  c.handle = h;
  c.transa = ta;
  c.transb = tb;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lda = lda;
  c.ldb = ldb;
  c.ldc = ldc;
  c.alpha = alpha;
  c.a = A;
  c.b = B;
  c.beta = beta;
  c.c = C;
  c.atype = atype;
  c.btype = btype;
  c.ctype = ctype;
  c.compute = compute;
  c.algo = algo;
  ++g_state.gemm_calls;
  return static_cast<cublasStatus_t>(g_state.gemm_status);
}

// record() and then a strided-batched entry's strides and batch count.
template <class I>
cublasStatus_t record_strided(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m,
                              I n, I k, const void* alpha, const void* A, I lda, long long sa, const void* B, I ldb,
                              long long sb, const void* beta, void* C, I ldc, long long sc, I batch, int atype = -1,
                              int btype = -1, int ctype = -1, int compute = -1, int algo = -1) {
  const cublasStatus_t s =
      record<I>(entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, atype, btype, ctype, compute, algo);
  FakeCublasCall& c = g_state.last;
  c.stride_a = sa;
  c.stride_b = sb;
  c.stride_c = sc;
  c.batch = batch;
  return s;
}

// record() for cublas?gemmBatched: the arrays of pointers as given (never read), and batchCount.
template <class I>
cublasStatus_t record_pointers(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m,
                               I n, I k, const void* alpha, const void* Aarray, I lda, const void* Barray, I ldb,
                               const void* beta, const void* Carray, I ldc, I batch) {
  const cublasStatus_t s = record<I>(entry, h, ta, tb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta,
                                     const_cast<void*>(Carray), ldc);
  g_state.last.batch = batch;
  return s;
}

cublasStatus_t query() {
  ++g_state.handle_queries;
  return static_cast<cublasStatus_t>(g_state.handle_status);
}

}  // namespace

extern "C" {

FakeCublas* fake_cublas_state(void) { return &g_state; }

cublasStatus_t cublasGetStream_v2(cublasHandle_t, cudaStream_t* stream) {
  const cublasStatus_t s = query();
  if (s == CUBLAS_STATUS_SUCCESS) *stream = static_cast<cudaStream_t>(g_state.stream);
  return s;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t, cublasPointerMode_t* mode) {
  const cublasStatus_t s = query();
  if (s == CUBLAS_STATUS_SUCCESS) *mode = static_cast<cublasPointerMode_t>(g_state.pointer_mode);
  return s;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t, cublasMath_t* mode) {
  const cublasStatus_t s = query();
  if (s == CUBLAS_STATUS_SUCCESS) *mode = static_cast<cublasMath_t>(g_state.math_mode);
  return s;
}

#define FAKE_GEMM(NAME, T, I)                                                                               \
  cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,           \
                      const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta, T* C, I ldc) {    \
    return record<I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                       \
  }

FAKE_GEMM(cublasSgemm_v2, float, int)
FAKE_GEMM(cublasDgemm_v2, double, int)
FAKE_GEMM(cublasCgemm_v2, cuComplex, int)
FAKE_GEMM(cublasZgemm_v2, cuDoubleComplex, int)
FAKE_GEMM(cublasHgemm, __half, int)
FAKE_GEMM(cublasSgemm_v2_64, float, int64_t)
FAKE_GEMM(cublasDgemm_v2_64, double, int64_t)
FAKE_GEMM(cublasCgemm_v2_64, cuComplex, int64_t)
FAKE_GEMM(cublasZgemm_v2_64, cuDoubleComplex, int64_t)
FAKE_GEMM(cublasHgemm_64, __half, int64_t)

#define FAKE_GEMM_EX(NAME, I)                                                                               \
  cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,           \
                      const void* alpha, const void* A, cudaDataType at, I lda, const void* B, cudaDataType bt, \
                      I ldb, const void* beta, void* C, cudaDataType ct, I ldc, cublasComputeType_t comp,     \
                      cublasGemmAlgo_t algo) {                                                              \
    return record<I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, at, bt, ct, comp, algo); \
  }

FAKE_GEMM_EX(cublasGemmEx, int)
FAKE_GEMM_EX(cublasGemmEx_64, int64_t)

#define FAKE_GEMM_STRIDED(NAME, T, I)                                                                          \
  cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,              \
                      const T* alpha, const T* A, I lda, long long sa, const T* B, I ldb, long long sb,          \
                      const T* beta, T* C, I ldc, long long sc, I batch) {                                       \
    return record_strided<I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch); \
  }

FAKE_GEMM_STRIDED(cublasSgemmStridedBatched, float, int)
FAKE_GEMM_STRIDED(cublasDgemmStridedBatched, double, int)
FAKE_GEMM_STRIDED(cublasCgemmStridedBatched, cuComplex, int)
FAKE_GEMM_STRIDED(cublasZgemmStridedBatched, cuDoubleComplex, int)
FAKE_GEMM_STRIDED(cublasHgemmStridedBatched, __half, int)
FAKE_GEMM_STRIDED(cublasSgemmStridedBatched_64, float, int64_t)
FAKE_GEMM_STRIDED(cublasDgemmStridedBatched_64, double, int64_t)
FAKE_GEMM_STRIDED(cublasCgemmStridedBatched_64, cuComplex, int64_t)
FAKE_GEMM_STRIDED(cublasZgemmStridedBatched_64, cuDoubleComplex, int64_t)
FAKE_GEMM_STRIDED(cublasHgemmStridedBatched_64, __half, int64_t)

#define FAKE_GEMM_STRIDED_EX(NAME, I)                                                                          \
  cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,              \
                      const void* alpha, const void* A, cudaDataType at, I lda, long long sa, const void* B,     \
                      cudaDataType bt, I ldb, long long sb, const void* beta, void* C, cudaDataType ct, I ldc,   \
                      long long sc, I batch, cublasComputeType_t comp, cublasGemmAlgo_t algo) {                  \
    return record_strided<I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch, at, \
                             bt, ct, comp, algo);                                                                \
  }

FAKE_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
FAKE_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

#define FAKE_GEMM_BATCHED(NAME, T, I)                                                                          \
  cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,              \
                      const T* alpha, const T* const Aarray[], I lda, const T* const Barray[], I ldb,            \
                      const T* beta, T* const Carray[], I ldc, I batch) {                                        \
    return record_pointers<I>(#NAME, h, ta, tb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,     \
                              batch);                                                                            \
  }

FAKE_GEMM_BATCHED(cublasSgemmBatched, float, int)
FAKE_GEMM_BATCHED(cublasDgemmBatched, double, int)
FAKE_GEMM_BATCHED(cublasCgemmBatched, cuComplex, int)
FAKE_GEMM_BATCHED(cublasZgemmBatched, cuDoubleComplex, int)
FAKE_GEMM_BATCHED(cublasSgemmBatched_64, float, int64_t)
FAKE_GEMM_BATCHED(cublasDgemmBatched_64, double, int64_t)
FAKE_GEMM_BATCHED(cublasCgemmBatched_64, cuComplex, int64_t)
FAKE_GEMM_BATCHED(cublasZgemmBatched_64, cuDoubleComplex, int64_t)

}  // extern "C"
