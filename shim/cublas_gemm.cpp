// cublas{S,D,C,Z}gemm_v2, cublasHgemm, their strided-batched forms, cublas{S,D,C,Z}gemmBatched
// (arrays of pointers) and the _64 variants of all three. cublasHgemmBatched is not intercepted: a
// half-precision batch of pointers could run only on mma.sync (wgmma's tensor maps are made per
// operand on the host), where cuBLAS would be the faster.
#include <cublas_api.h>

#include "export.hpp"
#include "gemm_entry.hpp"
#include "real_cublas.hpp"

namespace ptxblas::shim {
namespace {

template <class T>
struct Typed;
template <>
struct Typed<float> {
  static constexpr gen::DataType data = gen::DataType::F32;
  static constexpr ScalarKind scalars = ScalarKind::F32;
};
template <>
struct Typed<double> {
  static constexpr gen::DataType data = gen::DataType::F64;
  static constexpr ScalarKind scalars = ScalarKind::F64;
};
template <>
struct Typed<cuComplex> {
  static constexpr gen::DataType data = gen::DataType::C32;
  static constexpr ScalarKind scalars = ScalarKind::C32;
};
template <>
struct Typed<cuDoubleComplex> {
  static constexpr gen::DataType data = gen::DataType::C64;
  static constexpr ScalarKind scalars = ScalarKind::C64;
};
template <>
struct Typed<__half> {
  static constexpr gen::DataType data = gen::DataType::F16;
  static constexpr ScalarKind scalars = ScalarKind::F16;
};

template <class T, class I>
cublasStatus_t gemm(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n,
                    I k, const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta, T* C, I ldc) {
  using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                  const T*, I, const T*, I, const T*, T*, I);
  const GemmRequest r{entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, Typed<T>::data,
                      Typed<T>::scalars};
  return serve_gemm(r, [&] { return call_real<Real>(entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
}

template <class T, class I>
cublasStatus_t gemm_strided(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m,
                            I n, I k, const T* alpha, const T* A, I lda, long long sa, const T* B, I ldb,
                            long long sb, const T* beta, T* C, I ldc, long long sc, I batch) {
  using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                  const T*, I, long long, const T*, I, long long, const T*, T*, I, long long, I);
  const GemmRequest r{entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, Typed<T>::data,
                      Typed<T>::scalars, batch, sa, sb, sc};
  return serve_gemm(r, [&] {
    return call_real<Real>(entry, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch);
  });
}

template <class T, class I>
cublasStatus_t gemm_batched(const char* entry, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m,
                            I n, I k, const T* alpha, const T* const A[], I lda, const T* const B[], I ldb,
                            const T* beta, T* const C[], I ldc, I batch) {
  using Real = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                  const T* const[], I, const T* const[], I, const T*, T* const[], I, I);
  // The array of C's pointers is only read; GemmRequest's c is the (writable) output of a plain call.
  GemmRequest r{entry, h,   ta,   tb, m, n, k, alpha, A, lda, B, ldb, beta, const_cast<T**>(C), ldc, Typed<T>::data,
                Typed<T>::scalars, batch};
  r.pointer_arrays = true;
  return serve_gemm(r, [&] {
    return call_real<Real>(entry, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch);
  });
}

}  // namespace
}  // namespace ptxblas::shim

#define PTXBLAS_GEMM_ENTRY(NAME, T, I)                                                                \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, \
                                     I k, const T* alpha, const T* A, I lda, const T* B, I ldb,          \
                                     const T* beta, T* C, I ldc) {                                      \
    return ptxblas::shim::gemm<T, I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);   \
  }

PTXBLAS_GEMM_ENTRY(cublasSgemm_v2, float, int)
PTXBLAS_GEMM_ENTRY(cublasDgemm_v2, double, int)
PTXBLAS_GEMM_ENTRY(cublasCgemm_v2, cuComplex, int)
PTXBLAS_GEMM_ENTRY(cublasZgemm_v2, cuDoubleComplex, int)
PTXBLAS_GEMM_ENTRY(cublasHgemm, __half, int)
PTXBLAS_GEMM_ENTRY(cublasSgemm_v2_64, float, int64_t)
PTXBLAS_GEMM_ENTRY(cublasDgemm_v2_64, double, int64_t)
PTXBLAS_GEMM_ENTRY(cublasCgemm_v2_64, cuComplex, int64_t)
PTXBLAS_GEMM_ENTRY(cublasZgemm_v2_64, cuDoubleComplex, int64_t)
PTXBLAS_GEMM_ENTRY(cublasHgemm_64, __half, int64_t)

#define PTXBLAS_GEMM_STRIDED_ENTRY(NAME, T, I)                                                              \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n,   \
                                     I k, const T* alpha, const T* A, I lda, long long sa, const T* B, I ldb, \
                                     long long sb, const T* beta, T* C, I ldc, long long sc, I batch) {      \
    return ptxblas::shim::gemm_strided<T, I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, \
                                             ldc, sc, batch);                                                 \
  }

PTXBLAS_GEMM_STRIDED_ENTRY(cublasSgemmStridedBatched, float, int)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasDgemmStridedBatched, double, int)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasCgemmStridedBatched, cuComplex, int)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasZgemmStridedBatched, cuDoubleComplex, int)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasHgemmStridedBatched, __half, int)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasSgemmStridedBatched_64, float, int64_t)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasDgemmStridedBatched_64, double, int64_t)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasCgemmStridedBatched_64, cuComplex, int64_t)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasZgemmStridedBatched_64, cuDoubleComplex, int64_t)
PTXBLAS_GEMM_STRIDED_ENTRY(cublasHgemmStridedBatched_64, __half, int64_t)

#define PTXBLAS_GEMM_BATCHED_ENTRY(NAME, T, I)                                                                 \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n,   \
                                     I k, const T* alpha, const T* const A[], I lda, const T* const B[], I ldb, \
                                     const T* beta, T* const C[], I ldc, I batch) {                            \
    return ptxblas::shim::gemm_batched<T, I>(#NAME, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,   \
                                             batch);                                                           \
  }

PTXBLAS_GEMM_BATCHED_ENTRY(cublasSgemmBatched, float, int)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasDgemmBatched, double, int)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasCgemmBatched, cuComplex, int)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasZgemmBatched, cuDoubleComplex, int)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasSgemmBatched_64, float, int64_t)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasDgemmBatched_64, double, int64_t)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasCgemmBatched_64, cuComplex, int64_t)
PTXBLAS_GEMM_BATCHED_ENTRY(cublasZgemmBatched_64, cuDoubleComplex, int64_t)
