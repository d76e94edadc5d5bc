#include "offload_policy.hpp"

namespace ptxblas::host {

Placement place(const OffloadRule& rule, double flops, double bytes, double cpu_flops_per_second, bool gpu_ready,
                int steps) {
  if (rule.mode == OffloadRule::Mode::Never) return {Where::Cpu, "offload never"};
  if (!gpu_ready) return {Where::Cpu, "no GPU path"};
  if (rule.mode == OffloadRule::Mode::Always) return {Where::Gpu, "offload always"};
  // Below the threshold the fixed costs dominate; above it, the GPU's estimated time, copies
  // included, must beat the CPU's. Reference LAPACK's k = 64 trailing updates (~10 flops a byte)
  // stay on a 16-core AVX-512 CPU: there they took 10.7 s on OpenBLAS and 15.1 s offloaded.
  if (flops < rule.min_flops) return {Where::Cpu, "below the offload threshold"};
  const double gpu_s = steps * kGpuCallSeconds + bytes / kLinkBytesPerSecond + flops / kGpuFlopsPerSecond;
  if (gpu_s >= flops / cpu_flops_per_second) return {Where::Cpu, "transfers would cost more than the CPU"};
  return {Where::Gpu, "above the offload threshold"};
}

}  // namespace ptxblas::host
