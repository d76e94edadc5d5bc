// Where fused split-K launches find their tile counts (generator/kernel_abi.hpp tile_counts):
// one buffer of u32 per (context, stream), zeroed once when made or grown. The kernels leave
// every count at 0, so launches in one stream's order share it; launches on other streams have
// buffers of their own. Streams are told apart by cuStreamGetId (unique for the process's life,
// so a handle reused after cuStreamDestroy gets a fresh buffer).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <mutex>

#include "cuda_driver.hpp"

namespace ptxblas::dispatch {

// At least `tiles` zero counts for launches queued on `stream` from now on (ptr), or ptr 0 when
// none can be had (the driver lacks a call, the stream is being captured into a graph, which may
// later run on any stream, 64 streams have buffers already, or memory is short): the caller then
// sums the slices with the reduction kernel. The caller keeps `hold` until its launch is queued:
// another thread on the same stream growing the buffer meanwhile would free this one, in stream
// order, before that launch. Thread safe.
struct TileCounts {
  CUdeviceptr ptr = 0;
  std::unique_lock<std::mutex> hold;
};
TileCounts tile_counts(const CudaDriver* d, CUcontext ctx, CUstream stream, std::int64_t tiles);

}  // namespace ptxblas::dispatch
