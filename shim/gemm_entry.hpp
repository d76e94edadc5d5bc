// The path every GEMM entry point takes: validate like cuBLAS, read the handle's state from the
// real cuBLAS, serve with a generated kernel, or forward to the real function (and count it).
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "call_record.hpp"
#include "kernel_config.hpp"
#include "scalars.hpp"
#include "serve.hpp"

namespace ptxblas::shim {

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
  // ?gemmStridedBatched: batchCount GEMMs, entry i's operands i strides (elements) further on.
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool pointer_arrays = false;  // ?gemmBatched: a, b, c are device arrays of the entries' pointers
};

// Everything but the forwarding itself (which needs the entry point's exact signature).
Decision try_serve(const GemmRequest& r);

CallShape shape_of(const GemmRequest& r);

template <class Forward>
cublasStatus_t serve_gemm(const GemmRequest& r, Forward&& forward) noexcept {
  return serve_or_forward(shape_of(r), [&] { return try_serve(r); }, forward);
}

}  // namespace ptxblas::shim
