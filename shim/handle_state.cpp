#include "handle_state.hpp"

#include <cstdlib>

#include "real_cublas.hpp"
#include "serve.hpp"

namespace ptxblas::shim {

std::optional<HandleState> read_handle_state(cublasHandle_t handle, std::string& why) {
  using GetStream = cublasStatus_t (*)(cublasHandle_t, cudaStream_t*);
  using GetPointerMode = cublasStatus_t (*)(cublasHandle_t, cublasPointerMode_t*);
  using GetMathMode = cublasStatus_t (*)(cublasHandle_t, cublasMath_t*);
  using GetAtomicsMode = cublasStatus_t (*)(cublasHandle_t, cublasAtomicsMode_t*);
  static const auto get_stream = real_cublas<GetStream>("cublasGetStream_v2");
  static const auto get_mode = real_cublas<GetPointerMode>("cublasGetPointerMode_v2");
  static const auto get_math = real_cublas<GetMathMode>("cublasGetMathMode");
  static const auto get_atomics = real_cublas<GetAtomicsMode>("cublasGetAtomicsMode");  // optional
  if (!get_stream || !get_mode || !get_math) {
    why = "real cuBLAS not found";
    return std::nullopt;
  }
  HandleState s;
  cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
  if (get_stream(handle, &s.stream) != CUBLAS_STATUS_SUCCESS || get_mode(handle, &mode) != CUBLAS_STATUS_SUCCESS ||
      get_math(handle, &s.math) != CUBLAS_STATUS_SUCCESS) {
    why = "handle state unreadable";
    return std::nullopt;
  }
  s.device_scalars = mode == CUBLAS_POINTER_MODE_DEVICE;
  cublasAtomicsMode_t atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
  s.atomics = get_atomics && get_atomics(handle, &atomics) == CUBLAS_STATUS_SUCCESS && atomics == CUBLAS_ATOMICS_ALLOWED;
  return s;
}

std::optional<Decision> settle_checked(const CallShape& shape, std::optional<cublasStatus_t> checked,
                                       const char* empty_note) {
  if (!checked) return std::nullopt;
  if (*checked == CUBLAS_STATUS_SUCCESS)
    record_served(shape, empty_note);
  else
    record_error(shape, status_name(*checked));
  return Decision{checked, {}};
}

bool ptxblas_disabled() {
  static const bool off = [] {
    const char* v = std::getenv("PTXBLAS_DISABLE");
    return v && *v && std::string(v) != "0";
  }();
  return off;
}

const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}

}  // namespace ptxblas::shim
