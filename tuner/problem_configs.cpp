#include "problem_configs.hpp"

#include <algorithm>

#include "gemm_call.hpp"

namespace ptxblas::tuner {
namespace {

bool usable(const model::Problem& p, const gen::Tuning& t) {
  return gen::why_excluded(p.data, t).empty() && model::candidate_fits(p, t);
}

}  // namespace

std::optional<gen::Tuning> heuristic_tuning(const model::Problem& p, int sms) {
  const dispatch::Plan plan = dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, sms);
  gen::Tuning t = dispatch::tuning_of(plan);
  t.kg = 1;
  for (int v : gen::tuning_values()[6])
    if (v <= plan.kg) t.kg = v;
  if (usable(p, t)) return t;
  return std::nullopt;
}

std::optional<gen::Tuning> neighbour(const gen::Tuning& t, const model::Problem& p, std::mt19937_64& rng, int tries) {
  const auto& values = gen::tuning_values();
  std::uniform_int_distribution<int> param(0, gen::kTuningParams - 1);
  for (int i = 0; i < tries; ++i) {
    const int which = param(rng);
    const auto& vs = values[static_cast<std::size_t>(which)];
    std::uniform_int_distribution<std::size_t> pick(0, vs.size() - 1);
    gen::Tuning n = t;
    gen::set_tuning_value(n, which, vs[pick(rng)]);
    if (!(n == t) && usable(p, n)) return n;
  }
  return std::nullopt;
}

std::vector<gen::Tuning> problem_configs(const model::Problem& p, const CategoricalSampler& sampler,
                                         const ConfigMix& mix, int sms, std::mt19937_64& rng,
                                         model::Picker* picker) {
  std::vector<gen::Tuning> out;
  auto add = [&](const gen::Tuning& t) {
    if (static_cast<int>(out.size()) < mix.per_problem && std::find(out.begin(), out.end(), t) == out.end())
      out.push_back(t);
  };
  auto add_with_stages = [&](const gen::Tuning& t) {
    add(t);
    if (!mix.stage_variants) return;
    for (int s : gen::tuning_values()[8]) {
      gen::Tuning v = t;
      v.stages = s;
      if (usable(p, v)) add(v);
    }
  };
  const auto h = heuristic_tuning(p, sms);
  if (h) add_with_stages(*h);
  if (picker && mix.model_top > 0)
    for (const gen::Tuning& t : picker->top(p, mix.model_top)) add_with_stages(t);
  if (h) {
    for (int i = 0; i < mix.neighbours; ++i)
      if (const auto n = neighbour(*h, p, rng)) add(*n);
  }
  for (int draws = 0; static_cast<int>(out.size()) < mix.per_problem && draws < 50 * mix.per_problem; ++draws) {
    const gen::Tuning t = sampler.draw(rng);
    if (usable(p, t)) add(t);
  }
  return out;
}

}  // namespace ptxblas::tuner
