// SIMT GEMM kernels as PTX text: C = alpha * op(A) * op(B) + beta * C for every data type and
// op combination, any shape, bounds handled by predication. Pure function: no CUDA calls.
#pragma once

#include <string>

#include "kernel_config.hpp"
#include "resources.hpp"

namespace ptxblas::gen {

struct GeneratedKernel {
  std::string name;  // entry point in the PTX module
  std::string ptx;
  Resources resources;
};

// sm: target architecture as 10*major+minor (80, 86, 89, 90). Throws std::invalid_argument for an
// illegal configuration (why_illegal says why).
GeneratedKernel generate_simt_gemm(const KernelConfig& config, int sm);

}  // namespace ptxblas::gen
