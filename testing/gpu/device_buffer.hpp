// Device memory for one test operand (null when cudaMalloc fails; at least 16 bytes), and the
// status check of the functions that return a CheckResult-like {failure, ...}.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

namespace gputest {

struct DeviceBuffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n) : bytes(std::max<std::size_t>(n, 16)) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  }
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace gputest

// Returns {"<expr>: <CUDA error>", {}} from the enclosing function when a CUDA call fails.
#define TRY_CUDA(expr)                                                                      \
  do {                                                                                      \
    const cudaError_t e_ = (expr);                                                          \
    if (e_ != cudaSuccess) return {std::string(#expr) + ": " + cudaGetErrorString(e_), {}}; \
  } while (0)
