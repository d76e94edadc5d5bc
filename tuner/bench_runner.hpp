// `ptxblas-tune bench`: times pending samples on the GPU with the generated kernels (through
// dispatch, with the sample's configuration forced) and appends measured rows to a dataset file.
// Resumable: rows already in the output are skipped. Stops cleanly at the time budget.
#pragma once

#include <string>

namespace ptxblas::tuner {

struct BenchOptions {
  std::string samples;     // CSV from `sample`
  std::string out;         // dataset CSV to append to
  double minutes = 8.5;    // wall-clock budget (one call on the lent GPU is at most 10 minutes)
  double min_ms = 20;      // time each configuration for at least this long (then the median rep)
  int max_reps = 50;
};

// Returns the number of rows measured; throws std::runtime_error when there is no GPU.
long run_bench(const BenchOptions& opt);

}  // namespace ptxblas::tuner
