// Finds the real cuBLAS functions behind the ones ptxblas exports. Under PyTorch cuBLAS lives in
// a local scope where dlsym(RTLD_NEXT) fails, so: the already-loaded libcublas.so.13
// (RTLD_NOLOAD) and dlvsym with its version node; failing that, load it ourselves.
#pragma once

namespace ptxblas::shim {

// Address of the real cuBLAS function `name`, or nullptr if cuBLAS cannot be found.
void* real_cublas_symbol(const char* name);

template <class Fn>
Fn real_cublas(const char* name) {
  return reinterpret_cast<Fn>(real_cublas_symbol(name));
}

}  // namespace ptxblas::shim
