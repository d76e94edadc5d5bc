#include "gemm_entry.hpp"

#include "gemm_call.hpp"
#include "operand_pack.hpp"
#include "gemm_validate.hpp"
#include "handle_state.hpp"

namespace ptxblas::shim {
namespace {

gen::Op to_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? gen::Op::N : op == CUBLAS_OP_T ? gen::Op::T : gen::Op::C;
}

// check_gemm_args, and for a batch (strided or pointer arrays) cuBLAS's INVALID_VALUE for a
// negative batchCount (whatever else is empty) and nothing to do for none.
std::optional<cublasStatus_t> check_batched_gemm_args(const GemmRequest& r) {
  const std::optional<cublasStatus_t> checked =
      check_gemm_args(r.handle, r.transa, r.transb, r.m, r.n, r.k, r.alpha, r.lda, r.ldb, r.beta, r.ldc);
  if (checked && *checked != CUBLAS_STATUS_SUCCESS) return checked;
  if (r.batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (r.batch == 0) return CUBLAS_STATUS_SUCCESS;
  return checked;
}

}  // namespace

CallShape shape_of(const GemmRequest& r) {
  return CallShape{r.entry, {op_char(r.transa), op_char(r.transb)}, static_cast<long long>(r.m),
                   static_cast<long long>(r.n), static_cast<long long>(r.k)};
}

Decision try_serve(const GemmRequest& r) {
  const CallShape shape = shape_of(r);
  const char* empty = r.batch == 1 ? "empty (m or n is 0)" : "empty (m, n or batchCount is 0)";
  if (auto d = settle_checked(shape, check_batched_gemm_args(r), empty)) return *d;
  if (ptxblas_disabled()) return {std::nullopt, "PTXBLAS_DISABLE is set"};
  // Entries of C that overlap make the result depend on the order the entries run in.
  if (r.batch > 1 && !r.pointer_arrays && r.stride_c < r.ldc * r.n)
    return {std::nullopt, "strided batch with overlapping C entries"};
  std::string why;
  const std::optional<HandleState> state = read_handle_state(r.handle, why);
  if (!state) return {std::nullopt, why};
  // Every math mode allows what the kernels do (no TF32, no reduced-precision reductions, f16 data
  // accumulated in f32), except pedantic math with f16 compute, which prescribes f16 arithmetic.
  if (state->pedantic() && r.scalars == ScalarKind::F16) return {std::nullopt, "pedantic math mode with f16 compute"};

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
  call.batch = r.batch;
  call.stride_a = r.stride_a;
  call.stride_b = r.stride_b;
  call.stride_c = r.stride_c;
  call.pointer_arrays = r.pointer_arrays;
  call.stream = state->stream;
  call.device_scalars = state->device_scalars;
  call.atomics = state->atomics;
  if (call.device_scalars) {
    call.alpha_ptr = r.alpha;
    call.beta_ptr = r.beta;
  } else {
    read_host_scalar(r.scalars, r.alpha, call.alpha);
    read_host_scalar(r.scalars, r.beta, call.beta);
  }
  if (auto d = settle_checked(shape, check_null_operands(call.device_scalars, call.alpha, call.beta, r.k, r.a, r.b, r.c),
                              "empty (C = 1 * C)"))
    return *d;

  const dispatch::Outcome o = dispatch::run_gemm(call);
  if (o.served) {
    static const std::string unnamed = "served (kernel unnamed)";  // every served path names it today
    record_served(shape, o.kernel ? *o.kernel : unnamed, o.kg, dispatch::packed_note(o.packed));
    return {CUBLAS_STATUS_SUCCESS, {}};
  }
  if (o.failed) {
    record_error(shape, o.detail);
    return {CUBLAS_STATUS_EXECUTION_FAILED, {}};
  }
  return {std::nullopt, o.detail};
}

}  // namespace ptxblas::shim
