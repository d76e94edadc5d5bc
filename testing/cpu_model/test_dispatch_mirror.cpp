// The tuner's mirror of what dispatch runs (tuner/dispatch_mirror.hpp): the f32 vector-stage
// lowering where the tuner's leading dimensions allow vectors, the heuristic's fallback with
// cp.async stages for a model that measured them, and an older model's pick lowered afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "async_stages.hpp"
#include "model_choice.hpp"
#include "dataset.hpp"
#include "dispatch_mirror.hpp"

namespace {

using namespace ptxblas;
using gen::DataType;
using gen::Op;

dispatch::Plan heuristic_plan(const model::Problem& p) {
  return dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, 132);
}

// S linpack-2048 (perf notes §83): the heuristic's unsplit plan runs lowered where a leading
// dimension holds whole 16-byte vectors, as planned where none does.
TEST(DispatchMirror, F32PlansRunLoweredWhereVectorsFit) {
  const model::Problem aligned{DataType::F32, Op::N, Op::T, 2048, 2048, 2048};
  const dispatch::Plan plan = heuristic_plan(aligned);
  const dispatch::Plan lowered = dispatch::with_f32_vector_stages(plan);
  ASSERT_NE(lowered.config.stages, plan.config.stages) << "the heuristic's S 2048^3 plan is lowered by dispatch";
  const dispatch::Plan run = tuner::as_dispatched(aligned, plan, 132);
  EXPECT_EQ(run.config.stages, lowered.config.stages);
  EXPECT_TRUE(run.config.unbounded);
  EXPECT_EQ(run.config.nl, 256);  // on the wide tile dispatch takes there (§146)
  EXPECT_EQ(tuner::as_dispatched(aligned, plan, 0).config, lowered.config);
  // Odd leading dimensions (lda = m, ldb = n here): no operand's copies fit vectors.
  const model::Problem odd{DataType::F32, Op::N, Op::T, 2047, 2047, 2048};
  const dispatch::Plan odd_plan = heuristic_plan(odd);
  ASSERT_NE(dispatch::with_f32_vector_stages(odd_plan).config.stages, odd_plan.config.stages);
  EXPECT_EQ(tuner::as_dispatched(odd, odd_plan, 132).config.stages, odd_plan.config.stages);
  EXPECT_FALSE(tuner::as_dispatched(odd, odd_plan, 132).config.unbounded);
  // Not f32: as planned.
  const model::Problem d{DataType::F64, Op::N, Op::T, 2048, 2048, 2048};
  EXPECT_EQ(tuner::as_dispatched(d, heuristic_plan(d), 132).config, heuristic_plan(d).config);
}

// D's heuristic plan with register stages: a model that measured cp.async stages is weighed
// against its cp.async form, an older model against the plan as planned, and an older model's
// pick of register stages runs with cp.async stages.
TEST(DispatchMirror, FallbackAndPickFollowWhatTheModelMeasured) {
  const model::Problem p{DataType::F64, Op::T, Op::N, 2560, 256, 2560};
  const dispatch::Plan plan = heuristic_plan(p);
  ASSERT_LE(plan.config.stages, 2);
  const gen::Tuning planned = tuner::heuristic_fallback(p, 132, false), lowered = tuner::heuristic_fallback(p, 132, true);
  EXPECT_EQ(planned, dispatch::tuning_of(plan));
  EXPECT_EQ(lowered, dispatch::tuning_of(dispatch::with_async_stages(plan)));
  EXPECT_EQ(lowered.stages, 3);
  EXPECT_EQ(tuner::run_after_pick(p, planned, true), planned);
  EXPECT_EQ(tuner::run_after_pick(p, planned, false).stages, 3);
}

// Z linpack-1024's 64x64x8 tile of 64x16 warp tiles: weighed as measured (three cp.async
// stages), run in two register stages whichever model picked it (dispatch's
// with_register_stages, perf notes §98).
TEST(DispatchMirror, ZsDeepWarpTilesRunInRegisterStagesAfterThePick) {
  const model::Problem z{DataType::C64, Op::N, Op::T, 1024, 1024, 1024};
  const gen::Tuning weighed = tuner::heuristic_fallback(z, 132, true);
  ASSERT_EQ(weighed.stages, 3);
  ASSERT_EQ(weighed.ms, 64);
  for (bool knows_async : {true, false}) {
    const gen::Tuning run = tuner::run_after_pick(z, weighed, knows_async);
    EXPECT_EQ(run.stages, 2);
    EXPECT_EQ(run.ml, weighed.ml);
    EXPECT_EQ(run.kg, weighed.kg);
  }
  EXPECT_EQ(tuner::run_after_pick(z, tuner::heuristic_fallback(z, 132, false), false).stages, 2);
}

// A linear model that scores `per_stage` x the stage count and nothing else (4 stages measured):
// its pick is a four-stage tuning, never lowered.
model::Model scores_stages(float per_stage, float trust_margin) {
  const int f = model::feature_count();
  model::Model m;
  m.mean.assign(static_cast<std::size_t>(f), 0.0f);
  m.stddev.assign(static_cast<std::size_t>(f), 1.0f);
  model::DenseLayer l{f, 1, std::vector<float>(static_cast<std::size_t>(f), 0.0f), {0.0f}};
  const std::vector<std::string>& names = model::feature_names();
  l.w[static_cast<std::size_t>(std::find(names.begin(), names.end(), "stages") - names.begin())] = per_stage;
  m.mlp = model::Mlp({l});
  m.max_stages = 4;
  m.trust_margin = trust_margin;
  return m;
}

// S linpack-2048 (perf notes §102): the heuristic's unsplit plan, which dispatch runs lowered,
// is weighed with lowering_gain; a split or an f64 plan is not lowered and gains nothing.
TEST(DispatchMirror, TheHeuristicsPlanIsWeighedAsItRuns) {
  const model::Problem s{DataType::F32, Op::N, Op::T, 2048, 2048, 2048};
  const dispatch::Plan plan = heuristic_plan(s);
  ASSERT_EQ(plan.kg, 1);
  ASSERT_EQ(plan.config.stages, 2);
  EXPECT_NEAR(dispatch::lowering_gain(plan, s.m, s.n, s.k), std::log2(1.09f), 1e-3f);
  dispatch::Plan split = plan;
  split.kg = 4;
  EXPECT_EQ(dispatch::lowering_gain(split, s.m, s.n, s.k), 0.f);
  split.config.stages = 3;  // its unbounded copies alone are not weighed (§145)
  ASSERT_TRUE(dispatch::with_f32_vector_stages(split).config.unbounded);
  EXPECT_EQ(dispatch::lowering_gain(split, s.m, s.n, s.k), 0.f);
  const model::Problem d{DataType::F64, Op::N, Op::T, 2048, 2048, 2048};
  EXPECT_EQ(dispatch::lowering_gain(heuristic_plan(d), d.m, d.n, d.k), 0.f);
  // The pick (4 stages, not lowered) is predicted 2 x 0.1 above the plan (2 stages): with the
  // gain, 0.2 < 0.124 + 0.1 keeps the plan; with no margin, 0.2 > 0.124 takes the pick.
  model::Picker wary(scores_stages(0.1f, 0.1f)), bold(scores_stages(0.1f, 0.0f));
  EXPECT_EQ(dispatch::model_choice(wary, s, plan), dispatch::tuning_of(plan));
  const gen::Tuning taken = dispatch::model_choice(bold, s, plan);
  EXPECT_EQ(taken.stages, 4);
  EXPECT_EQ(taken, bold.pick(s));
  // Without the gain the wary picker would take the pick (0.2 > 0.1).
  model::Picker plain(scores_stages(0.1f, 0.1f));
  EXPECT_EQ(plain.pick(s, dispatch::tuning_of(plan)), taken);
  // The tuner's mirror makes the same choice from the same heuristic.
  model::Picker wary2(scores_stages(0.1f, 0.1f));
  EXPECT_EQ(tuner::model_choice(wary2, s, 132), dispatch::tuning_of(plan));
}

// The heuristic's plan of p (lowered, as a model that measured cp.async stages weighs it).
dispatch::Plan lowered_heuristic(const model::Problem& p) {
  return dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, tuner::heuristic_fallback(p, 132, true));
}

// A model that scores fewer stages higher (per_stage < 0) predicts a one-stage pick
// 2 x |per_stage| above the three-stage `plan`, which is less than plan's lowering_gain: with no
// margin that pick wins without the gain and not with it, in dispatch and in the tuner's mirror.
void expect_gain_keeps(const model::Problem& p, const dispatch::Plan& plan, float per_stage) {
  ASSERT_EQ(plan.config.stages, 3);
  ASSERT_LT(-2 * per_stage, dispatch::lowering_gain(plan, p.m, p.n, p.k));
  model::Picker plain(scores_stages(per_stage, 0.0f));  // pick(p, fallback) caches: one picker a call
  EXPECT_EQ(plain.pick(p, dispatch::tuning_of(plan)).stages, 1);
  model::Picker bold(scores_stages(per_stage, 0.0f));
  EXPECT_EQ(dispatch::model_choice(bold, p, plan), dispatch::tuning_of(plan));
  model::Picker bold2(scores_stages(per_stage, 0.0f));
  EXPECT_EQ(tuner::model_choice(bold2, p, 132), dispatch::tuning_of(plan));
}

// Z linpack-1024 (perf notes §98, §104): the heuristic's s3 plan runs in two register stages, so
// it is weighed with that conversion's gain (0.1 < 0.123).
TEST(DispatchMirror, ZsRegisterStagedPlanIsWeighedAsItRuns) {
  const model::Problem z{DataType::C64, Op::N, Op::T, 1024, 1024, 1024};
  const dispatch::Plan plan = lowered_heuristic(z);
  ASSERT_EQ(dispatch::with_register_stages(plan).config.stages, 2);
  EXPECT_NEAR(dispatch::lowering_gain(plan, z.m, z.n, z.k), std::log2(1.089f), 1e-3f);
  expect_gain_keeps(z, plan, -0.05f);
}

// D deepbench-b-32 (perf notes §92, §106): the heuristic's 32x32x16 plan of 16x16 warp tiles in 6
// slices runs in K sets (with_k_sets), so it is weighed with that gain (0.08 < 0.098).
TEST(DispatchMirror, DsKSetPlanIsWeighedAsItRuns) {
  const model::Problem d{DataType::F64, Op::T, Op::N, 2560, 32, 2560};
  const dispatch::Plan plan = lowered_heuristic(d);
  ASSERT_EQ(dispatch::with_k_sets(plan, d.m, d.n, d.k).config.ks, 4);
  EXPECT_NEAR(dispatch::lowering_gain(plan, d.m, d.n, d.k), std::log2(1.07f), 1e-3f);
  EXPECT_EQ(dispatch::lowering_gain(plan, d.m, d.n, 512), 0.f);  // slices too shallow for K sets
  expect_gain_keeps(d, plan, -0.04f);
}

// Eval's mirror of an untimed call (dispatch::untimed_plan): a narrow C runs the heuristic's
// narrow plan whatever the model says (S 16 x 980 x 9674, an eval shape); D 100 x 128 x 2560 runs
// the heuristic's K split rebalanced (balanced_split: 20 -> 32 slices); elsewhere the model's
// choice.
TEST(DispatchMirror, EvalTimesTheUntimedPlanDispatchMakes) {
  const model::Problem narrow{DataType::F32, Op::N, Op::N, 16, 980, 9674};
  const std::optional<dispatch::Plan> n =
      dispatch::plan_narrow(narrow.data, false, narrow.op_a, narrow.op_b, narrow.m, narrow.n, narrow.k, 132);
  ASSERT_TRUE(n.has_value());
  model::Picker bold(scores_stages(0.1f, 0.0f));
  EXPECT_EQ(tuner::dispatched_tuning(&bold, narrow, 132), dispatch::tuning_of(*n));
  EXPECT_NE(tuner::run_after_pick(narrow, tuner::model_choice(bold, narrow, 132), true), dispatch::tuning_of(*n));
  const model::Problem d{DataType::F64, Op::T, Op::N, 100, 128, 2560};
  ASSERT_EQ(tuner::heuristic_fallback(d, 132, true).kg, 20);
  EXPECT_EQ(tuner::dispatched_tuning(nullptr, d, 132).kg, 32);
  const model::Problem s{DataType::F32, Op::N, Op::T, 2048, 2048, 2048};
  model::Picker bold2(scores_stages(0.1f, 0.0f)), bold3(scores_stages(0.1f, 0.0f));
  EXPECT_EQ(tuner::dispatched_tuning(&bold2, s, 132), tuner::run_after_pick(s, tuner::model_choice(bold3, s, 132), true));
}

// A narrow C with a short K (D 1 x 19557 x 397, an eval shape): the model is weighed against the
// narrow plan (perf notes §105); without a model, the narrow plan.
TEST(DispatchMirror, ShortNarrowShapesAskTheModel) {
  const model::Problem d{DataType::F64, Op::N, Op::T, 1, 19557, 397};
  const std::optional<dispatch::Plan> n = dispatch::plan_narrow(d.data, false, d.op_a, d.op_b, d.m, d.n, d.k, 132);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(tuner::dispatched_tuning(nullptr, d, 132), dispatch::tuning_of(*n));
  model::Picker bold(scores_stages(-0.1f, 0.0f)), bold2(scores_stages(-0.1f, 0.0f));
  const gen::Tuning chosen = tuner::model_choice(bold2, d, 132);
  ASSERT_NE(chosen, dispatch::tuning_of(*n));
  EXPECT_EQ(tuner::dispatched_tuning(&bold, d, 132), tuner::run_after_pick(d, chosen, true));
}

// `remeasure` picks out exactly the rows dispatch lowers: the heuristic's S 2048^3 tuning, not its
// D tuning nor an S tuning whose leading dimensions hold no vectors.
TEST(DispatchMirror, RemeasurePicksTheRowsDispatchLowers) {
  const model::Problem s{DataType::F32, Op::N, Op::T, 2048, 2048, 2048}, odd{DataType::F32, Op::N, Op::T, 2047, 2047, 2048},
      d{DataType::F64, Op::N, Op::T, 2048, 2048, 2048};
  EXPECT_TRUE(tuner::lowered_by_dispatch(s, dispatch::tuning_of(heuristic_plan(s))));
  EXPECT_FALSE(tuner::lowered_by_dispatch(odd, dispatch::tuning_of(heuristic_plan(odd))));
  EXPECT_FALSE(tuner::lowered_by_dispatch(d, dispatch::tuning_of(heuristic_plan(d))));
}

// D deepbench-32's plan (32x32 blocks of 16x16 warp tiles in 6 slices) runs in four K sets and
// 3 slices (dispatch's with_k_sets), so the tuner times that kernel; D linpack-2048's as planned.
TEST(DispatchMirror, F64SmallSplitPlansRunInKSets) {
  const model::Problem deep{DataType::F64, Op::T, Op::N, 2560, 32, 2560}, square{DataType::F64, Op::N, Op::T, 2048, 2048, 2048};
  const dispatch::Plan run = tuner::as_dispatched(deep, heuristic_plan(deep), 132);
  EXPECT_EQ(run.config.ks, 4);
  EXPECT_EQ(run.config.u, 32);
  EXPECT_EQ(run.kg, 3);
  EXPECT_TRUE(tuner::lowered_by_dispatch(deep, dispatch::tuning_of(heuristic_plan(deep))));
  EXPECT_EQ(tuner::as_dispatched(square, heuristic_plan(square), 132).config, heuristic_plan(square).config);
}

// A configuration measured again in a later file replaces its earlier value, in its first place;
// rows measured once keep their order (so training on files without repeats is unchanged).
TEST(LatestRows, ALaterMeasurementReplacesTheEarlierOne) {
  auto row = [](std::int64_t m, int ml, double tflops) {
    tuner::Sample r;
    r.device_key = "k";
    r.problem = {DataType::F32, Op::N, Op::N, m, 64, 64};
    r.tuning.ml = ml;
    r.tflops = tflops;
    return r;
  };
  std::size_t replaced = 9;
  const std::vector<tuner::Sample> once = {row(1, 64, 1), row(2, 64, 2), row(1, 32, 3)};
  const std::vector<tuner::Sample> same = tuner::latest_rows(once, replaced);
  EXPECT_EQ(replaced, 0u);
  ASSERT_EQ(same.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(same[i].tflops, once[i].tflops);
  std::vector<tuner::Sample> again = once;
  again.push_back(row(2, 64, 20));
  again.push_back(row(1, 64, 10));
  tuner::Sample other_device = row(1, 64, 5);
  other_device.device_key = "other";
  again.push_back(other_device);
  const std::vector<tuner::Sample> latest = tuner::latest_rows(again, replaced);
  EXPECT_EQ(replaced, 2u);
  ASSERT_EQ(latest.size(), 4u);
  EXPECT_EQ(*latest[0].tflops, 10);
  EXPECT_EQ(*latest[1].tflops, 20);
  EXPECT_EQ(*latest[2].tflops, 3);
  EXPECT_EQ(latest[3].device_key, "other");
}

}  // namespace
