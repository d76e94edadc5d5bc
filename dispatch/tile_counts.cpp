#include "tile_counts.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

namespace ptxblas::dispatch {
namespace {

// Counts a buffer holds at least (16 KiB): a 4096-tile split grid is already large.
constexpr std::int64_t kMinCounts = 4096;
// Buffers are never freed (a stream's last launch may still be queued), so a program that makes
// a stream per call would leak one per call: past this many streams, new ones get none (their
// splits use the reduction kernel).
constexpr std::size_t kMaxStreams = 64;

struct Counts {
  CUdeviceptr ptr = 0;
  std::int64_t size = 0;
};

}  // namespace

TileCounts tile_counts(const CudaDriver* d, CUcontext ctx, CUstream stream, std::int64_t tiles) {
  TileCounts out;
  if (!d->cuStreamGetId || !d->cuMemsetD32Async || !d->cuMemAllocAsync || !d->cuMemFreeAsync ||
      !d->cuStreamIsCapturing || tiles <= 0)
    return out;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d->cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS || capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return out;
  unsigned long long id = 0;
  if (d->cuStreamGetId(stream, &id) != CUDA_SUCCESS) return out;
  static std::mutex mutex;
  static std::map<std::pair<CUcontext, unsigned long long>, Counts> buffers;  // never freed: in use to the end
  std::unique_lock lock(mutex);
  const std::pair<CUcontext, unsigned long long> key{ctx, id};
  const auto it = buffers.find(key);
  if (it != buffers.end() && it->second.size >= tiles) {
    out.ptr = it->second.ptr;
    out.hold = std::move(lock);
    return out;
  }
  if (it == buffers.end() && buffers.size() >= kMaxStreams) return out;
  // Grow in stream order: the old buffer is freed after the launches queued on it (the others'
  // too: they hold the lock until theirs is queued).
  const std::int64_t size = std::max(kMinCounts, tiles);
  CUdeviceptr fresh = 0;
  if (d->cuMemAllocAsync(&fresh, static_cast<size_t>(size) * 4, stream) != CUDA_SUCCESS) return out;
  if (d->cuMemsetD32Async(fresh, 0, static_cast<size_t>(size), stream) != CUDA_SUCCESS) {
    d->cuMemFreeAsync(fresh, stream);
    return out;
  }
  Counts& c = buffers[key];
  if (c.ptr) d->cuMemFreeAsync(c.ptr, stream);
  c = {fresh, size};
  out.ptr = c.ptr;
  out.hold = std::move(lock);
  return out;
}

}  // namespace ptxblas::dispatch
