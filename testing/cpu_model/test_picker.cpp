// The picker returns the argmax of the model over the candidates that fit the problem, caches it,
// and the candidate filter keeps split-K slices meaningful.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "picker.hpp"
#include "synthetic.hpp"
#include "trainer.hpp"

namespace {

using namespace modeltest;

model::Model trained() {
  tuner::TrainOptions o;
  o.hidden = {32, 32};
  o.epochs = 15;
  o.seed = 2;
  tuner::TrainReport rep;
  return tuner::train_model(synthetic_dataset(2000, 4), o, rep);
}

TEST(Picker, PicksTheArgmaxOfTheModel) {
  model::Picker picker(trained());
  for (const model::Problem p : {model::Problem{gen::DataType::F32, gen::Op::N, gen::Op::T, 4096, 4096, 4096},
                                 model::Problem{gen::DataType::F32, gen::Op::N, gen::Op::N, 32, 32, 60000},
                                 model::Problem{gen::DataType::F32, gen::Op::T, gen::Op::N, 2560, 16, 2560}}) {
    std::vector<gen::Tuning> fits;
    for (const gen::Tuning& t : picker.space(p.data))
      if (model::candidate_fits(p, t)) fits.push_back(t);
    ASSERT_FALSE(fits.empty());
    const std::vector<float> s = picker.score(p, fits);
    const gen::Tuning best = fits[static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin())];
    EXPECT_EQ(picker.pick(p), best);
    EXPECT_EQ(picker.pick(p), best);  // from the cache
    EXPECT_TRUE(gen::why_excluded(p.data, best).empty());
    EXPECT_TRUE(model::candidate_fits(p, best));
  }
}

// With a fallback, the model's best is taken only when predicted trust_margin faster. A linear
// model that scores log2(ml): every ml = 256 candidate ties for the best.
model::Model scores_ml() {
  const int f = model::feature_count();
  model::Model m;
  m.mean.assign(static_cast<std::size_t>(f), 0.0f);
  m.stddev.assign(static_cast<std::size_t>(f), 1.0f);
  model::DenseLayer l{f, 1, std::vector<float>(static_cast<std::size_t>(f), 0.0f), {0.0f}};
  l.w[model::kProblemFeatures + 0] = 1.0f;
  m.mlp = model::Mlp({l});
  return m;
}

TEST(Picker, TopIsTheModelsRankingBestFirst) {
  model::Picker picker(trained());
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::N, 2560, 64, 2560};
  const std::vector<gen::Tuning> top = picker.top(p, 6);
  ASSERT_EQ(top.size(), 6u);
  EXPECT_EQ(top.front(), picker.pick(p));
  const std::vector<float> s = picker.score(p, top);
  for (std::size_t i = 1; i < top.size(); ++i) {
    EXPECT_GE(s[i - 1], s[i]) << i;
    EXPECT_FALSE(top[i] == top[i - 1]);
    EXPECT_TRUE(model::candidate_fits(p, top[i]));
  }
  // Nothing outside the top scores above its last member.
  float best_rest = -1e30f;
  for (const gen::Tuning& t : picker.space(p.data))
    if (model::candidate_fits(p, t) && std::find(top.begin(), top.end(), t) == top.end())
      best_rest = std::max(best_rest, picker.score(p, {t})[0]);
  EXPECT_LE(best_rest, s.back());
  EXPECT_TRUE(picker.top(p, 0).empty());
  // top_scored: the same ranking, each with the score score() gives it (band_choice mixes both).
  const std::vector<model::Picker::Scored> scored = picker.top_scored(p, 6);
  ASSERT_EQ(scored.size(), top.size());
  for (std::size_t i = 0; i < top.size(); ++i) {
    EXPECT_TRUE(scored[i].tuning == top[i]) << i;
    EXPECT_NEAR(scored[i].log2_tflops, s[i], 1e-5f) << i;
  }
}

TEST(Picker, KeepsTheFallbackUnlessClearlyBeaten) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 3000, 2000, 500};
  model::Picker probe(scores_ml());
  const gen::Tuning best = probe.pick(p);
  ASSERT_EQ(best.ml, 256);
  const gen::Tuning* tie = nullptr;    // another ml = 256 point: predicted as fast
  const gen::Tuning* small = nullptr;  // ml = 16: predicted 4 log2 units slower
  for (const gen::Tuning& t : probe.space(p.data)) {
    if (!model::candidate_fits(p, t) || t == best) continue;
    if (!tie && t.ml == 256) tie = &t;
    if (!small && t.ml == 16) small = &t;
  }
  ASSERT_TRUE(tie && small);
  model::Picker a(scores_ml()), b(scores_ml());
  EXPECT_EQ(a.pick(p, *tie), *tie);
  EXPECT_EQ(a.pick(p, *tie), *tie);    // cached
  EXPECT_EQ(b.pick(p, *small), best);
  EXPECT_EQ(b.pick(p, best), best);    // cached per problem: the first decision stays
  model::Model wary = scores_ml();
  wary.trust_margin = 4.5f;  // more than the 4 units between them: the fallback stays
  model::Picker c(std::move(wary));
  EXPECT_EQ(c.pick(p, *small), *small);
}

// A gain for the fallback (dispatch's lowering_gain) counts on its side of the trust margin.
TEST(Picker, FallbackGainCountsForTheFallback) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 3000, 2000, 500};
  model::Picker probe(scores_ml());
  const gen::Tuning best = probe.pick(p);
  const gen::Tuning* half = nullptr;  // ml = 128: predicted 1 log2 unit slower
  for (const gen::Tuning& t : probe.space(p.data))
    if (!half && model::candidate_fits(p, t) && t.ml == 128) half = &t;
  ASSERT_TRUE(half);
  model::Picker a(scores_ml()), b(scores_ml()), c(scores_ml());
  EXPECT_EQ(a.pick(p, *half), best);          // 1 > 0 + 0.15
  EXPECT_EQ(b.pick(p, *half, 0.9f), *half);   // 1 < 0.9 + 0.15
  EXPECT_EQ(c.pick(p, *half, 0.8f), best);    // 1 > 0.8 + 0.15
}

// The space offers only the stage counts the model's rows measured; training records the most.
TEST(Picker, OffersOnlyTheStagesItMeasured) {
  const std::vector<tuner::Sample> rows = synthetic_dataset(2000, 4);
  int most = 0;
  for (const tuner::Sample& s : rows) most = std::max(most, s.tuning.stages);
  ASSERT_GT(most, 2);
  model::Model m = trained();
  EXPECT_EQ(m.max_stages, most);
  auto max_stages_in = [](model::Picker& p, gen::DataType t) {
    int s = 0;
    for (const gen::Tuning& x : p.space(t)) s = std::max(s, x.stages);
    return s;
  };
  m.max_stages = 2;
  model::Picker older(m);
  EXPECT_EQ(max_stages_in(older, gen::DataType::F64), 2);
  m.max_stages = 4;
  model::Picker newer(std::move(m));
  EXPECT_EQ(max_stages_in(newer, gen::DataType::F64), 4);
  EXPECT_EQ(max_stages_in(newer, gen::DataType::F16), 2);  // cp.async needs 4-byte elements
  EXPECT_GT(newer.space(gen::DataType::F64).size(), older.space(gen::DataType::F64).size());
}

// The picker builds a type's space part by part on threads: the same points, in the same order
// (ties between equal scores go to the first), as the generator's serial enumeration.
TEST(Picker, SpaceIsTheGeneratorsInOrder) {
  model::Model m = trained();
  m.max_stages = 3;
  model::Picker picker(std::move(m));
  for (gen::DataType t : {gen::DataType::F32, gen::DataType::C64, gen::DataType::F16}) {
    std::vector<gen::Tuning> want = gen::enumerate_space(t);
    std::erase_if(want, [](const gen::Tuning& x) { return x.stages > 3; });
    const std::vector<gen::Tuning>& got = picker.space(t);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
  }
}

TEST(Picker, CoversOnlyWhatItWasTrainedOn) {
  model::Model m = trained();
  m.max_flops = 2.0 * 1024 * 1024 * 1024;
  const model::Picker picker(std::move(m));
  EXPECT_TRUE(picker.covers({gen::DataType::F32, gen::Op::N, gen::Op::N, 1024, 1024, 1024}));
  EXPECT_FALSE(picker.covers({gen::DataType::F32, gen::Op::N, gen::Op::N, 1024, 1024, 1025}));
  m = trained();
  m.max_flops = 0;  // not recorded: everything
  EXPECT_TRUE(model::Picker(std::move(m)).covers({gen::DataType::F32, gen::Op::N, gen::Op::N, 1 << 16, 1 << 16, 1 << 16}));
}

TEST(Picker, LearnsToSplitDeepNarrowProblems) {
  // The synthetic speed rewards filling the SMs: a 32x32x60000 problem should get kg > 1.
  model::Picker picker(trained());
  const gen::Tuning t = picker.pick({gen::DataType::F32, gen::Op::N, gen::Op::T, 32, 32, 60000});
  EXPECT_GT(t.kg, 1);
}

TEST(Picker, CachedDecisionIsCheap) {
  model::Picker picker(trained());
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::N, 1000, 1000, 1000};
  picker.space(p.data);
  const auto f0 = std::chrono::steady_clock::now();
  picker.pick(p);
  std::printf("first pick of a shape (%zu candidates): %.1f ms\n", picker.space(p.data).size(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
  const auto t0 = std::chrono::steady_clock::now();
  constexpr int kReps = 10000;
  for (int i = 0; i < kReps; ++i) picker.pick(p);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / kReps;
  std::printf("cached pick: %.3f us\n", us);  // reported, not asserted: tests never assert a speed
}

TEST(CandidateFits, SplitsNeedDepthAndBoundedWorkspace) {
  const model::Problem shallow{gen::DataType::F32, gen::Op::N, gen::Op::N, 64, 64, 16};
  gen::Tuning t;
  t.u = 8;
  t.kg = 4;
  EXPECT_FALSE(model::candidate_fits(shallow, t));  // 4 slices of 8 need k >= 32
  t.kg = 2;
  EXPECT_TRUE(model::candidate_fits(shallow, t));
  const model::Problem huge{gen::DataType::F64, gen::Op::N, gen::Op::N, 16384, 16384, 1 << 20};
  t.kg = 256;
  EXPECT_FALSE(model::candidate_fits(huge, t));  // workspace far beyond the cap
  t.kg = 1;
  EXPECT_TRUE(model::candidate_fits(huge, t));
}

}  // namespace
