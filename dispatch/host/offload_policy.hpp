// Where a host-memory BLAS3 call runs: on the GPU when its estimated time there, transfers
// included, beats the CPU BLAS (ptxblas.toml can force either side per routine), else on the CPU.
#pragma once

#include <string>

#include "config.hpp"

namespace ptxblas::host {

enum class Where { Cpu, Gpu };

struct Placement {
  Where where = Where::Cpu;
  std::string why;  // for the log line
};

// What the estimate assumes of the GPU side, measured on the H100 machine (perf-notes §13):
// copies through pinned staging at 30-34 GB/s each way, ~0.3 ms of fixed cost per offloaded call
// (copies of small operands, launches, synchronisation), and a rate far above any CPU's.
inline constexpr double kLinkBytesPerSecond = 30e9;
inline constexpr double kGpuCallSeconds = 3e-4;
inline constexpr double kGpuFlopsPerSecond = 30e12;

// flops: the routine's arithmetic; bytes: what would cross PCIe both ways; cpu_flops_per_second:
// the CPU BLAS's rate for this type (ptxblas.toml's cpu.gflops); gpu_ready: a device path exists
// for this call (driver, context, offload implemented); steps: the host round trips the GPU side
// makes (a factorization's panels), each costing kGpuCallSeconds.
Placement place(const OffloadRule& rule, double flops, double bytes, double cpu_flops_per_second, bool gpu_ready,
                int steps = 1);

}  // namespace ptxblas::host
