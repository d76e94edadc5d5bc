#include "model_choice.hpp"

#include "async_stages.hpp"

namespace ptxblas::dispatch {

float lowering_gain(const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr float kVectorStagesGain = 0.124f;    // log2(1.09), §86
  constexpr float kRegisterStagesGain = 0.123f;  // log2(1.089), §98
  constexpr float kKSetsGain = 0.098f;           // log2(1.07), §92
  // Stages lowered (unsplit plans); a split's unbounded copies alone are not weighed (§145).
  if (with_f32_vector_stages(p).config.stages != p.config.stages) return kVectorStagesGain;
  if (!(with_register_stages(p).config == p.config)) return kRegisterStagesGain;
  if (!(with_k_sets(p, m, n, k).config == p.config)) return kKSetsGain;
  return 0.f;
}

gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, const Plan& heuristic) {
  const gen::Tuning own = tuning_of(heuristic);
  const gen::Tuning best = picker.pick(p);
  const float gain = lowering_gain(heuristic, p.m, p.n, p.k) -
                     lowering_gain(plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, best), p.m, p.n, p.k);
  return picker.pick(p, own, gain);
}

}  // namespace ptxblas::dispatch
