// What `sample` benchmarks per problem: the heuristic's pick as a point of the space, one-step
// neighbours, the model's favourites; all distinct, legal and fitting the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "gemm_call.hpp"
#include "problem_configs.hpp"
#include "synthetic.hpp"
#include "trainer.hpp"

namespace {

using namespace ptxblas;

bool usable(const model::Problem& p, const gen::Tuning& t) {
  return gen::why_excluded(p.data, t).empty() && model::candidate_fits(p, t);
}

int differences(const gen::Tuning& a, const gen::Tuning& b) {
  int d = 0;
  for (int i = 0; i < gen::kTuningParams; ++i) d += gen::tuning_value(a, i) != gen::tuning_value(b, i);
  return d;
}

TEST(ProblemConfigs, HeuristicPickIsInTheSpaceWithItsSplitRoundedDown) {
  std::mt19937_64 rng(3);
  int found = 0;
  for (int i = 0; i < 300; ++i) {
    const model::Problem p = tuner::draw_problem(rng);
    const auto t = tuner::heuristic_tuning(p, 132);
    if (!t) continue;
    ++found;
    EXPECT_TRUE(usable(p, *t));
    const dispatch::Plan plan = dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, 132);
    EXPECT_EQ(t->ml, plan.config.ml);
    EXPECT_EQ(t->nl, plan.config.nl);
    EXPECT_LE(t->kg, std::max(plan.kg, 1));
  }
  EXPECT_GT(found, 250);  // the catalog's tiles are points of the space
}

TEST(ProblemConfigs, DistinctUsableAndSeededByTheHeuristic) {
  std::mt19937_64 rng(5);
  tuner::ConfigMix mix;
  mix.per_problem = 10;
  mix.neighbours = 3;
  for (int i = 0; i < 60; ++i) {
    const model::Problem p = tuner::draw_problem(rng);
    tuner::CategoricalSampler s;
    s.learn(p.data, 3000, rng);
    const auto cs = tuner::problem_configs(p, s, mix, 132, rng);
    ASSERT_FALSE(cs.empty());
    EXPECT_LE(cs.size(), 10u);
    for (std::size_t a = 0; a < cs.size(); ++a) {
      EXPECT_TRUE(usable(p, cs[a]));
      for (std::size_t b = a + 1; b < cs.size(); ++b) EXPECT_FALSE(cs[a] == cs[b]);
    }
    if (const auto h = tuner::heuristic_tuning(p, 132)) {
      EXPECT_EQ(cs[0], *h);
      int near = 0;
      for (std::size_t a = 1; a < cs.size(); ++a) near += differences(cs[a], *h) == 1;
      EXPECT_GE(near, 1);
    }
  }
}

TEST(ProblemConfigs, ModelFavouritesFollowTheHeuristicsPick) {
  tuner::TrainOptions o;
  o.hidden = {16};
  o.epochs = 5;
  tuner::TrainReport rep;
  model::Picker picker(tuner::train_model(modeltest::synthetic_dataset(600, 2), o, rep));
  std::mt19937_64 rng(9);
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 300, 500, 700};
  tuner::CategoricalSampler s;
  s.learn(p.data, 3000, rng);
  tuner::ConfigMix mix;
  mix.model_top = 3;
  mix.neighbours = 0;
  const auto cs = tuner::problem_configs(p, s, mix, 132, rng, &picker);
  ASSERT_GE(cs.size(), 2u);
  const gen::Tuning best = picker.pick(p);
  EXPECT_NE(std::find(cs.begin(), cs.begin() + 4, best), cs.begin() + 4);  // within the first four
}

// Round 4 of the tuning measures the cp.async stages in pairs: the heuristic's pick with every
// legal stage count, right after it.
TEST(ProblemConfigs, StageVariantsFollowThePick) {
  std::mt19937_64 rng(11);
  tuner::ConfigMix mix;
  mix.per_problem = 14;
  mix.neighbours = 1;
  mix.stage_variants = true;
  int checked = 0;
  for (int i = 0; i < 80; ++i) {
    model::Problem p = tuner::draw_problem(rng);
    p.data = gen::DataType::F64;
    const auto h = tuner::heuristic_tuning(p, 132);
    if (!h) continue;
    tuner::CategoricalSampler s;
    s.learn(p.data, 2000, rng);
    const auto cs = tuner::problem_configs(p, s, mix, 132, rng);
    ASSERT_FALSE(cs.empty());
    EXPECT_EQ(cs[0], *h);
    for (int stages : {1, 2, 3, 4}) {
      gen::Tuning v = *h;
      v.stages = stages;
      if (!usable(p, v)) continue;
      const auto at = std::find(cs.begin(), cs.end(), v);
      EXPECT_NE(at, cs.end()) << stages;
      EXPECT_LT(at - cs.begin(), 4);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
