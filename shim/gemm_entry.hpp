// The path every GEMM entry point takes: validate like cuBLAS, read the handle's state from the
// real cuBLAS, serve with a generated kernel, or forward to the real function (and count it).
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "call_record.hpp"
#include "kernel_config.hpp"

namespace ptxblas::shim {

// How alpha/beta are stored behind their pointers.
enum class ScalarKind { F16, F32, F64, C32, C64 };

struct GemmRequest {
  const char* entry;
  cublasHandle_t handle;
  cublasOperation_t transa, transb;
  std::int64_t m, n, k;
  const void* alpha;
  const void* a;
  std::int64_t lda;
  const void* b;
  std::int64_t ldb;
  const void* beta;
  void* c;
  std::int64_t ldc;
  gen::DataType data;
  ScalarKind scalars;
};

struct Decision {
  std::optional<cublasStatus_t> status;  // set: return it; empty: forward for `reason`
  std::string reason;
};

// Everything but the forwarding itself (which needs the entry point's exact signature).
Decision try_serve(const GemmRequest& r);

CallShape shape_of(const GemmRequest& r);

template <class Forward>
cublasStatus_t serve_gemm(const GemmRequest& r, Forward&& forward) noexcept {
  try {
    const Decision d = try_serve(r);
    if (d.status) return *d.status;
    const cublasStatus_t s = forward();
    record_forwarded(shape_of(r), d.reason);
    return s;
  } catch (...) {  // never let an exception cross the C ABI
    record_error(shape_of(r), "internal error");
    return CUBLAS_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace ptxblas::shim
