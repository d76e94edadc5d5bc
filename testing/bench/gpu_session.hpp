// What every GEMM benchmark opens first: device 0, ptxblas loaded from `library`, and a cuBLAS
// handle on a stream of its own. Statuses checked (status.hpp: a failure exits with 2).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <optional>
#include <string>

namespace bench {

struct GpuSession {
  cudaDeviceProp prop{};
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  int cublas_version = 0;
};

// None, with a "no GPU: benchmark skipped" line printed, on a machine without a GPU.
std::optional<GpuSession> open_gpu_session(const std::string& library);

}  // namespace bench
