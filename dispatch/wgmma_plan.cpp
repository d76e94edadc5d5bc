#include "wgmma_plan.hpp"

#include <cstdint>

#include "cuda_driver.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {

bool wgmma_fits(const GemmCall& call, const DeviceInfo& dev) {
  if (dev.sm != 90) return false;
  if (call.data != gen::DataType::F16 && call.data != gen::DataType::BF16) return false;
  const CudaDriver* d = cuda_driver();
  if (!d || !d->cuFuncSetAttribute) return false;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return aligned(call.a) && aligned(call.b) && call.lda % 8 == 0 && call.ldb % 8 == 0;
}

// A wgmma slice pays a pipeline fill of several 64-deep K-steps before its first multiply: the
// oracle preferred slices of ~500-2000 on the deep-K shapes (perf notes §24: H ica-32 118
// slices 6.4 TFLOP/s, 235 slices 5.0; ica-64 32 slices 29.0, 235 slices 18.8).
constexpr std::int64_t kWgmmaMinSliceK = 512;

Plan plan_wgmma(const GemmCall& call, int multiprocessors) {
  return plan_over_tiles(gen::wgmma_catalog(), call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n,
                         call.k, multiprocessors, kWgmmaMinSliceK);
}

}  // namespace ptxblas::dispatch
