// The plan dispatch makes for a call when nothing is timed at first sight (dispatch's default):
// the heuristic's narrow or skinny plan, else the model's choice against the heuristic's plan
// (model_choice), else the heuristic's plan; a plain call's K split then rebalanced (balanced,
// one-wave deep and part-round splits) and f64's small split tiles given K sets. No driver, no
// GPU: the tuner's eval runs the same function, so it times what an application gets.
#pragma once

#include "gemm_call.hpp"
#include "picker.hpp"

namespace ptxblas::dispatch {

// The plan of `t` for the call's problem.
Plan plan_of(const GemmCall& call, const gen::Tuning& t);

// The heuristic's plan as a model is weighed against it: lowered to cp.async stages
// (with_async_stages) for a model that measured them, as planned for an older one.
Plan heuristic_for_model(const GemmCall& call, const model::Picker& picker, int multiprocessors);

// The model's choice for the call against `heuristic` (heuristic_for_model's plan): its pick
// where model_choice takes it, re-ranked for a banded step (band_choice), else `heuristic`.
Plan model_choice_plan(const GemmCall& call, model::Picker& picker, const Plan& heuristic);

// The plan without first-sight timing, before with_register_stages and the call's vector copies
// (run_gemm's last steps). `picker` null: the heuristic alone (no model, or a quick plan).
Plan untimed_plan(const GemmCall& call, model::Picker* picker, int multiprocessors);
// The same before with_k_sets: a plan a gen::Tuning can hold (a tuning has no K sets), for the
// tuner, whose timing applies with_k_sets itself.
Plan untimed_choice(const GemmCall& call, model::Picker* picker, int multiprocessors);

}  // namespace ptxblas::dispatch
