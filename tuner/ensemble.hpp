// Several trained networks of the same shape as one network whose output is their mean: the
// first layers side by side (inputs shared), the hidden layers block-diagonal (grouped), the
// output layer the members' output weights over their count. Averaging members trained from
// different seeds shrinks the error of any one of them, most where they disagree: the confident
// overestimates that an argmax over ~10^5 candidates finds (docs/perf-notes.md §82).
#pragma once

#include <vector>

#include "mlp.hpp"

namespace ptxblas::tuner {

// Members must be dense and of equal widths, ending in one output. Throws std::invalid_argument.
model::Mlp ensemble_of(const std::vector<model::Mlp>& members);

}  // namespace ptxblas::tuner
