// A cuBLAS handle's state, read from the real cuBLAS (the handle is the real cuBLAS's object).
#pragma once

#include <cublas_api.h>

#include <optional>
#include <string>

namespace ptxblas::shim {

struct HandleState {
  cudaStream_t stream = nullptr;
  bool device_scalars = false;  // CUBLAS_POINTER_MODE_DEVICE
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  bool atomics = false;  // CUBLAS_ATOMICS_ALLOWED: results may depend on the order of additions
  bool pedantic() const { return (static_cast<int>(math) & 0xF) == CUBLAS_PEDANTIC_MATH; }
};

// The state, or nothing with `why` (real cuBLAS not found, or it refused the handle).
std::optional<HandleState> read_handle_state(cublasHandle_t handle, std::string& why);

// PTXBLAS_DISABLE is set: every call is forwarded.
bool ptxblas_disabled();

// "CUBLAS_STATUS_..." for logs.
const char* status_name(cublasStatus_t s);

}  // namespace ptxblas::shim
