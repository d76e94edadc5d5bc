// Where split-K workspaces come from: a memory pool of ptxblas's own per device, which keeps up to
// kWorkspaceKeepBytes reserved across synchronisations. The device's default pool hands its memory
// back at every synchronisation (release threshold 0), so an application that synchronises after
// each call paid a fresh mapping for every split call's workspace (docs/perf-notes.md §17).
#pragma once

#include <cuda.h>

#include <cstddef>

#include "cuda_driver.hpp"

namespace ptxblas::dispatch {

inline constexpr std::size_t kWorkspaceKeepBytes = std::size_t{64} << 20;

// The pool for the current context's device, created on first use; nullptr when the driver lacks
// pools or creating one fails (callers then use cuMemAllocAsync's default pool). Thread safe.
CUmemoryPool workspace_pool(const CudaDriver* d);

}  // namespace ptxblas::dispatch
