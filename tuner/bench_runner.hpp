// `ptxblas-tune bench`: times pending samples on the GPU with the generated kernels (through
// dispatch, with the sample's configuration forced) and appends measured rows to a dataset file.
// Resumable: rows already in the output are skipped. Stops cleanly at the time budget.
//
// Compiling is most of a sample's cost (a driver JIT takes ~70-90 ms on the H100, a load from
// the driver's on-disk JIT cache ~1 ms), so with --jit-workers N > 1 the kernels the pending
// samples need are first compiled by N processes (`ptxblas-tune jit-warm`, each its own CUDA
// context) through the same dispatch code, which leaves them in the driver's cache for the timing
// loop.
#pragma once

#include <string>
#include <vector>

#include "dataset.hpp"

namespace ptxblas::tuner {

struct BenchOptions {
  std::string samples;     // CSV from `sample`
  std::string out;         // dataset CSV to append to
  double minutes = 8.5;    // wall-clock budget (one call on the lent GPU is at most 10 minutes)
  double min_ms = 20;      // time each configuration for at least this long (then the median rep)
  int max_reps = 50;
  int jit_workers = 1;     // processes compiling the kernels ahead of the timing loop (1: none)
  // Time each tuning as dispatch runs it (dispatch_mirror.hpp as_dispatched) rather than as it
  // is: for re-measuring the rows dispatch lowers (`remeasure`). The JIT workers compile the
  // tunings as they are, so lowered kernels compile in the timing loop's first call.
  bool as_dispatched = false;
};

// Returns the number of rows measured; throws std::runtime_error when there is no GPU.
long run_bench(const BenchOptions& opt);

// Compiles the kernels `pending` needs in `workers` processes of this executable (`jit-warm`),
// which leaves them in the driver's on-disk JIT cache for a timing loop. Workers still running
// after `max_seconds` are stopped: what they did not compile compiles when timed.
void warm_jit_cache(const std::vector<Sample>& pending, int workers, double max_seconds);

// `ptxblas-tune jit-warm`: compile the kernels of samples shard, shard + shards, ... of the file
// in this process's own context. Returns the number compiled; throws when there is no GPU.
long run_jit_warm(const std::string& samples, int shard, int shards);

}  // namespace ptxblas::tuner
