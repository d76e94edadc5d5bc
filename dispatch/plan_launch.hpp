// Inside dispatch: one plan launched on the call's stream (gemm_launch.cpp), for run_gemm and
// for the first-sight benchmark, which launches several plans of one call.
#pragma once

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {

Outcome launch_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, Plan plan);

}  // namespace ptxblas::dispatch
