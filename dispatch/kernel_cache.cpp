#include "kernel_cache.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "cuda_driver.hpp"
#include "model_file.hpp"
#include "operand_pack_ptx.hpp"
#include "simt_gemm_ptx.hpp"

namespace ptxblas::dispatch {
namespace {

// A GEMM kernel's key: the context and the configuration's fields (gen::config_key).
struct GemmKey {
  CUcontext ctx = nullptr;
  gen::ConfigKey config;
  bool operator==(const GemmKey&) const = default;
};

struct GemmKeyHash {
  std::size_t operator()(const GemmKey& k) const {
    return gen::ConfigKeyHash{}(k.config) ^ std::hash<const void*>{}(k.ctx) * 0x9e3779b97f4a7c15ULL;
  }
};

std::shared_mutex g_mutex;
std::map<std::pair<CUcontext, std::string>, CUfunction> g_kernels;
std::unordered_map<GemmKey, GemmKernel, GemmKeyHash> g_gemm_kernels;  // nodes: pointers stay valid
std::map<CUcontext, DeviceInfo> g_devices;  // never erased: cached_device_info hands out pointers

// PTX -> cubin through the driver's JIT (which also keeps its own on-disk cache), into the
// current context.
template <class Make>
CUfunction compile(Make&& make, std::string& error, gen::GeneratedKernel* made = nullptr) {
  const CudaDriver* d = cuda_driver();
  gen::GeneratedKernel local;
  gen::GeneratedKernel& k = made ? *made : local;
  try {
    k = make();
  } catch (const std::exception& e) {
    error = e.what();
    return nullptr;
  }
  char log[4096] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(sizeof(log))};
  CUmodule mod = nullptr;
  if (const CUresult r = d->cuModuleLoadDataEx(&mod, k.ptx.c_str(), 2, opts, vals); r != CUDA_SUCCESS) {
    error = "JIT of " + k.name + " failed: " + cuda_error_text(r) + " " + log;
    return nullptr;
  }
  CUfunction fn = nullptr;
  if (const CUresult r = d->cuModuleGetFunction(&fn, mod, k.name.c_str()); r != CUDA_SUCCESS) {
    error = "kernel " + k.name + " missing from its module: " + cuda_error_text(r);
    return nullptr;
  }
  if (k.dynamic_smem > 48 * 1024) {
    const CUresult r = d->cuFuncSetAttribute
                           ? d->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.dynamic_smem)
                           : CUDA_ERROR_NOT_SUPPORTED;
    if (r != CUDA_SUCCESS) {
      error = "kernel " + k.name + " cannot have " + std::to_string(k.dynamic_smem) +
              " bytes of shared memory: " + cuda_error_text(r);
      return nullptr;
    }
  }
  return fn;
}

template <class Make>
CUfunction cached(CUcontext ctx, std::string name, Make&& make, std::string& error) {
  auto key = std::make_pair(ctx, std::move(name));
  {
    std::shared_lock lock(g_mutex);
    if (auto it = g_kernels.find(key); it != g_kernels.end()) return it->second;
  }
  // Compile under the exclusive lock: a second thread asking for the same kernel waits for it
  // instead of compiling it twice.
  std::unique_lock lock(g_mutex);
  if (auto it = g_kernels.find(key); it != g_kernels.end()) return it->second;
  CUfunction fn = compile(make, error);
  if (fn) g_kernels.emplace(std::move(key), fn);
  return fn;
}

}  // namespace

const DeviceInfo* cached_device_info(CUcontext ctx, std::string& error) {
  {
    std::shared_lock lock(g_mutex);
    if (auto it = g_devices.find(ctx); it != g_devices.end()) return &it->second;
  }
  const CudaDriver* d = cuda_driver();
  CUdevice dev = 0;
  int major = 0, minor = 0, sms = 0, smem_optin = 0;
  CUresult r = d->cuCtxGetDevice(&dev);
  if (r == CUDA_SUCCESS) r = d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (r == CUDA_SUCCESS) r = d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (r == CUDA_SUCCESS) r = d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  if (r == CUDA_SUCCESS)
    r = d->cuDeviceGetAttribute(&smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  char name[256] = {};
  if (r == CUDA_SUCCESS) r = d->cuDeviceGetName(name, sizeof name - 1, dev);
  if (r != CUDA_SUCCESS) {
    error = "device query failed: " + cuda_error_text(r);
    return nullptr;
  }
  DeviceInfo info{10 * major + minor, sms, name, model::device_key(name, 10 * major + minor), smem_optin};
  std::unique_lock lock(g_mutex);
  // The first entry stays (never erased or overwritten), so the pointer holds for the process.
  return &g_devices.try_emplace(ctx, std::move(info)).first->second;
}

bool device_info(CUcontext ctx, DeviceInfo& out, std::string& error) {
  const DeviceInfo* info = cached_device_info(ctx, error);
  if (info) out = *info;
  return info != nullptr;
}

const GemmKernel* cached_kernel(CUcontext ctx, const gen::KernelConfig& config, int sm, std::string& error) {
  const std::optional<gen::ConfigKey> config_key = gen::config_key(config);
  if (!config_key) {
    error = "configuration outside the kernel cache's ranges: " + gen::kernel_name(config);
    return nullptr;
  }
  const GemmKey key{ctx, *config_key};
  {
    std::shared_lock lock(g_mutex);
    if (auto it = g_gemm_kernels.find(key); it != g_gemm_kernels.end()) return &it->second;
  }
  // Compiled under the exclusive lock, as in cached().
  std::unique_lock lock(g_mutex);
  if (auto it = g_gemm_kernels.find(key); it != g_gemm_kernels.end()) return &it->second;
  gen::GeneratedKernel made;
  CUfunction fn = compile([&] { return gen::generate_simt_gemm(config, sm); }, error, &made);
  if (!fn) return nullptr;
  GemmKernel& k = g_gemm_kernels[key];
  k = GemmKernel{fn, made.name, static_cast<unsigned>(made.dynamic_smem)};
  return &k;
}

CUfunction cached_reduce_kernel(CUcontext ctx, gen::DataType data, bool scalar_f16, int sm, std::string& error) {
  return cached(
      ctx, gen::splitk_reduce_name(data, scalar_f16),
      [&] { return gen::generate_splitk_reduce(data, scalar_f16, sm); }, error);
}

CUfunction cached_helper(CUcontext ctx, const gen::MatrixHelper& helper, int sm, std::string& error) {
  return cached(
      ctx, gen::helper_name(helper), [&] { return gen::generate_matrix_helper(helper, sm); }, error);
}

CUfunction cached_inverse(CUcontext ctx, gen::DataType data, bool lower, bool unit, int width, int sm,
                          std::string& error) {
  return cached(
      ctx, gen::inverse_name(data, lower, unit, width),
      [&] { return gen::generate_triangular_inverse(data, lower, unit, width, sm); }, error);
}

CUfunction cached_doubling(CUcontext ctx, gen::DataType data, bool lower, int half, int sm, std::string& error) {
  return cached(
      ctx, gen::doubling_name(data, lower, half), [&] { return gen::generate_inverse_doubling(data, lower, half, sm); },
      error);
}

CUfunction cached_row_swaps(CUcontext ctx, gen::DataType data, int sm, std::string& error) {
  return cached(ctx, gen::row_swaps_name(data), [&] { return gen::generate_row_swaps(data, sm); }, error);
}

CUfunction cached_lu_columns(CUcontext ctx, gen::DataType data, int sm, std::string& error) {
  return cached(ctx, gen::lu_columns_name(data), [&] { return gen::generate_lu_columns(data, sm); }, error);
}

CUfunction cached_operand_pack(CUcontext ctx, int sm, std::string& error) {
  return cached(ctx, gen::operand_pack_name(), [&] { return gen::generate_operand_pack(sm); }, error);
}

}  // namespace ptxblas::dispatch
