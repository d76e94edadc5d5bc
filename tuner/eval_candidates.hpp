// `ptxblas-tune eval`'s inputs, kept free of CUDA so CI checks them: held-out shapes and, per
// shape, the candidates the brute-force oracle times (the model's pick first).
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "picker.hpp"

namespace ptxblas::tuner {

struct EvalShape {
  model::Problem problem;
  std::string name;
};

// Lines "TYPE TRANSA TRANSB M N K [NAME]" (the bench suite format; TYPE one of S D C Z H B, '#'
// starts a comment). A malformed line throws std::runtime_error naming its line number.
std::vector<EvalShape> read_eval_shapes(std::istream& in);

// The model's pick, then its next best `top` by predicted speed, then `random` more drawn
// uniformly from the rest of the pruned space; only candidates that fit p, no repeats.
std::vector<gen::Tuning> eval_candidates(model::Picker& picker, const model::Problem& p, int top, int random,
                                         std::uint64_t seed);

}  // namespace ptxblas::tuner
