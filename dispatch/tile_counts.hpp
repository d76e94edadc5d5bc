// Where fused split-K launches find their tile counts (generator/kernel_abi.hpp tile_counts):
// one buffer of u32 per (context, stream), zeroed once when made or grown. The kernels leave
// every count at 0, so launches in one stream's order share it; launches on other streams have
// buffers of their own. Streams are told apart by cuStreamGetId (unique for the process's life,
// so a handle reused after cuStreamDestroy gets a fresh buffer).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "cuda_driver.hpp"

namespace ptxblas::dispatch {

// At least `tiles` zero counts for launches queued on `stream` from now on, or 0 when none can be
// had (the driver lacks a call, the stream is being captured into a graph, which may later run
// on any stream, 64 streams have buffers already, or memory is short): the caller then sums the
// slices with the reduction kernel.
// Thread safe.
CUdeviceptr tile_counts(const CudaDriver* d, CUcontext ctx, CUstream stream, std::int64_t tiles);

}  // namespace ptxblas::dispatch
