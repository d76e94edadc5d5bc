#include "model_choice.hpp"

#include "async_stages.hpp"

namespace ptxblas::dispatch {

float lowering_gain(const Plan& p) {
  constexpr float kVectorStagesGain = 0.124f;  // log2(1.09)
  return with_f32_vector_stages(p).config == p.config ? 0.f : kVectorStagesGain;
}

gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, const Plan& heuristic) {
  const gen::Tuning own = tuning_of(heuristic);
  const gen::Tuning best = picker.pick(p);
  const float gain =
      lowering_gain(heuristic) - lowering_gain(plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, best));
  return picker.pick(p, own, gain);
}

}  // namespace ptxblas::dispatch
