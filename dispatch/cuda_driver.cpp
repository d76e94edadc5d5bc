#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>

namespace ptxblas::dispatch {
namespace {

struct Loaded {
  CudaDriver api;
  bool ok = false;
  std::string why;
};

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

Loaded load() {
  Loaded l;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    l.why = "no CUDA driver (libcuda.so.1 not found)";
    return l;
  }
  CudaDriver& d = l.api;
  const bool all = bind(lib, "cuInit", d.cuInit) && bind(lib, "cuDriverGetVersion", d.cuDriverGetVersion) &&
                   bind(lib, "cuCtxGetCurrent", d.cuCtxGetCurrent) &&
                   bind(lib, "cuCtxGetDevice", d.cuCtxGetDevice) &&
                   bind(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute) &&
                   bind(lib, "cuDeviceGetName", d.cuDeviceGetName) &&
                   bind(lib, "cuModuleLoadDataEx", d.cuModuleLoadDataEx) &&
                   bind(lib, "cuModuleGetFunction", d.cuModuleGetFunction) &&
                   bind(lib, "cuLaunchKernel", d.cuLaunchKernel) &&
                   bind(lib, "cuGetErrorString", d.cuGetErrorString);
  bind(lib, "cuMemAllocAsync", d.cuMemAllocAsync);
  bind(lib, "cuMemFreeAsync", d.cuMemFreeAsync);
  bind(lib, "cuMemPoolCreate", d.cuMemPoolCreate);
  bind(lib, "cuMemPoolDestroy", d.cuMemPoolDestroy);
  bind(lib, "cuMemPoolSetAttribute", d.cuMemPoolSetAttribute);
  bind(lib, "cuMemAllocFromPoolAsync", d.cuMemAllocFromPoolAsync);
  bind(lib, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync);
  bind(lib, "cuStreamSynchronize", d.cuStreamSynchronize);
  bind(lib, "cuStreamIsCapturing", d.cuStreamIsCapturing);
  bind(lib, "cuStreamGetId", d.cuStreamGetId);
  bind(lib, "cuMemsetD32Async", d.cuMemsetD32Async);
  bind(lib, "cuDeviceGetCount", d.cuDeviceGetCount);
  bind(lib, "cuDeviceGet", d.cuDeviceGet);
  bind(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain);
  bind(lib, "cuCtxPushCurrent_v2", d.cuCtxPushCurrent);
  bind(lib, "cuCtxPopCurrent_v2", d.cuCtxPopCurrent);
  bind(lib, "cuCtxSynchronize", d.cuCtxSynchronize);
  bind(lib, "cuMemAlloc_v2", d.cuMemAlloc);
  bind(lib, "cuMemFree_v2", d.cuMemFree);
  bind(lib, "cuMemcpy2D_v2", d.cuMemcpy2D);
  bind(lib, "cuMemGetInfo_v2", d.cuMemGetInfo);
  bind(lib, "cuMemAllocHost_v2", d.cuMemAllocHost);
  bind(lib, "cuMemFreeHost", d.cuMemFreeHost);
  bind(lib, "cuMemcpy2DAsync_v2", d.cuMemcpy2DAsync);
  bind(lib, "cuStreamCreate", d.cuStreamCreate);
  bind(lib, "cuEventCreate", d.cuEventCreate);
  bind(lib, "cuEventRecord", d.cuEventRecord);
  bind(lib, "cuEventSynchronize", d.cuEventSynchronize);
  bind(lib, "cuStreamWaitEvent", d.cuStreamWaitEvent);
  if (!bind(lib, "cuEventElapsedTime_v2", d.cuEventElapsedTime)) bind(lib, "cuEventElapsedTime", d.cuEventElapsedTime);
  if (!bind(lib, "cuEventDestroy_v2", d.cuEventDestroy)) bind(lib, "cuEventDestroy", d.cuEventDestroy);
  bind(lib, "cuFuncSetAttribute", d.cuFuncSetAttribute);
  bind(lib, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled);
  if (!all) {
    l.why = "CUDA driver lacks a required entry point";
    return l;
  }
  if (const CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    l.why = "cuInit failed: " + std::to_string(static_cast<int>(r));
    return l;
  }
  l.ok = true;
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();  // thread-safe static initialisation
  return l;
}

}  // namespace

const CudaDriver* cuda_driver() { return loaded().ok ? &loaded().api : nullptr; }

const std::string& driver_unavailable_reason() { return loaded().why; }

std::string cuda_error_text(CUresult r) {
  const char* s = nullptr;
  if (const CudaDriver* d = cuda_driver(); d && d->cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
    return "CUDA error " + std::to_string(static_cast<int>(r)) + ": " + s;
  return "CUDA error " + std::to_string(static_cast<int>(r));
}

}  // namespace ptxblas::dispatch
