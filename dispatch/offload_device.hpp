// What the host offload keeps per device between calls: the primary context, a stream for the
// copies, two pinned staging buffers (each with an event marking its last copy), and the device
// buffers of earlier calls, kept for reuse (cuMemAlloc/cuMemFree cost 0.1-0.4 ms each on the H100
// and LAPACK makes thousands of calls) up to ptxblas.toml's gpu.keep_mib (the application's own
// allocations share the device). One offloaded call at a time holds a device (lock()).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace ptxblas::dispatch {

class OffloadDevice {
 public:
  static constexpr std::size_t kStagingBytes = std::size_t{32} << 20;  // per buffer, two buffers

  // The device `ordinal`, set up once (context retained); nullptr with the reason if it cannot be.
  static OffloadDevice* get(int ordinal, std::string& why);

  CUcontext context() const { return ctx_; }
  std::unique_lock<std::mutex> lock() { return std::unique_lock(m_); }

  // With the context current and the lock held: creates the staging buffers, stream and events on
  // first use. False when the driver cannot (then plain pageable copies are used).
  bool staging_ready();
  CUstream stream() const { return stream_; }
  void* staging(int i) const { return host_[i]; }
  CUevent event(int i) const { return events_[i]; }

  // With the context current and the lock held: two streams that do not wait for the NULL stream
  // (and an event each), on which a tiled offload runs alternate tiles; made on first use. False
  // when the driver cannot.
  bool pipeline_ready();
  CUstream tile_stream(int i) const { return tile_streams_[i]; }
  CUevent tile_event(int i) const { return tile_events_[i]; }  // slot i's kernels done
  CUevent copied_event(int i) const { return copied_events_[i]; }  // slot i's copies to the device done

  // Bytes of the kept buffers (free for the next call, though not free on the device).
  std::size_t kept_bytes() const;

  // Device memory of at least `bytes`: a kept buffer no more than twice as large, else a new one
  // (the kept ones are freed first if the device is full). 0 when there is none.
  CUdeviceptr take(std::size_t bytes);
  // Back for reuse; beyond gpu.keep_mib in all, the oldest kept buffers are freed.
  void give_back(CUdeviceptr p);

 private:
  struct Buffer {
    CUdeviceptr p;
    std::size_t bytes;
  };
  OffloadDevice(CUcontext ctx, std::size_t keep_bytes) : ctx_(ctx), keep_bytes_(keep_bytes) {}
  void free_kept();

  CUcontext ctx_;
  std::size_t keep_bytes_;
  std::mutex m_;
  bool staging_tried_ = false, staging_ok_ = false;
  CUstream stream_ = nullptr;
  void* host_[2] = {nullptr, nullptr};
  CUevent events_[2] = {nullptr, nullptr};
  bool pipeline_tried_ = false, pipeline_ok_ = false;
  CUstream tile_streams_[2] = {nullptr, nullptr};
  CUevent tile_events_[2] = {nullptr, nullptr};
  CUevent copied_events_[2] = {nullptr, nullptr};
  std::vector<Buffer> kept_, lent_;  // kept: free for reuse, oldest first; lent: in use by the call
};

}  // namespace ptxblas::dispatch
