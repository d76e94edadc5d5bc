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

// flops: the routine's arithmetic; bytes: what would cross PCIe both ways; gpu_ready: a device
// path exists for this call (driver, context, offload implemented).
Placement place(const OffloadRule& rule, double flops, double bytes, bool gpu_ready);

}  // namespace ptxblas::host
