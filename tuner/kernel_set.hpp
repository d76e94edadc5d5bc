// Which kernels a set of samples runs, so that they can be compiled ahead of timing (the JIT
// workers of `ptxblas-tune bench`).
#pragma once

#include <string>
#include <vector>

#include "dataset.hpp"

namespace ptxblas::tuner {

// The kernels of a sample's plan: its GEMM kernel's name, plus " + " and the split-K reduction's
// name when the plan splits K.
std::string kernels_of(const Sample& s);

// One sample per distinct kernels_of(), in first-seen order.
std::vector<Sample> one_sample_per_kernel(const std::vector<Sample>& samples);

}  // namespace ptxblas::tuner
