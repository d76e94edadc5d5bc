// The configurations `sample` benchmarks for one problem. The runtime ranks configurations of one
// problem against each other, so each problem gets several: the heuristic's pick, a few one-step
// neighbours of it (what the good region looks like up close) and draws of the categorical model
// (the rest of the space). With ~10^4 rows instead of ISAAC's ~10^6, rows near the top are what
// the model most needs to order right.
#pragma once

#include <optional>
#include <random>
#include <vector>

#include "features.hpp"
#include "param_space.hpp"
#include "picker.hpp"
#include "sampler.hpp"

namespace ptxblas::tuner {

// The heuristic's pick for `p` on a device of `sms` SMs as a point of the tuning space (its K
// split rounded down to a listed kg); nullopt when its tile is outside the space.
std::optional<gen::Tuning> heuristic_tuning(const model::Problem& p, int sms);

// `t` with one parameter redrawn, in the space and fitting `p`; nullopt if `tries` draws fail.
std::optional<gen::Tuning> neighbour(const gen::Tuning& t, const model::Problem& p, std::mt19937_64& rng,
                                     int tries = 64);

struct ConfigMix {
  int per_problem = 12;  // configurations per problem in all
  int neighbours = 4;    // of which one-step neighbours of the heuristic's pick
  int model_top = 0;     // and, with a model, its best-predicted few (where it is most wrong, it
                         // is wrong upwards: measuring them is what corrects it)
  bool stage_variants = false;  // and each of those (and the heuristic's pick) with every other
                                // stage count of the space: pairs that differ in stages alone
};

// Distinct configurations for `p`: the heuristic's pick (when in the space), its neighbours, then
// draws from `sampler` (which learned p's type) until `mix.per_problem` or 50x as many draws.
// With `picker`, its `mix.model_top` best-predicted configurations come right after the heuristic's;
// with `mix.stage_variants`, each of these is followed by its legal variants in stages.
std::vector<gen::Tuning> problem_configs(const model::Problem& p, const CategoricalSampler& sampler,
                                         const ConfigMix& mix, int sms, std::mt19937_64& rng,
                                         model::Picker* picker = nullptr);

}  // namespace ptxblas::tuner
