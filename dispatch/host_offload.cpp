#include "host_offload.hpp"

#include <algorithm>
#include <mutex>

#include "cuda_driver.hpp"
#include "gpu_engine.hpp"

namespace ptxblas::dispatch {
namespace {

std::size_t block_bytes(const HostOperand& o, gen::DataType t) {
  if (o.rows == 0 || o.cols == 0) return 0;
  return static_cast<std::size_t>(o.ld * (o.cols - 1) + o.rows) * static_cast<std::size_t>(gen::storage_bytes(t));
}

// Copies only the rows x cols matrix (never the padding rows between rows and ld, which another
// host thread may own), with the same leading dimension on both sides.
CUresult copy_matrix(const CudaDriver* d, const HostOperand& o, gen::DataType t, CUdeviceptr dev, bool to_device) {
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
  CUDA_MEMCPY2D c{};
  c.WidthInBytes = static_cast<std::size_t>(o.rows) * es;
  c.Height = static_cast<std::size_t>(o.cols);
  const std::size_t pitch = static_cast<std::size_t>(o.ld) * es;
  if (to_device) {
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = o.host;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev;
    c.dstPitch = pitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = dev;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = o.host;
    c.dstPitch = pitch;
  }
  return d->cuMemcpy2D(&c);
}

// The device copies of one call, freed (and the context popped) on every path out.
class DeviceSession {
 public:
  DeviceSession(const CudaDriver* d, CUcontext ctx) : d_(d), pushed_(d->cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {}
  ~DeviceSession() {
    if (pushed_ && !idle_) d_->cuCtxSynchronize();  // kernels may still use the buffers
    for (CUdeviceptr p : ptrs_) d_->cuMemFree(p);
    CUcontext popped = nullptr;
    if (pushed_) d_->cuCtxPopCurrent(&popped);
  }
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;
  bool pushed() const { return pushed_; }
  void mark_idle() { idle_ = true; }  // after a successful cuCtxSynchronize
  CUdeviceptr alloc(std::size_t bytes) {
    CUdeviceptr p = 0;
    if (d_->cuMemAlloc(&p, std::max<std::size_t>(bytes, 16)) != CUDA_SUCCESS) return 0;
    ptrs_.push_back(p);
    return p;
  }

 private:
  const CudaDriver* d_;
  bool pushed_;
  bool idle_ = false;
  std::vector<CUdeviceptr> ptrs_;
};

bool context_for(int ordinal, CUcontext& ctx, std::string& why) {
  static std::mutex m;
  static std::vector<CUcontext> contexts;  // retained once per ordinal, kept for the process
  const CudaDriver* d = cuda_driver();
  std::lock_guard lock(m);
  if (static_cast<std::size_t>(ordinal) < contexts.size() && contexts[static_cast<std::size_t>(ordinal)]) {
    ctx = contexts[static_cast<std::size_t>(ordinal)];
    return true;
  }
  CUdevice dev = 0;
  if (d->cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS || d->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) {
    why = "cannot open device " + std::to_string(ordinal);
    return false;
  }
  if (contexts.size() <= static_cast<std::size_t>(ordinal)) contexts.resize(static_cast<std::size_t>(ordinal) + 1);
  contexts[static_cast<std::size_t>(ordinal)] = ctx;
  return true;
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
                      std::string& why) {
  constexpr OffloadResult kNotRun = OffloadResult::NotRun;
  if (!offload_available(ordinal, why)) return kNotRun;
  const CudaDriver* d = cuda_driver();
  CUcontext ctx = nullptr;
  if (!context_for(ordinal, ctx, why)) return kNotRun;
  DeviceSession session(d, ctx);
  if (!session.pushed()) {
    why = "cannot make the device's context current";
    return kNotRun;
  }
  std::vector<blas3::MatView> views;
  for (const HostOperand& o : ops) {
    const std::size_t bytes = block_bytes(o, t);
    const CUdeviceptr p = session.alloc(bytes);
    if (!p) {
      why = "device memory exhausted";
      return kNotRun;
    }
    if (bytes && copy_matrix(d, o, t, p, true) != CUDA_SUCCESS) {
      why = "copy to the device failed";
      return kNotRun;
    }
    views.push_back({reinterpret_cast<void*>(p), o.ld});
  }
  auto engine = make_gpu_engine(t, nullptr, why);  // the context's NULL stream: ordered with the copies
  if (!engine) return kNotRun;
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
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::size_t bytes = block_bytes(ops[i], t);
    if (ops[i].written && bytes &&
        copy_matrix(d, ops[i], t, reinterpret_cast<CUdeviceptr>(views[i].p), false) != CUDA_SUCCESS) {
      why = "copy from the device failed";
      return OffloadResult::Failed;
    }
  }
  return OffloadResult::Done;
}

}  // namespace ptxblas::dispatch
