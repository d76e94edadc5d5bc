// Every CUDA and cuBLAS status is checked: a failure prints file:line and exits with status 2.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace bench {

[[noreturn]] inline void fail_call(const char* what, const char* why, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, why);
  std::exit(2);
}

}  // namespace bench

#define CUDA_CHECK(expr)                                                             \
  do {                                                                               \
    const cudaError_t e_ = (expr);                                                   \
    if (e_ != cudaSuccess) ::bench::fail_call(#expr, cudaGetErrorString(e_), __FILE__, __LINE__); \
  } while (0)

#define CUBLAS_CHECK(expr)                                                           \
  do {                                                                               \
    const cublasStatus_t s_ = (expr);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) ::bench::fail_call(#expr, cublasGetStatusName(s_), __FILE__, __LINE__); \
  } while (0)
