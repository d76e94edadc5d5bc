// One offloaded call's hold on its device, and the shape of the dense device copies it makes;
// shared by the whole-call and the tiled offload.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_driver.hpp"
#include "host_offload.hpp"
#include "offload_device.hpp"

namespace ptxblas::dispatch {

// The device copy is dense: rows rounded up to 32 elements (aligned columns for the kernels'
// vector loads), not the host's leading dimension, which may leave whole gaps between columns.
inline std::int64_t device_ld(const HostOperand& o) { return (std::max<std::int64_t>(o.rows, 1) + 31) / 32 * 32; }

inline std::size_t device_bytes(const HostOperand& o, std::size_t es) {
  if (o.rows == 0 || o.cols == 0) return 0;
  return static_cast<std::size_t>(device_ld(o) * o.cols) * es;
}

// One call's hold on the device: its lock, the context made current, the device buffers lent to
// the call (given back for reuse, and the context popped, on every path out).
class DeviceSession {
 public:
  explicit DeviceSession(OffloadDevice& dev)
      : dev_(dev), lock_(dev.lock()), d_(cuda_driver()), pushed_(d_->cuCtxPushCurrent(dev.context()) == CUDA_SUCCESS) {}
  ~DeviceSession() {
    if (pushed_ && !idle_) d_->cuCtxSynchronize();  // kernels may still use the buffers
    for (CUdeviceptr p : ptrs_) dev_.give_back(p);
    CUcontext popped = nullptr;
    if (pushed_) d_->cuCtxPopCurrent(&popped);
  }
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;
  bool pushed() const { return pushed_; }
  void mark_idle() { idle_ = true; }  // after a successful cuCtxSynchronize
  CUdeviceptr alloc(std::size_t bytes) {
    const CUdeviceptr p = dev_.take(bytes);
    if (p) ptrs_.push_back(p);
    return p;
  }

 private:
  OffloadDevice& dev_;
  std::unique_lock<std::mutex> lock_;
  const CudaDriver* d_;
  bool pushed_;
  bool idle_ = false;
  std::vector<CUdeviceptr> ptrs_;
};

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The device `ordinal` held for one call (`dev` set); nullptr with the reason when it cannot be.
std::unique_ptr<DeviceSession> open_session(int ordinal, OffloadDevice*& dev, std::string& why);

// The whole call in the session: every operand copied over, the body on the NULL stream, the
// written operands copied back (only after the body succeeded). t0: when the call began.
OffloadResult run_whole(OffloadDevice& dev, DeviceSession& session, gen::DataType t, const std::vector<HostOperand>& ops,
                        const HostBody& body, std::string& why, OffloadTimes& tm,
                        std::chrono::steady_clock::time_point t0);

}  // namespace ptxblas::dispatch
