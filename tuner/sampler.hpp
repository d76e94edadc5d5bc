// ISAAC's generative model of configurations: one independent categorical distribution per tuning
// parameter, counts starting at alpha (a Dirichlet prior), learned from a short uniform phase
// by counting the values of the legal draws. Most of its draws are legal; uniform draws mostly
// are not.
#pragma once

#include <array>
#include <random>
#include <vector>

#include "features.hpp"
#include "param_space.hpp"

namespace ptxblas::tuner {

gen::Tuning draw_uniform(std::mt19937_64& rng);

class CategoricalSampler {
 public:
  explicit CategoricalSampler(double alpha = 1.0);

  // Draws `draws` uniform configurations for type t and counts the values of the legal ones.
  void learn(gen::DataType t, int draws, std::mt19937_64& rng, const gen::Limits& lim = {});
  gen::Tuning draw(std::mt19937_64& rng) const;
  double probability(int param, std::size_t value_index) const;

 private:
  std::array<std::vector<double>, gen::kTuningParams> counts_;
};

// Fraction of `draws` draws from `draw` that are legal (and not pruned) for type t.
template <class Draw>
double acceptance_rate(Draw&& draw, gen::DataType t, int draws, std::mt19937_64& rng, const gen::Limits& lim = {}) {
  int ok = 0;
  for (int i = 0; i < draws; ++i) ok += gen::why_excluded(t, draw(rng), lim).empty() ? 1 : 0;
  return draws ? static_cast<double>(ok) / draws : 0.0;
}

// Problems log-uniform in M, N in [1, max_mn] and K in [1, max_k], every type and op pair; those
// under min_flops (2MNK) are drawn again (a round aimed at large problems, where few log-uniform
// draws land).
model::Problem draw_problem(std::mt19937_64& rng, double min_flops = 0, std::int64_t max_mn = 65536,
                            std::int64_t max_k = 200000);

}  // namespace ptxblas::tuner
