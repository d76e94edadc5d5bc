#include "dispatch_mirror.hpp"

#include "async_stages.hpp"
#include "untimed_plan.hpp"
#include "kernel_config.hpp"

namespace ptxblas::tuner {

namespace {

// Which operands' copies run in vectors (dispatch's vector_copies_fit on the tuner's buffers,
// whose addresses are 256-byte aligned: only the leading dimensions decide).
dispatch::VectorCopies vectors_fit(const model::Problem& p, const gen::KernelConfig& c) {
  const std::int64_t lda = p.op_a == gen::Op::N ? p.m : p.k, ldb = p.op_b == gen::Op::N ? p.k : p.n;
  return dispatch::vector_copies_fit(c, p.data, true, lda, true, ldb);
}

}  // namespace

dispatch::GemmCall call_of(const model::Problem& p) {
  dispatch::GemmCall call;
  call.data = p.data;
  call.op_a = p.op_a;
  call.op_b = p.op_b;
  call.m = p.m;
  call.n = p.n;
  call.k = p.k;
  return call;
}

dispatch::Plan as_dispatched(const model::Problem& p, const dispatch::Plan& given, int multiprocessors) {
  const dispatch::Plan plan = dispatch::with_k_sets(given, p.m, p.n, p.k);
  const dispatch::Plan lowered =
      dispatch::with_f32_wide_tile(dispatch::with_f32_vector_stages(plan), p.m, p.n, p.k, multiprocessors);
  if (lowered.config == plan.config) return plan;
  return vectors_fit(p, lowered.config).any() ? lowered : plan;
}

gen::KernelConfig launched_config(const model::Problem& p, const dispatch::Plan& plan) {
  gen::KernelConfig c = plan.config;
  const dispatch::VectorCopies v = vectors_fit(p, c);
  c.vec_copy_a = v.a;
  c.vec_copy_b = v.b;
  return c;
}

bool lowered_by_dispatch(const model::Problem& p, const gen::Tuning& t) {
  const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, t);
  // The wide tile applies only to plans the vector-stage form changed already: no SM count needed.
  return !(as_dispatched(p, plan, 0).config == plan.config);
}

gen::Tuning heuristic_fallback(const model::Problem& p, int multiprocessors, bool lowered) {
  const dispatch::Plan plan = dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, multiprocessors);
  return dispatch::tuning_of(lowered ? dispatch::with_async_stages(plan) : plan);
}

gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, int multiprocessors) {
  const dispatch::GemmCall call = call_of(p);
  return dispatch::tuning_of(
      dispatch::model_choice_plan(call, picker, dispatch::heuristic_for_model(call, picker, multiprocessors)));
}

gen::Tuning run_after_pick(const model::Problem& p, const gen::Tuning& choice, bool model_knows_async) {
  dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, choice);
  if (!model_knows_async) plan = dispatch::with_async_stages(plan);
  return dispatch::tuning_of(dispatch::with_register_stages(plan));
}

gen::Tuning dispatched_tuning(model::Picker* picker, const model::Problem& p, int multiprocessors) {
  return dispatch::tuning_of(dispatch::with_register_stages(dispatch::untimed_choice(call_of(p), picker, multiprocessors)));
}

}  // namespace ptxblas::tuner
