#include "blas3_call.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <type_traits>

namespace bench {
namespace {

cublasSideMode_t side(char c) { return c == 'R' ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT; }
cublasFillMode_t uplo(char c) { return c == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
cublasOperation_t op(char c) { return c == 'T' ? CUBLAS_OP_T : c == 'C' ? CUBLAS_OP_C : CUBLAS_OP_N; }
cublasDiagType_t diag(char c) { return c == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }

template <class Fn>
Fn pick(bool ptxblas, void* library, const std::string& name) {
  void* f = dlsym(ptxblas ? library : RTLD_DEFAULT, name.c_str());
  if (!f) throw std::runtime_error("missing " + name);
  return reinterpret_cast<Fn>(f);
}

template <class T>
T scalar_of(double v) {
  if constexpr (std::is_same_v<T, cuComplex>)
    return make_cuComplex(static_cast<float>(v), 0.0f);
  else if constexpr (std::is_same_v<T, cuDoubleComplex>)
    return make_cuDoubleComplex(v, 0.0);
  else
    return static_cast<T>(v);
}

template <class T, class R>
cublasStatus_t call(bool ptx, void* lib, cublasHandle_t h, const L3Shape& s, const L3Operands& o, const L3Sizes& z) {
  const std::string name = std::string("cublas") + s.type + s.routine;
  const T one = scalar_of<T>(1.0), half = scalar_of<T>(0.5);
  const R rone = 1, rhalf = 0.5;
  auto* a = static_cast<const T*>(o.a);
  auto* b = static_cast<T*>(o.b);
  auto* c = static_cast<T*>(o.c);
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const int lda = static_cast<int>(z.lda), ldb = static_cast<int>(z.ldb), ldc = static_cast<int>(z.ldc);
  if (s.routine == "symm" || s.routine == "hemm") {
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int, const T*, const T*,
                                  int, const T*, int, const T*, T*, int);
    return pick<Fn>(ptx, lib, name + "_v2")(h, side(s.side), uplo(s.uplo), m, n, &one, a, lda, b, ldb, &half, c, ldc);
  }
  if (s.routine == "syrk" || s.routine == "herk") {
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const void*,
                                  const T*, int, const void*, T*, int);
    const bool herm = s.routine == "herk";
    return pick<Fn>(ptx, lib, name + "_v2")(h, uplo(s.uplo), op(s.trans), n, k, herm ? static_cast<const void*>(&rone) : &one,
                                            a, lda, herm ? static_cast<const void*>(&rhalf) : &half, c, ldc);
  }
  if (rank_k_routine(s.routine)) {  // syr2k her2k syrkx herkx: alpha of T, beta real for the Hermitian ones
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const T*, const T*,
                                  int, const T*, int, const void*, T*, int);
    const bool herm = s.routine[0] == 'h';
    const std::string full = name + (s.routine.back() == 'x' ? "" : "_v2");
    return pick<Fn>(ptx, lib, full)(h, uplo(s.uplo), op(s.trans), n, k, &one, a, lda, b, ldb,
                                    herm ? static_cast<const void*>(&rhalf) : &half, c, ldc);
  }
  if (s.routine == "trmm") {
    using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                  cublasDiagType_t, int, int, const T*, const T*, int, const T*, int, T*, int);
    return pick<Fn>(ptx, lib, name + "_v2")(h, side(s.side), uplo(s.uplo), op(s.trans), diag(s.diag), m, n, &one, a,
                                            lda, b, ldb, c, ldc);
  }
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                cublasDiagType_t, int, int, const T*, const T*, int, T*, int);
  return pick<Fn>(ptx, lib, name + "_v2")(h, side(s.side), uplo(s.uplo), op(s.trans), diag(s.diag), m, n, &one, a,
                                          lda, b, ldb);
}

}  // namespace

L3Sizes l3_sizes(const L3Shape& s) {
  L3Sizes z{};
  if (rank_k_routine(s.routine)) {
    const std::int64_t rows = s.trans == 'N' ? s.n : s.k, cols = s.trans == 'N' ? s.k : s.n;
    z.lda = z.ldb = std::max<std::int64_t>(rows, 1);
    z.a = z.b = static_cast<std::size_t>(z.lda * cols);
    z.ldc = std::max<std::int64_t>(s.n, 1);
    z.c = static_cast<std::size_t>(z.ldc * s.n);
    return z;
  }
  const std::int64_t dim = s.side == 'L' ? s.m : s.n;
  z.lda = std::max<std::int64_t>(dim, 1);
  z.a = static_cast<std::size_t>(z.lda * dim);
  z.ldb = z.ldc = std::max<std::int64_t>(s.m, 1);
  z.b = static_cast<std::size_t>(z.ldb * s.n);
  z.c = s.routine == "trsm" ? 0 : static_cast<std::size_t>(z.ldc * s.n);
  return z;
}

cublasStatus_t run_l3(bool ptxblas, void* library, cublasHandle_t h, const L3Shape& s, const L3Operands& o) {
  const L3Sizes z = l3_sizes(s);
  switch (s.type) {
    case 'S': return call<float, float>(ptxblas, library, h, s, o, z);
    case 'D': return call<double, double>(ptxblas, library, h, s, o, z);
    case 'C': return call<cuComplex, float>(ptxblas, library, h, s, o, z);
    default: return call<cuDoubleComplex, double>(ptxblas, library, h, s, o, z);
  }
}

}  // namespace bench
