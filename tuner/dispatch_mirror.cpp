#include "dispatch_mirror.hpp"

#include "async_stages.hpp"
#include "kernel_config.hpp"

namespace ptxblas::tuner {

dispatch::Plan as_dispatched(const model::Problem& p, const dispatch::Plan& plan) {
  const dispatch::Plan lowered = dispatch::with_f32_vector_stages(plan);
  if (lowered.config.stages == plan.config.stages) return plan;
  const auto [va, vb] = dispatch::copy_vectors(lowered.config);
  const std::int64_t es = gen::storage_bytes(p.data);
  const std::int64_t lda = p.op_a == gen::Op::N ? p.m : p.k, ldb = p.op_b == gen::Op::N ? p.k : p.n;
  const bool a = va > 1 && lda * es % 16 == 0, b = vb > 1 && ldb * es % 16 == 0;
  return a || b ? lowered : plan;
}

bool lowered_by_dispatch(const model::Problem& p, const gen::Tuning& t) {
  const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, t);
  return !(as_dispatched(p, plan).config == plan.config);
}

gen::Tuning heuristic_fallback(const model::Problem& p, int multiprocessors, bool lowered) {
  const dispatch::Plan plan = dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, multiprocessors);
  return dispatch::tuning_of(lowered ? dispatch::with_async_stages(plan) : plan);
}

gen::Tuning run_after_pick(const model::Problem& p, const gen::Tuning& choice, bool model_knows_async) {
  if (model_knows_async) return choice;
  return dispatch::tuning_of(dispatch::with_async_stages(
      dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, choice)));
}

}  // namespace ptxblas::tuner
