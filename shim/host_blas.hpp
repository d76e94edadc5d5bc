// The path every Fortran and CBLAS level-3 call takes once its arguments are valid: the offload
// policy (ptxblas.toml) decides whether it runs on the GPU (operands copied over, the routine's
// adaptor on the GPU engine, results copied back) or on the CPU BLAS loaded at run time — or,
// when none can be opened, the same adaptor on the plain-loop CPU engine.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "call_record.hpp"
#include "config.hpp"
#include "engine.hpp"
#include "host_offload.hpp"
#include "offload_tiles.hpp"

namespace ptxblas::shim {

struct HostCall {
  CallShape shape;
  const char* family;   // "gemm", "symm", ... (the ptxblas.toml offload key)
  const char* fortran;  // the CPU BLAS symbol, e.g. "dgemm_"
  gen::DataType data;
  double flops;         // for the offload policy
  std::vector<dispatch::HostOperand> operands;  // the matrices the body reads and writes
  void* cpu_fn = nullptr;  // the CPU routine, when not the CPU BLAS's `fortran` (LAPACK's)
  int gpu_steps = 1;       // host round trips of the GPU side, for the policy
  std::function<std::string()> gpu_note = nullptr;  // appended to an offloaded call's log line
  // The ways the offload may cut the call into tiles (dispatch/offload_split.hpp), made only for
  // calls that go to the GPU; none: whole calls only.
  std::function<std::vector<dispatch::TiledWork>()> tiles = nullptr;
};

// While one lives on a thread, that thread's host BLAS calls stay on the CPU: the host LAPACK
// factoring a panel inside an offloaded factorization calls the BLAS while the thread holds the
// device.
class CpuOnlyScope {
 public:
  CpuOnlyScope();
  ~CpuOnlyScope();
  CpuOnlyScope(const CpuOnlyScope&) = delete;
  CpuOnlyScope& operator=(const CpuOnlyScope&) = delete;
  static bool active();
};

// Per routine and type, filled on first use: its offload rule and CPU BLAS function.
struct QuickCpu {
  std::atomic<const host::OffloadRule*> rule{nullptr};
  std::atomic<void*> fn{nullptr};
};

// The CPU BLAS function `symbol` when a call of `flops` certainly stays on the CPU (its routine's
// rule is "never", or a threshold above flops) and no log line is wanted, the call then counted
// as forwarded; else nullptr, and the call takes run_host. Reference LAPACK makes ~2 such calls
// per column at small n, where the full path's ~0.5 us a call would double OpenBLAS's time.
// routine: the CPU function to return instead of the CPU BLAS's `symbol` (a LAPACK routine: the
// program's own).
void* quick_cpu(QuickCpu& q, const char* family, const char* symbol, double flops, void* routine = nullptr) noexcept;

// cpu(fn): call the CPU BLAS function fn. body(engine, views): the routine on an engine, with
// `operands` as views (device copies on the GPU, the host matrices on the CPU engine).
void run_host(const HostCall& call, const std::function<void(void*)>& cpu, const dispatch::HostBody& body) noexcept;

// Reports a bad argument the reference way: the process's xerbla_ (the program's own when it
// has one) with the routine's name (e.g. "DGEMM ") and the parameter number; without any
// xerbla_ in the process, the reference message on stderr.
void report_bad_argument(const char* name, int info) noexcept;

}  // namespace ptxblas::shim
