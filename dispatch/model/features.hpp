// What the model sees of one (problem, configuration) pair: log2 sizes, one-hot type and ops, log2
// of every tuning parameter (ISAAC's log features). The model file stores each feature's mean and
// standard deviation; normalisation happens in the picker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_config.hpp"
#include "param_space.hpp"

namespace ptxblas::model {

struct Problem {
  gen::DataType data = gen::DataType::F32;
  gen::Op op_a = gen::Op::N, op_b = gen::Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  bool operator==(const Problem&) const = default;
};

// Names of the features in order (also written to the model file, and checked when loading).
const std::vector<std::string>& feature_names();
int feature_count();

// The problem's features come first, then the configuration's (gen::kTuningParams of them), then
// kPairFeatures that need both: log2 of the blocks launched, log2 of the K depth of one slice,
// and the fraction of the launched tiles' area that is inside C. They say directly what the
// network would otherwise have to learn from differences of logs (how full the machine is, how
// long each block runs, how much of the work is wasted at the edges).
inline constexpr int kProblemFeatures = 15;
inline constexpr int kPairFeatures = 3;

// Writes feature_count() values at out.
void write_features(const Problem& p, const gen::Tuning& t, float* out);
// The two parts alone (the picker reuses a configuration's part across problems).
void write_problem_features(const Problem& p, float* out);
void write_tuning_features(const gen::Tuning& t, float* out);
void write_pair_features(const Problem& p, const gen::Tuning& t, float* out);

}  // namespace ptxblas::model
