// Several trained networks of the same shape as one network whose output is their mean: the
// first layers side by side (inputs shared), the hidden layers block-diagonal (grouped), the
// output layer the members' output weights over their count. Averaging members trained from
// different seeds shrinks the error of any one of them, most where they disagree: the confident
// overestimates that an argmax over ~10^5 candidates finds (docs/perf-notes.md §82).
#pragma once

#include <vector>

#include "mlp.hpp"
#include "model_file.hpp"

namespace ptxblas::tuner {

// Members must be dense and of equal widths, ending in one output. Throws std::invalid_argument.
model::Mlp ensemble_of(const std::vector<model::Mlp>& members);

// Models trained on the same rows (one normalisation, one feature list, one device key), possibly
// with different losses or seeds, as one ensemble of all their members: its prediction is the
// mean of theirs weighted by their member counts. The training record lists theirs; the limits
// (max_flops, max_stages) are the widest. Throws std::invalid_argument on a mismatch.
model::Model merge_models(const std::vector<model::Model>& models);

}  // namespace ptxblas::tuner
