// One shape end to end: operands, warm-up, timing of both implementations in alternating blocks,
// then the correctness check.
#pragma once

#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "output.hpp"
#include "suite.hpp"
#include "timing.hpp"

namespace bench {

struct RunOptions {
  int reps = 0;           // per implementation; 0: about budget_ms each, 5..200
  double budget_ms = 200;
  int warmup = 2;
  double oracle_ms = 0;  // time budget of the oracle search per shape; 0: no oracle column
  std::string oracle_log;  // when set, every oracle candidate's time is appended to this CSV
  std::vector<std::string> oracle_specs;  // when set, the oracle's candidates instead of its own list
  int multiprocessors = 132;
  bool beta_one = false;  // timed calls (dispatcher, cuBLAS, oracle) with beta = 1; checks keep beta = 0
};

struct Bench {
  cublasHandle_t handle;
  cudaStream_t stream;
  CallTimer& timer;
  std::size_t l2_bytes;
  std::uint64_t rng;
  RunOptions opt;
};

Result run_shape(Bench& b, const Shape& s);

}  // namespace bench
