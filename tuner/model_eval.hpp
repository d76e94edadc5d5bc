// `ptxblas-tune eval`: on held-out shapes, what dispatch runs with the model (its pick, or the
// heuristic's where the model does not predict a clear win: Picker::pick with a fallback) against
// the best of a brute-force set of candidates (the oracle: the model's top few, the built-in
// heuristic's pick and random points of the pruned space) and against cuBLAS, all timed on the
// GPU. Several models can be compared against one oracle: their picks join the candidates.
// The fastest of ~70 noisy timings is itself an optimistic estimate, so a confirmation pass times
// the finalists (the first pass's fastest, every model's pick, the heuristic's) again, in turn,
// and the ratios are read from it. Writes testing/reports/h100-model-eval.csv's format (first
// model):
//   type,transa,transb,m,n,k,model_tflops,oracle_tflops,cublas_tflops,model_config,oracle_config
// and, with more than one model, `<out>.models.csv`: one row per (shape, model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_timing.hpp"

namespace ptxblas::tuner {

struct EvalOptions {
  std::vector<std::string> model_dirs;  // trained or exported models (model.toml + weights); the
                                        // first one's candidates and CSV, the others' picks
  std::string shapes;     // held-out shapes, bench suite format
  std::string out;        // CSV to write
  int top = 8;            // the model's next best candidates the oracle also times
  int random = 56;        // random candidates of the pruned space
  int first_sight_k = 4;  // also report the best of the heuristic's pick and the model's k best
                          // (what dispatch.benchmark_top_k = k would run); <= top
  std::uint64_t seed = 1;
  double minutes = 8.5;   // wall-clock budget; shapes left over are reported, not timed
  int jit_workers = 1;    // processes compiling every candidate ahead of the timing (1: none)
  int confirm_rounds = 3; // finalists re-timed this many times in turn; each one's median counts
                          // (0: the first pass's timings, as before)
  TimingOptions timing;
};

// Rows written; throws std::runtime_error without a GPU or with an unreadable model or shapes file.
long run_eval(const EvalOptions& opt);

}  // namespace ptxblas::tuner
