#include "gpu_session.hpp"

#include <cstdio>

#include "gemm_call.hpp"
#include "status.hpp"

namespace bench {

std::optional<GpuSession> open_gpu_session(const std::string& library) {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    std::printf("no GPU: benchmark skipped (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return std::nullopt;
  }
  GpuSession s;
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaGetDeviceProperties(&s.prop, 0));
  load_ptxblas(library);
  CUBLAS_CHECK(cublasCreate(&s.handle));
  CUDA_CHECK(cudaStreamCreate(&s.stream));
  CUBLAS_CHECK(cublasSetStream(s.handle, s.stream));
  CUBLAS_CHECK(cublasGetVersion(s.handle, &s.cublas_version));
  return s;
}

}  // namespace bench
