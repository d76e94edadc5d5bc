// What dispatch runs for a tuning, for the tuner's measurements on its own buffers (gpu_timing's:
// cudaMalloc'd, so 256-byte aligned, leading dimensions m, k or n as the ops make them). The
// tuner times plans through run_gemm_with_plan, which runs a plan as given; dispatch lowers some
// first (dispatch/gemm_launch.cpp), so without these the tuner measured another kernel than the
// library would run (perf notes §83: S linpack-2048's heuristic plan, timed unlowered, lost to a
// K split that ran 0.79 of it lowered).
#pragma once

#include "gemm_call.hpp"
#include "picker.hpp"

namespace ptxblas::tuner {

// A plain call of problem p (whole C, no band), without operands: what dispatch plans from.
dispatch::GemmCall call_of(const model::Problem& p);

// The plan as run_gemm runs it for this problem: the f32 vector-stage form (cp.async stages,
// vector copies, the unbounded variant: dispatch's with_f32_vector_stages) where it differs and
// one of the operands' copies fits 16-byte vectors (dispatch's vector_copies_fit, whose alignment
// test on the tuner's buffers reduces to the leading dimension's), else the plan itself; f64's
// small split plans in their K-set form (dispatch's with_k_sets) first; the vector-stage form on
// the wide tile dispatch takes on `multiprocessors` SMs where C divides into it (with_f32_wide_tile).
dispatch::Plan as_dispatched(const model::Problem& p, const dispatch::Plan& plan, int multiprocessors);
// The kernel configuration a launch of `plan` runs on the tuner's buffers: the plan's, with the
// 16-byte vector copies the launcher turns on per operand where the leading dimension allows
// (dispatch's vector_copies_fit), which name another kernel (`_vc`, `_vca`, `_vcb`): what the
// JIT workers must compile for the timing loop to find it.
gen::KernelConfig launched_config(const model::Problem& p, const dispatch::Plan& plan);

// Whether dispatch runs tuning t of problem p as another kernel than the tuning itself
// (as_dispatched changes its plan): the rows `ptxblas-tune remeasure` picks out.
bool lowered_by_dispatch(const model::Problem& p, const gen::Tuning& t);

// The heuristic's configuration as dispatch weighs a model's pick against it (model_plan): its
// plan with cp.async stages (with_async_stages) when the model measured them (max_stages > 2), as
// planned otherwise; `lowered` true gives the cp.async form regardless (what dispatch runs with no
// model, fresh_plan).
gen::Tuning heuristic_fallback(const model::Problem& p, int multiprocessors, bool lowered);
inline bool knows_async(const model::Picker& picker) { return picker.model().knows_async_stages(); }

// The model's choice as dispatch makes it (dispatch::model_choice_plan): its pick, or the
// heuristic's plan (heuristic_fallback's tuning). Then run_after_pick gives what runs.
gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, int multiprocessors);

// What dispatch runs after a model chose `choice` (model_plan, fresh_plan, then run_gemm): a model
// that never measured cp.async stages has its pick lowered to them afterwards, like the
// heuristic's plan; Z's 64x64x8 tile of 64x16 warp tiles then runs in two register stages
// (dispatch's with_register_stages). Given the heuristic's lowered plan, what dispatch runs
// without a model.
gen::Tuning run_after_pick(const model::Problem& p, const gen::Tuning& choice, bool model_knows_async);

// What dispatch runs for a plain call of p with `picker` (null: no model) and first-sight timing
// off, the library's default: dispatch::untimed_plan (a narrow or skinny C's plan without asking
// the model, else the model's choice; a split rebalanced) in the form run_gemm runs it
// (with_register_stages), before with_k_sets (as_dispatched's, when it is timed). The same as run_after_pick(p, model_choice(...)) except where the
// narrow, skinny, balanced-split, one-wave deep-split or part-round (c64, two slices) rules apply.
gen::Tuning dispatched_tuning(model::Picker* picker, const model::Problem& p, int multiprocessors);

}  // namespace ptxblas::tuner
