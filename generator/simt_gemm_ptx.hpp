// SIMT GEMM kernels as PTX text: C = alpha * op(A) * op(B) + beta * C for every data type and
// op combination, any shape, bounds handled by predication. Pure function: no CUDA calls.
#pragma once

#include <cstdint>

#include <string>

#include "kernel_config.hpp"
#include "resources.hpp"

namespace ptxblas::gen {

struct GeneratedKernel {
  std::string name;  // entry point in the PTX module
  std::string ptx;
  Resources resources;
  int dynamic_smem = 0;  // bytes to launch with (dynamic_smem_bytes)
};

// sm: target architecture as 10*major+minor (80, 86, 89, 90). Throws std::invalid_argument for an
// illegal configuration (why_illegal says why).
GeneratedKernel generate_simt_gemm(const KernelConfig& config, int sm);

// Split-K reduction (see kernel_abi.hpp): sums the slices a GEMM kernel left in its workspace and
// applies alpha and beta. One kernel per data type and scalar storage.
inline constexpr int kReduceThreads = 256;
// The split-K reduction's block: kReduceThreads = elements x groups (kernel_abi.hpp). Groups
// of threads share an element's slices while m * n times the groups stays within 2^18 threads
// (about one wave: 132 SMs x 2048), at most 8 and at most kg: 1, 2, 4 or 8.
int reduce_groups(std::int64_t mn, int kg);
GeneratedKernel generate_splitk_reduce(DataType data, bool scalar_f16, int sm);
std::string splitk_reduce_name(DataType data, bool scalar_f16);

}  // namespace ptxblas::gen
