#include "model_choice.hpp"

#include "async_stages.hpp"

namespace ptxblas::dispatch {

float lowering_gain(const Plan& p) {
  constexpr float kVectorStagesGain = 0.124f;    // log2(1.09), §86
  constexpr float kRegisterStagesGain = 0.123f;  // log2(1.089), §98
  if (!(with_f32_vector_stages(p).config == p.config)) return kVectorStagesGain;
  if (!(with_register_stages(p).config == p.config)) return kRegisterStagesGain;
  return 0.f;
}

gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, const Plan& heuristic) {
  const gen::Tuning own = tuning_of(heuristic);
  const gen::Tuning best = picker.pick(p);
  const float gain =
      lowering_gain(heuristic) - lowering_gain(plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, best));
  return picker.pick(p, own, gain);
}

}  // namespace ptxblas::dispatch
