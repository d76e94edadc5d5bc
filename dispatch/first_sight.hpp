// The first-sight benchmark (ptxblas.toml dispatch.benchmark_top_k, off by default): the first
// call of a new shape times the heuristic's plan and the model's k favourites on the call's own
// A and B (C replaced by a scratch matrix, beta = 0), on the call's stream, and the fastest is
// remembered in memory and on disk (decision_store.hpp). Where the model's ranking is wrong
// (perf notes §19: its D picks for N = 16), the measurement overrides it, at the price of one
// synchronisation and a few runs of the GEMM on that first call.
#pragma once

#include <optional>
#include <vector>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {

// Index of the fastest plan, or nullopt when timing is not possible (the stream is being
// captured into a graph, C is over 512 MiB, an entry point is missing, scratch allocation or every
// launch failed); the caller then runs its usual pick. Leaves C and the scalars untouched.
std::optional<std::size_t> fastest_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev,
                                        const GemmCall& call, const std::vector<Plan>& plans);

// The process's k (0: off): ptxblas.toml's dispatch.benchmark_top_k unless
// ptxblas_set_benchmark_top_k overrode it.
int benchmark_top_k();
void set_benchmark_top_k(int k);  // < 0: back to the configuration's value

}  // namespace ptxblas::dispatch
