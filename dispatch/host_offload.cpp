#include "host_offload.hpp"

#include <memory>

#include "cuda_driver.hpp"
#include "gpu_engine.hpp"
#include "offload_copy.hpp"
#include "offload_device.hpp"
#include "offload_session.hpp"

namespace ptxblas::dispatch {

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

std::unique_ptr<DeviceSession> open_session(int ordinal, OffloadDevice*& dev, std::string& why) {
  if (!offload_available(ordinal, why) || !(dev = OffloadDevice::get(ordinal, why))) return nullptr;
  auto session = std::make_unique<DeviceSession>(*dev);
  if (!session->pushed()) {
    why = "cannot make the device's context current";
    return nullptr;
  }
  return session;
}

OffloadResult offload(int ordinal, gen::DataType t, const std::vector<HostOperand>& ops, const HostBody& body,
                      std::string& why, OffloadTimes* times) {
  OffloadTimes local;
  const auto t0 = std::chrono::steady_clock::now();
  OffloadDevice* dev = nullptr;
  const auto session = open_session(ordinal, dev, why);
  if (!session) return OffloadResult::NotRun;
  return run_whole(*dev, *session, t, ops, body, why, times ? *times : local, t0);
}

OffloadResult run_whole(OffloadDevice& dev, DeviceSession& session, gen::DataType t, const std::vector<HostOperand>& ops,
                        const HostBody& body, std::string& why, OffloadTimes& tm,
                        std::chrono::steady_clock::time_point t0) {
  constexpr OffloadResult kNotRun = OffloadResult::NotRun;
  const CudaDriver* d = cuda_driver();
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
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
    if (bytes && o.read && copy_to_device(dev, o, es, m) != CUDA_SUCCESS) {
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
    if (ops[i].written && device_bytes(ops[i], es) && copy_to_host(dev, ops[i], es, copies[i]) != CUDA_SUCCESS) {
      why = "copy from the device failed";
      return OffloadResult::Failed;
    }
  }
  tm.out = seconds_since(t0);
  return OffloadResult::Done;
}

}  // namespace ptxblas::dispatch
