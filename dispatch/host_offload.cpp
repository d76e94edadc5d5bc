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

// Copies rows [row0, row0 + rows) of columns [col0, col0 + cols), with the same leading
// dimension on both sides.
CUresult copy_block(const CudaDriver* d, const HostOperand& o, gen::DataType t, CUdeviceptr dev, bool to_device,
                    std::int64_t row0, std::int64_t col0, std::int64_t rows, std::int64_t cols) {
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
  const std::size_t pitch = static_cast<std::size_t>(o.ld) * es;
  const std::size_t offset = static_cast<std::size_t>(row0) * es + static_cast<std::size_t>(col0) * pitch;
  CUDA_MEMCPY2D c{};
  c.WidthInBytes = static_cast<std::size_t>(rows) * es;
  c.Height = static_cast<std::size_t>(cols);
  void* host = static_cast<unsigned char*>(o.host) + offset;
  if (to_device) {
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev + offset;
    c.dstPitch = pitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = dev + offset;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = host;
    c.dstPitch = pitch;
  }
  return d->cuMemcpy2D(&c);
}

// The rows x cols matrix (never the padding rows between rows and ld, which another host thread
// may own).
CUresult copy_matrix(const CudaDriver* d, const HostOperand& o, gen::DataType t, CUdeviceptr dev, bool to_device) {
  return copy_block(d, o, t, dev, to_device, 0, 0, o.rows, o.cols);
}

// Back to the host: the whole matrix, or for a triangular result only its triangle, column by
// column (the other triangle may belong to another thread, as for the reference BLAS).
CUresult copy_result(const CudaDriver* d, const HostOperand& o, gen::DataType t, CUdeviceptr dev) {
  if (!o.triangle) return copy_matrix(d, o, t, dev, false);
  for (std::int64_t j = 0; j < o.cols; ++j) {
    const std::int64_t first = o.triangle == 'L' ? j : 0;
    const std::int64_t count = o.triangle == 'L' ? o.rows - j : std::min(j + 1, o.rows);
    if (count <= 0) continue;
    if (const CUresult r = copy_block(d, o, t, dev, false, first, j, count, 1); r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
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
        copy_result(d, ops[i], t, reinterpret_cast<CUdeviceptr>(views[i].p)) != CUDA_SUCCESS) {
      why = "copy from the device failed";
      return OffloadResult::Failed;
    }
  }
  return OffloadResult::Done;
}

}  // namespace ptxblas::dispatch
