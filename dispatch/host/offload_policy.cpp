#include "offload_policy.hpp"

namespace ptxblas::host {

Placement place(const OffloadRule& rule, double flops, double bytes, bool gpu_ready) {
  if (rule.mode == OffloadRule::Mode::Never) return {Where::Cpu, "offload never"};
  if (!gpu_ready) return {Where::Cpu, "no GPU path"};
  if (rule.mode == OffloadRule::Mode::Always) return {Where::Gpu, "offload always"};
  // Below the threshold the transfers and launch latency dominate; above it, also require the
  // copies (~20 GB/s effective) to take less than the CPU would need (~1 TFLOP/s assumed).
  if (flops < rule.min_flops) return {Where::Cpu, "below the offload threshold"};
  const double copy_s = bytes / 20e9, cpu_s = flops / 1e12;
  if (copy_s > cpu_s) return {Where::Cpu, "transfers would cost more than the CPU"};
  return {Where::Gpu, "above the offload threshold"};
}

}  // namespace ptxblas::host
