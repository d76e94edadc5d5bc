#include "blas3_entry.hpp"

#include "gpu_engine.hpp"
#include "handle_state.hpp"

namespace ptxblas::shim {
namespace {

// {re, im} of a scalar from wherever the pointer mode says it lives.
bool read_scalar(const HandleState& state, ScalarKind kind, const void* p, blas3::Scalar& out, std::string& why) {
  double v[2] = {0, 0};
  if (!p) {
    out = {};
    return true;
  }
  if (state.device_scalars) {
    unsigned char host[16] = {};
    if (!dispatch::read_device_scalar(p, host, scalar_bytes(kind), state.stream, why)) return false;
    read_host_scalar(kind, host, v);
  } else {
    read_host_scalar(kind, p, v);
  }
  out = {v[0], v[1]};
  return true;
}

}  // namespace

Decision try_serve_blas3(const CallShape& shape, std::optional<cublasStatus_t> checked, const Blas3Request& r,
                         const Blas3Body& body) {
  if (auto d = settle_checked(shape, checked, "empty")) return *d;
  if (ptxblas_disabled()) return {std::nullopt, "PTXBLAS_DISABLE is set"};
  std::string why;
  const std::optional<HandleState> state = read_handle_state(r.handle, why);
  if (!state) return {std::nullopt, why};
  auto engine = dispatch::make_gpu_engine(r.data, state->stream, why);
  if (!engine) return {std::nullopt, why};
  // Scalars in device memory are read with a stream synchronisation, which a stream being
  // captured into a CUDA graph cannot take: such calls go to the real cuBLAS.
  if (state->device_scalars && dispatch::stream_is_capturing(state->stream))
    return {std::nullopt, "device scalars while the stream is being captured"};
  blas3::Scalar alpha, beta;
  if (!read_scalar(*state, r.alpha_kind, r.alpha, alpha, why) || !read_scalar(*state, r.beta_kind, r.beta, beta, why))
    return {std::nullopt, why};
  try {
    body(*engine, alpha, beta);
  } catch (const blas3::EngineError& e) {
    // Nothing of the caller's written yet (a size beyond the kernels, no memory, a compile
    // failure): the real cuBLAS can still do the call. Otherwise it is too late to forward.
    if (!engine->wrote_caller_memory()) return {std::nullopt, std::string("level-3 step refused: ") + e.what()};
    record_error(shape, e.what());
    return {CUBLAS_STATUS_EXECUTION_FAILED, {}};
  }
  record_served(shape, "adaptor: " + engine->summary());
  return {CUBLAS_STATUS_SUCCESS, {}};
}

}  // namespace ptxblas::shim
