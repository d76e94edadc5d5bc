// Generated kernels, JIT-compiled by the driver once per CUDA context and kept for the process.
#pragma once

#include <cuda.h>

#include <string>

#include "kernel_config.hpp"
#include "matrix_helpers_ptx.hpp"

namespace ptxblas::dispatch {

struct DeviceInfo {
  int sm = 0;             // 10 * major + minor
  int multiprocessors = 0;
  std::string name;       // as the driver reports it
  std::string model_key;  // model::device_key(name, sm): selects the performance model
  int max_smem_optin = 0;  // bytes of shared memory a block may opt in to (H100: 232448)
};

// Device facts of the context (cached per context).
bool device_info(CUcontext ctx, DeviceInfo& out, std::string& error);
// The same, the cache's own copy (valid for the process; nullptr and error on failure): a call's
// path takes it without copying the two strings (two allocations per call).
const DeviceInfo* cached_device_info(CUcontext ctx, std::string& error);

// A compiled GEMM kernel with what its launches need besides the configuration: the name (for
// the call record) and the dynamic shared memory, both fixed once it is compiled.
struct GemmKernel {
  CUfunction fn = nullptr;
  std::string name;
  unsigned dynamic_smem = 0;
};

// The compiled GEMM kernel for `config` in context `ctx`, looked up by the configuration's
// fields, so that a call finding it builds no name (perf notes §43). On failure returns nullptr
// and sets error. The kernel stays valid for the process. Thread safe.
const GemmKernel* cached_kernel(CUcontext ctx, const gen::KernelConfig& config, int sm, std::string& error);

// The compiled split-K reduction kernel for this data type and scalar storage.
CUfunction cached_reduce_kernel(CUcontext ctx, gen::DataType data, bool scalar_f16, int sm, std::string& error);

// The level-3 helper kernels (see matrix_helpers_ptx.hpp).
CUfunction cached_helper(CUcontext ctx, const gen::MatrixHelper& helper, int sm, std::string& error);
CUfunction cached_inverse(CUcontext ctx, gen::DataType data, bool lower, bool unit, int width, int sm,
                          std::string& error);
// The inverse doubling kernel (2 half wide from half wide inverses, matrix_helpers_ptx.hpp).
CUfunction cached_doubling(CUcontext ctx, gen::DataType data, bool lower, int half, int sm, std::string& error);
// The row interchange kernel (LU's laswp, matrix_helpers_ptx.hpp).
CUfunction cached_row_swaps(CUcontext ctx, gen::DataType data, int sm, std::string& error);
// LU's column steps (getf2 by kernel, matrix_helpers_ptx.hpp).
CUfunction cached_lu_columns(CUcontext ctx, gen::DataType data, int sm, std::string& error);
// The 16-bit operand packing kernel (operand_pack_ptx.hpp).
CUfunction cached_operand_pack(CUcontext ctx, int sm, std::string& error);

}  // namespace ptxblas::dispatch
