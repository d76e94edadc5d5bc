// Finds the real cuBLAS functions behind the ones ptxblas exports. Under PyTorch cuBLAS lives in
// a local scope where dlsym(RTLD_NEXT) fails, so: the already-loaded libcublas.so.13
// (RTLD_NOLOAD) and dlvsym with its version node; failing that, load it ourselves.
#pragma once

#include <cublas_api.h>

namespace ptxblas::shim {

// Address of the real cuBLAS function `name`, or nullptr if cuBLAS cannot be found.
void* real_cublas_symbol(const char* name);

template <class Fn>
Fn real_cublas(const char* name) {
  return reinterpret_cast<Fn>(real_cublas_symbol(name));
}

// Thrown when a call must be forwarded but the real cuBLAS (or this function in it) is missing.
struct RealCublasMissing {};

// Calls the real cuBLAS function `name` of type Fn with args (throws RealCublasMissing).
template <class Fn, class... Args>
cublasStatus_t call_real(const char* name, Args... args) {
  const Fn real = real_cublas<Fn>(name);
  if (!real) throw RealCublasMissing{};
  return real(args...);
}

}  // namespace ptxblas::shim
