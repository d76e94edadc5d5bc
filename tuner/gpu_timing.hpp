// Timing on the GPU for the tuner's benchmarks (`bench`, `eval`): operand buffers, a median of
// event-timed calls, and one generated-kernel plan run through dispatch.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "features.hpp"
#include "gemm_call.hpp"

namespace ptxblas::tuner {

void check(cudaError_t e, const char* what);  // throws std::runtime_error naming `what`

double flops_of(const model::Problem& p);  // 2mnk (8mnk complex)

// Zero-filled A (m x k or k x m), B and C (m x n) of p's type, column-major, minimal leading dims.
struct Buffers {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  explicit Buffers(const model::Problem& p);
  ~Buffers();
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

struct TimingOptions {
  double min_ms = 20;  // a run of calls at least this long (at least 3; one call if it takes 3x as long)
  int max_reps = 50;
};

// Median seconds of call() over a run of calls enqueued back to back on stream (events between
// them, one synchronisation at the end, as ptxblas-bench times), after a warm-up call.
double median_seconds(const std::function<void()>& call, cudaStream_t stream, const TimingOptions& opt);

// Median seconds per call of `plan` on p, or a negative value (and `why`) when dispatch refused it.
double time_plan(const model::Problem& p, const dispatch::Plan& plan, const Buffers& buf, cudaStream_t stream,
                 const TimingOptions& opt, std::string& why);

}  // namespace ptxblas::tuner
