#include "workspace_pool.hpp"

#include <cstdint>
#include <map>
#include <mutex>

namespace ptxblas::dispatch {

CUmemoryPool workspace_pool(const CudaDriver* d) {
  if (!d->cuMemPoolCreate || !d->cuMemPoolSetAttribute || !d->cuMemAllocFromPoolAsync) return nullptr;
  CUdevice dev = 0;
  if (d->cuCtxGetDevice(&dev) != CUDA_SUCCESS) return nullptr;
  static std::mutex mutex;
  static std::map<CUdevice, CUmemoryPool> pools;  // nullptr: creating one failed, do not retry
  std::lock_guard lock(mutex);
  if (auto it = pools.find(dev); it != pools.end()) return it->second;
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = dev;
  CUmemoryPool pool = nullptr;
  if (d->cuMemPoolCreate(&pool, &props) == CUDA_SUCCESS) {
    std::uint64_t keep = kWorkspaceKeepBytes;
    if (d->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS) {
      if (d->cuMemPoolDestroy) d->cuMemPoolDestroy(pool);
      pool = nullptr;
    }
  } else {
    pool = nullptr;
  }
  pools.emplace(dev, pool);
  return pool;
}

}  // namespace ptxblas::dispatch
