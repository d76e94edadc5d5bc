#include "offload_device.hpp"

#include <algorithm>
#include <memory>

#include "config.hpp"
#include "cuda_driver.hpp"

namespace ptxblas::dispatch {

OffloadDevice* OffloadDevice::get(int ordinal, std::string& why) {
  static std::mutex m;
  static std::vector<std::unique_ptr<OffloadDevice>> devices;  // per ordinal, kept for the process
  const CudaDriver* d = cuda_driver();
  std::lock_guard lock(m);
  const auto i = static_cast<std::size_t>(ordinal);
  if (i < devices.size() && devices[i]) return devices[i].get();
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (d->cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS || d->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) {
    why = "cannot open device " + std::to_string(ordinal);
    return nullptr;
  }
  if (devices.size() <= i) devices.resize(i + 1);
  devices[i].reset(new OffloadDevice(ctx, static_cast<std::size_t>(host::config().gpu_keep_mib) << 20));
  return devices[i].get();
}

bool OffloadDevice::staging_ready() {
  if (staging_tried_) return staging_ok_;
  staging_tried_ = true;
  const CudaDriver* d = cuda_driver();
  if (!d->cuMemAllocHost || !d->cuMemFreeHost || !d->cuMemcpy2DAsync || !d->cuStreamCreate || !d->cuEventCreate ||
      !d->cuEventRecord || !d->cuEventSynchronize)
    return false;
  // A blocking stream: the NULL stream the adaptors use waits for its copies.
  if (d->cuStreamCreate(&stream_, CU_STREAM_DEFAULT) != CUDA_SUCCESS) return false;
  for (int i = 0; i < 2; ++i) {
    if (d->cuMemAllocHost(&host_[i], kStagingBytes) != CUDA_SUCCESS ||
        d->cuEventCreate(&events_[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      return false;  // what was made stays (used by nobody) until the process ends
  }
  staging_ok_ = true;
  return true;
}

bool OffloadDevice::pipeline_ready() {
  if (pipeline_tried_) return pipeline_ok_;
  pipeline_tried_ = true;
  if (!staging_ready()) return false;  // the tiles' copies go through the staging buffers
  const CudaDriver* d = cuda_driver();
  if (!d->cuStreamWaitEvent) return false;
  for (int i = 0; i < 2; ++i)
    if (d->cuStreamCreate(&tile_streams_[i], CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        d->cuEventCreate(&tile_events_[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
        d->cuEventCreate(&copied_events_[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      return false;
  pipeline_ok_ = true;
  return true;
}

std::size_t OffloadDevice::kept_bytes() const {
  std::size_t total = 0;
  for (const Buffer& b : kept_) total += b.bytes;
  return total;
}

CUdeviceptr OffloadDevice::take(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 256);
  auto best = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->bytes >= bytes && it->bytes <= 2 * bytes && (best == kept_.end() || it->bytes < best->bytes)) best = it;
  if (best != kept_.end()) {
    lent_.push_back(*best);
    kept_.erase(best);
    return lent_.back().p;
  }
  // Rounded up to 2 MiB so that slightly different sizes of the next calls fit.
  const std::size_t rounded = (bytes + (std::size_t{2} << 20) - 1) & ~((std::size_t{2} << 20) - 1);
  const CudaDriver* d = cuda_driver();
  CUdeviceptr p = 0;
  if (d->cuMemAlloc(&p, rounded) != CUDA_SUCCESS) {
    free_kept();
    if (d->cuMemAlloc(&p, rounded) != CUDA_SUCCESS) return 0;
  }
  lent_.push_back({p, rounded});
  return p;
}

void OffloadDevice::give_back(CUdeviceptr p) {
  const auto it = std::find_if(lent_.begin(), lent_.end(), [&](const Buffer& b) { return b.p == p; });
  if (it == lent_.end()) return;
  kept_.push_back(*it);
  lent_.erase(it);
  std::size_t total = kept_bytes();
  while (total > keep_bytes_ && !kept_.empty()) {
    total -= kept_.front().bytes;
    cuda_driver()->cuMemFree(kept_.front().p);
    kept_.erase(kept_.begin());
  }
}

void OffloadDevice::free_kept() {
  for (const Buffer& b : kept_) cuda_driver()->cuMemFree(b.p);
  kept_.clear();
}

}  // namespace ptxblas::dispatch
