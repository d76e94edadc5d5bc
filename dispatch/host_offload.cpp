#include "host_offload.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "cuda_driver.hpp"
#include "gpu_engine.hpp"
#include "offload_copy.hpp"
#include "offload_device.hpp"

namespace ptxblas::dispatch {
namespace {

// The device copy is dense: rows rounded up to 32 elements (aligned columns for the kernels'
// vector loads), not the host's leading dimension, which may leave whole gaps between columns.
std::int64_t device_ld(const HostOperand& o) { return (std::max<std::int64_t>(o.rows, 1) + 31) / 32 * 32; }

std::size_t device_bytes(const HostOperand& o, std::size_t es) {
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool offload_available(int ordinal, std::string& why) {
  const CudaDriver* d = cuda_driver();
  if (!d) {
    why = driver_unavailable_reason();
    return false;
  }
  if (!d->cuDeviceGetCount || !d->cuDeviceGet || !d->cuDevicePrimaryCtxRetain || !d->cuCtxPushCurrent ||
      !d->cuCtxPopCurrent || !d->cuCtxSynchronize || !d->cuMemAlloc || !d->cuMemFree || !d->cuMemcpy2D) {
    why = "driver lacks what offload needs";
    return false;
  }
  int count = 0;
  if (d->cuDeviceGetCount(&count) != CUDA_SUCCESS || ordinal >= count) {
    why = "no device " + std::to_string(ordinal);
    return false;
  }
  return true;
}

OffloadResult offload(int ordinal, gen::DataType t, const std::vector<HostOperand>& ops, const HostBody& body,
                      std::string& why, OffloadTimes* times) {
  OffloadTimes local;
  OffloadTimes& tm = times ? *times : local;
  auto t0 = std::chrono::steady_clock::now();
  constexpr OffloadResult kNotRun = OffloadResult::NotRun;
  if (!offload_available(ordinal, why)) return kNotRun;
  OffloadDevice* dev = OffloadDevice::get(ordinal, why);
  if (!dev) return kNotRun;
  const CudaDriver* d = cuda_driver();
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
  DeviceSession session(*dev);
  if (!session.pushed()) {
    why = "cannot make the device's context current";
    return kNotRun;
  }
  std::vector<blas3::MatView> views;
  std::vector<DeviceMatrix> copies;
  for (const HostOperand& o : ops) {
    const std::size_t bytes = device_bytes(o, es);
    const CUdeviceptr p = session.alloc(bytes);
    if (!p) {
      why = "device memory exhausted";
      return kNotRun;
    }
    const DeviceMatrix m{p, bytes ? device_ld(o) : o.ld};  // an unread operand keeps the caller's ld
    if (bytes && o.read && copy_to_device(*dev, o, es, m) != CUDA_SUCCESS) {
      why = "copy to the device failed";
      return kNotRun;
    }
    copies.push_back(m);
    views.push_back({reinterpret_cast<void*>(p), m.ld});
  }
  auto engine = make_gpu_engine(t, nullptr, why);  // the context's NULL stream: ordered with the copies
  if (!engine) return kNotRun;
  tm.in = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  try {
    body(*engine, views);
  } catch (const blas3::EngineError& e) {
    why = e.what();
    return kNotRun;
  }
  if (d->cuCtxSynchronize() != CUDA_SUCCESS) {
    why = "device execution failed";
    return kNotRun;
  }
  session.mark_idle();
  tm.run = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].written && device_bytes(ops[i], es) && copy_to_host(*dev, ops[i], es, copies[i]) != CUDA_SUCCESS) {
      why = "copy from the device failed";
      return OffloadResult::Failed;
    }
  }
  tm.out = seconds_since(t0);
  return OffloadResult::Done;
}

}  // namespace ptxblas::dispatch
