#include "gemm_entry.hpp"

#include <cuComplex.h>
#include <cuda_fp16.h>

#include <cstdlib>

#include "gemm_call.hpp"
#include "gemm_validate.hpp"
#include "real_cublas.hpp"

namespace ptxblas::shim {
namespace {

using GetStream = cublasStatus_t (*)(cublasHandle_t, cudaStream_t*);
using GetPointerMode = cublasStatus_t (*)(cublasHandle_t, cublasPointerMode_t*);
using GetMathMode = cublasStatus_t (*)(cublasHandle_t, cublasMath_t*);

void read_host_scalar(ScalarKind kind, const void* p, double out[2]) {
  out[1] = 0;
  switch (kind) {
    case ScalarKind::F16: out[0] = __half2float(*static_cast<const __half*>(p)); break;
    case ScalarKind::F32: out[0] = *static_cast<const float*>(p); break;
    case ScalarKind::F64: out[0] = *static_cast<const double*>(p); break;
    case ScalarKind::C32: {
      const auto* z = static_cast<const cuComplex*>(p);
      out[0] = z->x;
      out[1] = z->y;
      break;
    }
    case ScalarKind::C64: {
      const auto* z = static_cast<const cuDoubleComplex*>(p);
      out[0] = z->x;
      out[1] = z->y;
      break;
    }
  }
}

gen::Op to_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? gen::Op::N : op == CUBLAS_OP_T ? gen::Op::T : gen::Op::C;
}

bool disabled() {
  static const bool off = [] {
    const char* v = std::getenv("PTXBLAS_DISABLE");
    return v && *v && std::string(v) != "0";
  }();
  return off;
}

const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    default: return "cuBLAS status";
  }
}

}  // namespace

CallShape shape_of(const GemmRequest& r) {
  return CallShape{r.entry, op_char(r.transa), op_char(r.transb), static_cast<long long>(r.m),
                   static_cast<long long>(r.n), static_cast<long long>(r.k)};
}

Decision try_serve(const GemmRequest& r) {
  const CallShape shape = shape_of(r);
  if (auto s = check_gemm_args(r.handle, r.transa, r.transb, r.m, r.n, r.k, r.alpha, r.lda, r.ldb, r.beta,
                               r.ldc)) {
    if (*s == CUBLAS_STATUS_SUCCESS)
      record_served(shape, "empty (m or n is 0)");
    else
      record_error(shape, status_name(*s));
    return {s, {}};
  }
  if (disabled()) return {std::nullopt, "PTXBLAS_DISABLE is set"};

  static const auto get_stream = real_cublas<GetStream>("cublasGetStream_v2");
  static const auto get_mode = real_cublas<GetPointerMode>("cublasGetPointerMode_v2");
  static const auto get_math = real_cublas<GetMathMode>("cublasGetMathMode");
  if (!get_stream || !get_mode || !get_math) return {std::nullopt, "real cuBLAS not found"};

  dispatch::GemmCall call;
  call.data = r.data;
  call.scalar_f16 = r.scalars == ScalarKind::F16;
  call.op_a = to_op(r.transa);
  call.op_b = to_op(r.transb);
  call.m = r.m;
  call.n = r.n;
  call.k = r.k;
  call.a = r.a;
  call.lda = r.lda;
  call.b = r.b;
  call.ldb = r.ldb;
  call.c = r.c;
  call.ldc = r.ldc;
  cudaStream_t stream = nullptr;
  cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  if (get_stream(r.handle, &stream) != CUBLAS_STATUS_SUCCESS ||
      get_mode(r.handle, &mode) != CUBLAS_STATUS_SUCCESS || get_math(r.handle, &math) != CUBLAS_STATUS_SUCCESS)
    return {std::nullopt, "handle state unreadable"};
  // Every math mode allows what the kernels do (no TF32, no reduced-precision reductions, f16 data
  // accumulated in f32), except pedantic math with f16 compute, which prescribes f16 arithmetic.
  if ((static_cast<int>(math) & 0xF) == CUBLAS_PEDANTIC_MATH &&
      r.scalars == ScalarKind::F16)
    return {std::nullopt, "pedantic math mode with f16 compute"};
  call.stream = stream;
  call.device_scalars = mode == CUBLAS_POINTER_MODE_DEVICE;
  if (call.device_scalars) {
    call.alpha_ptr = r.alpha;
    call.beta_ptr = r.beta;
  } else {
    read_host_scalar(r.scalars, r.alpha, call.alpha);
    read_host_scalar(r.scalars, r.beta, call.beta);
  }
  if (auto s = check_null_operands(call.device_scalars, call.alpha, call.beta, r.k, r.a, r.b, r.c)) {
    if (*s == CUBLAS_STATUS_SUCCESS)
      record_served(shape, "empty (C = 1 * C)");
    else
      record_error(shape, status_name(*s));
    return {s, {}};
  }

  const dispatch::Outcome o = dispatch::run_gemm(call);
  if (o.served) {
    record_served(shape, o.detail);
    return {CUBLAS_STATUS_SUCCESS, {}};
  }
  if (o.failed) {
    record_error(shape, o.detail);
    return {CUBLAS_STATUS_EXECUTION_FAILED, {}};
  }
  return {std::nullopt, o.detail};
}

}  // namespace ptxblas::shim
