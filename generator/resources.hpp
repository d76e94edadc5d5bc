// Legality of a configuration and the resources its kernel uses, computed without compiling.
// CI checks these predictions against what `ptxas -v` reports (testing/cpu_generator).
#pragma once

#include <string>

#include "kernel_config.hpp"

namespace ptxblas::gen {

struct Limits {  // per-device hardware limits (defaults: sm_80 / sm_90)
  int max_threads_per_block = 1024;
  int max_static_smem = 48 * 1024;
  int max_dynamic_smem = 227 * 1024;  // per block, opted in (sm_90)
  int max_regs_per_thread = 255;
  int regs_per_sm = 65536;
};

struct Resources {
  int threads = 0;
  int smem_bytes = 0;      // exact: the kernel's static shared arrays (Wgmma: its dynamic ones)
  int regs_predicted = 0;  // ptxas agrees within register_margin()
};

// For sm_90 unless told (sm_80 needs fewer registers for c64 fragments: no m16n8k8 there).
Resources predict_resources(const KernelConfig& c, int sm = 90);

// f64 mma kernels with cp.async stages may load the next K-step's first fragments before the
// current step's last DMMAs (simt_gemm_ptx.cpp; perf notes §95-§96): an even number of 8-deep
// slices per step, no KL or KS, and warp tiles of at least 8 DMMAs a slice, where it was measured
// to gain (A/B on the H100: 32x32 warp tiles D linpack-1024 +20%, deepbench-128 +5-7%; 32x16
// ones D deepbench-f-64 -4%, 16x16 ones within 2%). Not c64: ptxas needs 255 registers and
// spills on 32x64x16 tiles.
bool cross_step_fragments(const KernelConfig& c);

// Allowed distance between predicted and ptxas-reported registers per thread.
int register_margin(const Resources& r);

// Empty when legal, else one line saying why not.
std::string why_illegal(const KernelConfig& c, const Limits& lim = {});
// The same without allocating: nullptr when legal (for checks over the whole tuning space).
const char* illegal_reason(const KernelConfig& c, const Limits& lim = {});

}  // namespace ptxblas::gen
