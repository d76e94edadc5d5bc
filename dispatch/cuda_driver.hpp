// The CUDA driver API, loaded with dlopen at first use so libptxblas.so loads (and forwards)
// on machines without a GPU or driver. Only the calls ptxblas needs.
#pragma once

#include <cuda.h>

#include <string>

namespace ptxblas::dispatch {

struct CudaDriver {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice*) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  // Stream-ordered allocation for split-K workspaces (optional: without it there is no split).
  CUresult (*cuMemAllocAsync)(CUdeviceptr*, size_t, CUstream) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream) = nullptr;
  // ptxblas's own workspace pool, kept across synchronisations (optional: the default pool else).
  CUresult (*cuMemPoolCreate)(CUmemoryPool*, const CUmemPoolProps*) = nullptr;
  CUresult (*cuMemPoolDestroy)(CUmemoryPool) = nullptr;
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, CUmemPool_attribute, void*) = nullptr;
  CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr*, size_t, CUmemoryPool, CUstream) = nullptr;
  // Level-3 routines with scalars in device memory read them first (optional).
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamIsCapturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  // Fused split-K's tile counts, one zeroed buffer per stream (optional: without them the
  // slices are summed by the reduction kernel).
  CUresult (*cuStreamGetId)(CUstream, unsigned long long*) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream) = nullptr;
  // Host BLAS offload: the configured device's primary context and plain copies (optional).
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxPushCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxPopCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpy2D)(const CUDA_MEMCPY2D*) = nullptr;
  // Free device memory, for the size of an offloaded call's tiles (optional: without it, the
  // configured gpu.memory_mib or whole calls).
  CUresult (*cuMemGetInfo)(size_t*, size_t*) = nullptr;
  // Host BLAS offload through pinned staging buffers, copies on a stream of their own (optional:
  // without them the plain copies above are used).
  CUresult (*cuMemAllocHost)(void**, size_t) = nullptr;
  CUresult (*cuMemFreeHost)(void*) = nullptr;
  CUresult (*cuMemcpy2DAsync)(const CUDA_MEMCPY2D*, CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  // A tiled offload's kernels wait for their tile's copies (optional: without it, whole calls).
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  // First-sight benchmarks of the model's favourites (optional: without them, no benchmark).
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  // Kernels with more than 48 KiB of dynamic shared memory (wgmma) opt in (optional: without it
  // they are not used).
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  // wgmma kernels read A and B through tensor maps (optional, as above).
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) = nullptr;
};

// The loaded driver, or nullptr when libcuda.so.1 is missing or cuInit fails; the reason is then
// in driver_unavailable_reason(). Thread safe; loads once.
const CudaDriver* cuda_driver();
const std::string& driver_unavailable_reason();

// "CUDA_ERROR_...: description" for logs.
std::string cuda_error_text(CUresult r);

}  // namespace ptxblas::dispatch
