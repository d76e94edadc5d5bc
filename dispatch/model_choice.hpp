// The model's pick against the heuristic's plan, each weighed in the form dispatch runs it. The
// model was trained on tunings as planned; dispatch lowers unsplit register-staged f32 SIMT plans
// to cp.async stages with 16-byte vector copies where the call's alignment allows
// (with_f32_vector_stages), runs Z's 64-row mma tile in two register stages where it was planned
// in three cp.async stages (with_register_stages), and f64's 32x32 blocks of 16x16 warp tiles
// split 4+ ways in K sets (with_k_sets): forms the model never measured.
#pragma once

#include "gemm_call.hpp"
#include "picker.hpp"

namespace ptxblas::dispatch {

// log2 of how much faster than its tuning's measurement dispatch runs plan p of an m x n x k
// problem: 0.124 (x1.09, the median over the 1332 tuning rows that were timed both ways, as
// planned and lowered, perf notes §86) where with_f32_vector_stages lowers it to cp.async stages
// (not for a split's unbounded copies alone, §145); 0.123 (x1.089, the
// median of §98's seven A/B rows of the s3 plan against its two-register-stage form) where
// with_register_stages converts it; 0.098 (x1.07, the median of §92's four A/B rows) where
// with_k_sets does (dispatch gives K sets to plain calls only; a banded step's plan is weighed
// with the gain too); else 0.
float lowering_gain(const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k);

// The tuning dispatch runs for problem p given the heuristic's plan: the model's pick where it is
// predicted trust_margin faster than the heuristic's plan, each given its lowering_gain; else the
// heuristic plan's own tuning. Without the gain, S linpack-2048's unsplit 128x128 plan was
// predicted 1.11x slower than a K split that ran 0.79x of it (report 989d10b9).
gen::Tuning model_choice(model::Picker& picker, const model::Problem& p, const Plan& heuristic);

}  // namespace ptxblas::dispatch
