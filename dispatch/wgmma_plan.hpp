// Where the wgmma family can serve a call, and with which plan. The model's space does not hold
// wgmma tiles yet (they are new), so where wgmma can run, the heuristic's rules pick among them.
#pragma once

#include "gemm_call.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {

// sm_90 exactly (the kernels are sm_90a code), f16 or bf16, A and B 16-byte aligned with leading
// dimensions a multiple of 8 elements (every cp.async copy moves 16 aligned bytes), and a driver
// that lets kernels opt into more than 48 KiB of shared memory.
bool wgmma_fits(const GemmCall& call, const DeviceInfo& dev);

// The heuristic's plan over the wgmma catalog.
Plan plan_wgmma(const GemmCall& call, int multiprocessors);

}  // namespace ptxblas::dispatch
