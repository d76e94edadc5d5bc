// Level-3 entry points (cuBLAS names, _v2 and _64): SYMM/HEMM, SYRK/HERK, SYR2K/HER2K,
// SYRKX/HERKX, TRMM, TRSM for S, D, C, Z, each run by its adaptor (dispatch/blas3) on the GPU
// engine, or forwarded whole to the real cuBLAS.
#include <cublas_api.h>

#include "blas3_entry.hpp"
#include "blas3_validate.hpp"
#include "export.hpp"
#include "gemm_validate.hpp"
#include "real_cublas.hpp"
#include "routines.hpp"

namespace ptxblas::shim {
namespace {

template <class T>
struct L3;
template <>
struct L3<float> {
  using Real = float;
  static constexpr gen::DataType data = gen::DataType::F32;
  static constexpr ScalarKind scalar = ScalarKind::F32, real = ScalarKind::F32;
  static constexpr TransRule sym = TransRule::RealSymmetric;
};
template <>
struct L3<double> {
  using Real = double;
  static constexpr gen::DataType data = gen::DataType::F64;
  static constexpr ScalarKind scalar = ScalarKind::F64, real = ScalarKind::F64;
  static constexpr TransRule sym = TransRule::RealSymmetric;
};
template <>
struct L3<cuComplex> {
  using Real = float;
  static constexpr gen::DataType data = gen::DataType::C32;
  static constexpr ScalarKind scalar = ScalarKind::C32, real = ScalarKind::F32;
  static constexpr TransRule sym = TransRule::ComplexSymmetric;
};
template <>
struct L3<cuDoubleComplex> {
  using Real = double;
  static constexpr gen::DataType data = gen::DataType::C64;
  static constexpr ScalarKind scalar = ScalarKind::C64, real = ScalarKind::F64;
  static constexpr TransRule sym = TransRule::ComplexSymmetric;
};

template <class T, class I>
cublasStatus_t symm(const char* entry, bool herm, cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                    I m, I n, const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta, T* C, I ldc) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, I, I, const T*, const T*, I,
                                const T*, I, const T*, T*, I);
  const CallShape shape{entry, {side_char(side), uplo_char(uplo)}, static_cast<long long>(m),
                        static_cast<long long>(n), 0};
  return serve_or_forward(
      shape,
      [&] {
        return try_serve_blas3(shape, check_symm(h, side, uplo, m, n, alpha, lda, ldb, beta, ldc),
                               {h, L3<T>::data, L3<T>::scalar, L3<T>::scalar, alpha, beta},
                               [&](blas3::Engine& e, blas3::Scalar al, blas3::Scalar be) {
                                 blas3::symm(e, to_side(side), to_uplo(uplo), herm, m, n, al, view(A, lda),
                                             view(B, ldb), be, view(C, ldc));
                               });
      },
      [&] { return call_real<Fn>(entry, h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc); });
}

enum class RankForm { K, Kx, TwoK };  // SYRK/HERK, SYRKX/HERKX, SYR2K/HER2K

// SA/SB: alpha and beta storage (real for the Hermitian forms where cuBLAS says so).
template <class T, class SA, class SB, class I, class Forward>
cublasStatus_t rank_k(const char* entry, RankForm form, bool herm, cublasHandle_t h, cublasFillMode_t uplo,
                      cublasOperation_t trans, I n, I k, const SA* alpha, const T* A, I lda, const T* B, I ldb,
                      const SB* beta, T* C, I ldc, Forward&& fwd) {
  const CallShape shape{entry, {uplo_char(uplo), op_char(trans)}, static_cast<long long>(n), static_cast<long long>(n),
                        static_cast<long long>(k)};
  const ScalarKind ak = std::is_same_v<SA, T> ? L3<T>::scalar : L3<T>::real;
  const ScalarKind bk = std::is_same_v<SB, T> ? L3<T>::scalar : L3<T>::real;
  const TransRule rule = herm ? TransRule::Hermitian : L3<T>::sym;
  const bool has_b = form != RankForm::K;
  return serve_or_forward(
      shape,
      [&] {
        return try_serve_blas3(shape, check_rank_k(h, uplo, trans, rule, n, k, alpha, lda, has_b, ldb, beta, ldc),
                               {h, L3<T>::data, ak, bk, alpha, beta},
                               [&](blas3::Engine& e, blas3::Scalar al, blas3::Scalar be) {
                                 const blas3::RankK spec{to_uplo(uplo), to_gen_op(trans), herm, n, k};
                                 const blas3::MatView a = view(A, lda), b = has_b ? view(B, ldb) : a;
                                 if (form == RankForm::TwoK)
                                   blas3::rank_2k(e, spec, al, a, b, be, view(C, ldc));
                                 else
                                   blas3::rank_k(e, spec, al, a, b, be, view(C, ldc));
                               });
      },
      fwd);
}

template <class T, class I>
cublasStatus_t trmm(const char* entry, cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                    cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha, const T* A, I lda,
                    const T* B, I ldb, T* C, I ldc) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                cublasDiagType_t, I, I, const T*, const T*, I, const T*, I, T*, I);
  const CallShape shape{entry, {side_char(side), uplo_char(uplo), op_char(trans), diag_char(diag)},
                        static_cast<long long>(m), static_cast<long long>(n), 0};
  return serve_or_forward(
      shape,
      [&] {
        return try_serve_blas3(shape, check_triangular(h, side, uplo, trans, diag, m, n, alpha, lda, ldb, true, ldc),
                               {h, L3<T>::data, L3<T>::scalar, L3<T>::scalar, alpha, nullptr},
                               [&](blas3::Engine& e, blas3::Scalar al, blas3::Scalar) {
                                 blas3::trmm(e, to_side(side), to_uplo(uplo), to_gen_op(trans), to_diag(diag), m, n,
                                             al, view(A, lda), view(B, ldb), view(C, ldc));
                               });
      },
      [&] { return call_real<Fn>(entry, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc); });
}

template <class T, class I>
cublasStatus_t trsm(const char* entry, cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                    cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha, const T* A, I lda, T* B,
                    I ldb) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                cublasDiagType_t, I, I, const T*, const T*, I, T*, I);
  const CallShape shape{entry, {side_char(side), uplo_char(uplo), op_char(trans), diag_char(diag)},
                        static_cast<long long>(m), static_cast<long long>(n), 0};
  return serve_or_forward(
      shape,
      [&] {
        return try_serve_blas3(shape, check_triangular(h, side, uplo, trans, diag, m, n, alpha, lda, ldb, false, 0),
                               {h, L3<T>::data, L3<T>::scalar, L3<T>::scalar, alpha, nullptr},
                               [&](blas3::Engine& e, blas3::Scalar al, blas3::Scalar) {
                                 blas3::trsm(e, to_side(side), to_uplo(uplo), to_gen_op(trans), to_diag(diag), m, n,
                                             al, view(A, lda), view(B, ldb));
                               });
      },
      [&] { return call_real<Fn>(entry, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb); });
}

// SYRK/HERK (no B) and the two-operand forms, with the real function's exact signature.
template <class T, class SA, class SB, class I>
cublasStatus_t rank_k_one(const char* entry, bool herm, cublasHandle_t h, cublasFillMode_t uplo,
                          cublasOperation_t trans, I n, I k, const SA* alpha, const T* A, I lda, const SB* beta, T* C,
                          I ldc) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, I, I, const SA*, const T*, I,
                                const SB*, T*, I);
  return rank_k<T, SA, SB, I>(entry, RankForm::K, herm, h, uplo, trans, n, k, alpha, A, lda, nullptr, I{1}, beta, C,
                              ldc, [&] { return call_real<Fn>(entry, h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc); });
}

template <class T, class SA, class SB, class I>
cublasStatus_t rank_k_two(const char* entry, RankForm form, bool herm, cublasHandle_t h, cublasFillMode_t uplo,
                          cublasOperation_t trans, I n, I k, const SA* alpha, const T* A, I lda, const T* B, I ldb,
                          const SB* beta, T* C, I ldc) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, I, I, const SA*, const T*, I,
                                const T*, I, const SB*, T*, I);
  return rank_k<T, SA, SB, I>(entry, form, herm, h, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, [&] {
    return call_real<Fn>(entry, h, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  });
}

}  // namespace
}  // namespace ptxblas::shim

using ptxblas::shim::RankForm;

#define PTXBLAS_SYMM(NAME, T, I, HERM)                                                                           \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, I m, I n,    \
                                     const T* alpha, const T* A, I lda, const T* B, I ldb, const T* beta, T* C,   \
                                     I ldc) {                                                                    \
    return ptxblas::shim::symm<T, I>(#NAME, HERM, h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);      \
  }

#define PTXBLAS_RANK_K(NAME, T, SA, SB, I, HERM)                                                                 \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k,  \
                                     const SA* alpha, const T* A, I lda, const SB* beta, T* C, I ldc) {          \
    return ptxblas::shim::rank_k_one<T, SA, SB, I>(#NAME, HERM, h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc); \
  }

#define PTXBLAS_RANK_2K(NAME, FORM, T, SA, SB, I, HERM)                                                          \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, I n, I k,  \
                                     const SA* alpha, const T* A, I lda, const T* B, I ldb, const SB* beta, T* C, \
                                     I ldc) {                                                                    \
    return ptxblas::shim::rank_k_two<T, SA, SB, I>(#NAME, FORM, HERM, h, uplo, trans, n, k, alpha, A, lda, B, ldb, \
                                                   beta, C, ldc);                                                \
  }

#define PTXBLAS_TRMM(NAME, T, I)                                                                                 \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,              \
                                     cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha,    \
                                     const T* A, I lda, const T* B, I ldb, T* C, I ldc) {                         \
    return ptxblas::shim::trmm<T, I>(#NAME, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc);     \
  }

#define PTXBLAS_TRSM(NAME, T, I)                                                                                 \
  PTXBLAS_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,              \
                                     cublasOperation_t trans, cublasDiagType_t diag, I m, I n, const T* alpha,    \
                                     const T* A, I lda, T* B, I ldb) {                                            \
    return ptxblas::shim::trsm<T, I>(#NAME, h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb);             \
  }

// Every routine for one element type T (real scalars R) and index type I, with suffix SFX
// ("_v2" / "_v2_64") and the SYRKX suffix XS ("" / "_64").
#define PTXBLAS_LEVEL3_COMMON(P, T, I, SFX, XS)                         \
  PTXBLAS_SYMM(cublas##P##symm##SFX, T, I, false)                       \
  PTXBLAS_RANK_K(cublas##P##syrk##SFX, T, T, T, I, false)               \
  PTXBLAS_RANK_2K(cublas##P##syr2k##SFX, RankForm::TwoK, T, T, T, I, false) \
  PTXBLAS_RANK_2K(cublas##P##syrkx##XS, RankForm::Kx, T, T, T, I, false) \
  PTXBLAS_TRMM(cublas##P##trmm##SFX, T, I)                              \
  PTXBLAS_TRSM(cublas##P##trsm##SFX, T, I)

#define PTXBLAS_LEVEL3_HERMITIAN(P, T, R, I, SFX, XS)                   \
  PTXBLAS_SYMM(cublas##P##hemm##SFX, T, I, true)                        \
  PTXBLAS_RANK_K(cublas##P##herk##SFX, T, R, R, I, true)                \
  PTXBLAS_RANK_2K(cublas##P##her2k##SFX, RankForm::TwoK, T, T, R, I, true) \
  PTXBLAS_RANK_2K(cublas##P##herkx##XS, RankForm::Kx, T, T, R, I, true)

PTXBLAS_LEVEL3_COMMON(S, float, int, _v2, )
PTXBLAS_LEVEL3_COMMON(D, double, int, _v2, )
PTXBLAS_LEVEL3_COMMON(C, cuComplex, int, _v2, )
PTXBLAS_LEVEL3_COMMON(Z, cuDoubleComplex, int, _v2, )
PTXBLAS_LEVEL3_COMMON(S, float, int64_t, _v2_64, _64)
PTXBLAS_LEVEL3_COMMON(D, double, int64_t, _v2_64, _64)
PTXBLAS_LEVEL3_COMMON(C, cuComplex, int64_t, _v2_64, _64)
PTXBLAS_LEVEL3_COMMON(Z, cuDoubleComplex, int64_t, _v2_64, _64)
PTXBLAS_LEVEL3_HERMITIAN(C, cuComplex, float, int, _v2, )
PTXBLAS_LEVEL3_HERMITIAN(Z, cuDoubleComplex, double, int, _v2, )
PTXBLAS_LEVEL3_HERMITIAN(C, cuComplex, float, int64_t, _v2_64, _64)
PTXBLAS_LEVEL3_HERMITIAN(Z, cuDoubleComplex, double, int64_t, _v2_64, _64)
