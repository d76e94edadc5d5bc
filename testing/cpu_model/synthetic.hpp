// A synthetic benchmark: "measured" speed as a smooth function of problem and configuration, so
// training and picking can be checked without a GPU.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "dataset.hpp"
#include "sampler.hpp"

namespace modeltest {

using namespace ptxblas;

// Prefers tiles close to the problem size and kg that fills ~132 SMs; always > 0.
inline double synthetic_tflops(const model::Problem& p, const gen::Tuning& t) {
  const double tiles = std::ceil(static_cast<double>(p.m) / t.ml) * std::ceil(static_cast<double>(p.n) / t.nl) * t.kg;
  const double fill = std::min(1.0, tiles / 132.0);
  const double reuse = std::log2(static_cast<double>(t.ms * t.ns)) / 8.0 + 0.5;
  const double waste = (std::ceil(static_cast<double>(p.m) / t.ml) * t.ml) / static_cast<double>(p.m);
  return 40.0 * fill * reuse / waste + 0.1;
}

inline std::vector<tuner::Sample> synthetic_dataset(int rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  tuner::CategoricalSampler s;
  s.learn(gen::DataType::F32, 2000, rng);
  std::vector<tuner::Sample> out;
  while (static_cast<int>(out.size()) < rows) {
    tuner::Sample x;
    x.device_key = "synthetic-sm90";
    x.problem = tuner::draw_problem(rng, 0, 8192, 8192);
    x.problem.data = gen::DataType::F32;
    x.tuning = s.draw(rng);
    if (!gen::why_excluded(x.problem.data, x.tuning).empty()) continue;
    x.tflops = synthetic_tflops(x.problem, x.tuning);
    out.push_back(x);
  }
  return out;
}

}  // namespace modeltest
