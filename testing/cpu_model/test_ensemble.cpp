// Ensembles: grouped (block-diagonal) layers against plain loops, several networks folded into
// one whose output is their mean, its members taken out again, its model file round trip, the
// picker's screen and its members' agreement, and training members on threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "ensemble.hpp"
#include "features.hpp"
#include "model_file.hpp"
#include "picker.hpp"
#include "synthetic.hpp"
#include "trainer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ptxblas;
using model::DenseLayer;
using model::Mlp;

std::vector<float> inputs(int rows, int width, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> x(static_cast<std::size_t>(rows) * width);
  for (float& v : x) v = std::uniform_real_distribution<float>(-2, 2)(rng);
  return x;
}

std::vector<float> predict(const Mlp& net, const std::vector<float>& x, int rows) {
  std::vector<float> y(static_cast<std::size_t>(rows) * net.outputs());
  net.predict(x.data(), rows, y.data());
  return y;
}

TEST(GroupedLayer, ForwardMatchesHandComputation) {
  // 4 inputs -> 4 hidden in two groups of 2 -> 1 output. Group 0 reads inputs 0-1 only.
  DenseLayer h{4, 4, {1, 2, 0, 1, -1, 1, 2, 0}, {0, 0, 1, -1}, 2};
  DenseLayer o{4, 1, {1, 1, 1, 1}, {0.5f}};
  const Mlp net({h, o});
  const float x[4] = {1, 2, 3, 4};
  float y = 0;
  net.predict(x, 1, &y);
  // Group 0: (1 + 4, 2) = (5, 2); group 1: (-3 + 4 + 1, 6 - 1) = (2, 5); sum 14 + 0.5.
  EXPECT_FLOAT_EQ(y, 14.5f);
  EXPECT_EQ(net.parameter_count(), 8u + 4u + 4u + 1u);
  DenseLayer bad{4, 4, std::vector<float>(16), std::vector<float>(4), 2};  // a dense layer's weights
  EXPECT_THROW(Mlp({bad}), std::invalid_argument);
  DenseLayer odd{3, 4, std::vector<float>(6), std::vector<float>(4), 2};  // 3 inputs in 2 groups
  EXPECT_THROW(Mlp({odd}), std::invalid_argument);
}

// The ensemble's single forward pass (grouped hidden layers, blocked paths and remainders) gives
// the members' mean, for widths that are and are not multiples of 8 and row counts of every
// remainder.
TEST(Ensemble, PredictsTheMembersMean) {
  for (const std::vector<int>& widths :
       {std::vector<int>{13, 24, 16, 1}, std::vector<int>{28, 32, 64, 32, 1}, std::vector<int>{5, 7, 1},
        std::vector<int>{6, 1}}) {
    std::vector<Mlp> members;
    for (std::uint64_t s = 1; s <= 3; ++s) {
      members.push_back(Mlp::random(widths, s));
      for (DenseLayer& l : members.back().layers())  // non-zero biases, so their sum is checked too
        for (std::size_t j = 0; j < l.b.size(); ++j) l.b[j] = 0.1f * static_cast<float>(s) - 0.05f * static_cast<float>(j % 3);
    }
    const Mlp all = tuner::ensemble_of(members);
    EXPECT_EQ(all.inputs(), widths.front());
    EXPECT_EQ(all.outputs(), 1);
    for (int rows : {1, 3, 4, 7, 256, 261}) {
      const std::vector<float> x = inputs(rows, widths.front(), static_cast<unsigned>(rows));
      const std::vector<float> y = predict(all, x, rows);
      std::vector<double> mean(static_cast<std::size_t>(rows), 0.0);
      for (const Mlp& m : members) {
        const std::vector<float> ym = predict(m, x, rows);
        for (int r = 0; r < rows; ++r) mean[static_cast<std::size_t>(r)] += ym[static_cast<std::size_t>(r)] / 3.0;
      }
      for (int r = 0; r < rows; ++r)
        ASSERT_NEAR(y[static_cast<std::size_t>(r)], mean[static_cast<std::size_t>(r)],
                    1e-4 * (1 + std::abs(mean[static_cast<std::size_t>(r)])))
            << "widths " << widths.size() << " rows " << rows << " row " << r;
    }
  }
}

TEST(Ensemble, MembersMustMatch) {
  EXPECT_THROW(tuner::ensemble_of({}), std::invalid_argument);
  EXPECT_THROW(tuner::ensemble_of({Mlp::random({4, 8, 1}, 1), Mlp::random({4, 6, 1}, 2)}), std::invalid_argument);
  EXPECT_THROW(tuner::ensemble_of({Mlp::random({4, 8, 2}, 1)}), std::invalid_argument);
  const Mlp two = tuner::ensemble_of({Mlp::random({4, 8, 8, 1}, 1), Mlp::random({4, 8, 8, 1}, 2)});
  EXPECT_THROW(tuner::ensemble_of({two, two}), std::invalid_argument);  // grouped hidden layer
}

// Each member comes back out of the fold, up to a constant (the output bias is the mean).
TEST(Ensemble, MembersComeBackOutUpToAConstant) {
  std::vector<Mlp> members;
  for (std::uint64_t s = 1; s <= 3; ++s) {
    members.push_back(Mlp::random({13, 24, 16, 1}, s));
    members.back().layers().back().b[0] = static_cast<float>(s);
  }
  const Mlp all = tuner::ensemble_of(members);
  const std::vector<float> x = inputs(37, 13, 9);
  for (int k = 0; k < 3; ++k) {
    const std::vector<float> got = predict(all.member(3, k), x, 37), want = predict(members[static_cast<std::size_t>(k)], x, 37);
    for (int r = 1; r < 37; ++r)
      ASSERT_NEAR(got[static_cast<std::size_t>(r)] - got[0], want[static_cast<std::size_t>(r)] - want[0], 1e-4)
          << "member " << k << " row " << r;
  }
  EXPECT_THROW(all.member(2, 0), std::invalid_argument);  // folded from 3
  EXPECT_THROW(all.member(3, 3), std::invalid_argument);
  EXPECT_THROW(Mlp::random({13, 24, 16, 1}, 1).member(3, 0), std::invalid_argument);  // never folded
}

// Two models of one normalisation merge into one ensemble whose prediction is theirs weighted by
// member count (a 3-member fold and a single network: 3/4 and 1/4), the limits the widest.
TEST(Ensemble, MergedModelsPredictTheirMemberWeightedMean) {
  model::Model a, b;
  std::vector<Mlp> three;
  for (std::uint64_t s = 1; s <= 3; ++s) three.push_back(Mlp::random({13, 24, 16, 1}, s));
  a.mlp = tuner::ensemble_of(three);
  a.members = 3;
  b.mlp = Mlp::random({13, 24, 16, 1}, 7);
  b.mlp.layers().back().b[0] = 2.5f;
  for (model::Model* m : {&a, &b}) {
    m->device_key = "x-sm90";
    m->mean.assign(13, 0.5f);
    m->stddev.assign(13, 2.0f);
  }
  a.max_flops = 1e9, b.max_flops = 1e12, a.max_stages = 4, b.max_stages = 2;
  const model::Model m = tuner::merge_models({a, b});
  EXPECT_EQ(m.members, 4);
  EXPECT_EQ(m.max_flops, 1e12);
  EXPECT_EQ(m.max_stages, 4);
  const std::vector<float> x = inputs(29, 13, 5);
  const std::vector<float> got = predict(m.mlp, x, 29), pa = predict(a.mlp, x, 29), pb = predict(b.mlp, x, 29);
  for (std::size_t r = 0; r < got.size(); ++r) ASSERT_NEAR(got[r], 0.75f * pa[r] + 0.25f * pb[r], 1e-4) << "row " << r;
  model::Model other = b;
  other.stddev[3] = 1.0f;  // another normalisation: other training rows
  EXPECT_THROW(tuner::merge_models({a, other}), std::invalid_argument);
  EXPECT_THROW(tuner::merge_models({}), std::invalid_argument);
}

// Members scoring a_k log2(ml) (one hidden unit, kept positive by its bias): their mean is
// (mean a) log2(ml) plus a constant.
model::Model scores_ml(const std::vector<float>& a) {
  const int f = model::feature_count();
  std::vector<Mlp> members;
  for (float ak : a) {
    DenseLayer h{f, 1, std::vector<float>(static_cast<std::size_t>(f), 0.0f), {100.0f}};
    h.w[model::kProblemFeatures + 0] = ak;
    members.push_back(Mlp({h, DenseLayer{1, 1, {1.0f}, {0.0f}}}));
  }
  model::Model m;
  m.mean.assign(static_cast<std::size_t>(f), 0.0f);
  m.stddev.assign(static_cast<std::size_t>(f), 1.0f);
  m.mlp = tuner::ensemble_of(members);
  m.members = static_cast<int>(a.size());
  return m;
}

// The first member screens (the space holds far more than Picker::kScreened candidates here);
// the pick is still the ensemble's argmax over the whole space, also where a member disagrees.
TEST(EnsemblePicker, ScreensWithTheFirstMemberAndPicksTheEnsemblesBest) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 3000, 2000, 500};
  for (const std::vector<float>& a : {std::vector<float>{1, 2, 3}, std::vector<float>{1, 1, -0.5f}}) {
    model::Picker picker(scores_ml(a));
    std::vector<gen::Tuning> fits;
    for (const gen::Tuning& t : picker.space(p.data))
      if (model::candidate_fits(p, t)) fits.push_back(t);
    ASSERT_GT(fits.size(), model::Picker::kScreened);
    const std::vector<float> s = picker.score(p, fits);
    const float best = *std::max_element(s.begin(), s.end());
    const gen::Tuning pick = picker.pick(p);
    EXPECT_EQ(pick.ml, 256);
    EXPECT_EQ(picker.score(p, {pick})[0], best);
    const std::vector<model::Picker::Scored> top = picker.top_scored(p, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_TRUE(top[0].tuning == pick);
    EXPECT_GE(top[1].log2_tflops, top[2].log2_tflops);
  }
}

// The ensemble ranks only what the first member screened: members 1-2 favour small tiles so
// strongly that the whole ensemble's argmax over the space has ml = 16, while the first member
// keeps only large tiles among its best kScreened, so the pick is a large tile. And top_scored()
// asked for more than kScreened widens the screen: every entry is the ensemble's score.
TEST(EnsemblePicker, TheScreenDecidesWhatTheEnsembleRanks) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 3000, 2000, 500};
  model::Picker picker(scores_ml({1, -10, -10}));
  std::vector<gen::Tuning> fits;
  for (const gen::Tuning& t : picker.space(p.data))
    if (model::candidate_fits(p, t)) fits.push_back(t);
  const std::size_t large = static_cast<std::size_t>(std::count_if(fits.begin(), fits.end(), [](const gen::Tuning& t) { return t.ml >= 128; }));
  ASSERT_GE(large, model::Picker::kScreened);  // the screen holds large tiles only
  const std::vector<float> s = picker.score(p, fits);
  const gen::Tuning unscreened = fits[static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin())];
  EXPECT_EQ(unscreened.ml, 16);
  EXPECT_GE(picker.pick(p).ml, 128);
  const int wide = static_cast<int>(model::Picker::kScreened) + 100;
  const std::vector<model::Picker::Scored> top = picker.top_scored(p, wide);
  ASSERT_EQ(top.size(), static_cast<std::size_t>(wide));
  for (std::size_t i = 0; i < top.size(); ++i) {
    ASSERT_EQ(top[i].log2_tflops, picker.score(p, {top[i].tuning})[0]) << i;
    if (i > 0) {
      ASSERT_GE(top[i - 1].log2_tflops, top[i].log2_tflops) << i;
    }
  }
}

// With trust_all_members, one member predicting the fallback faster keeps the fallback, however
// far the mean is past the trust margin.
TEST(EnsemblePicker, TrustAllMembersKeepsTheFallbackWhenOneDisagrees) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 3000, 2000, 500};
  model::Picker probe(scores_ml({1, 1, -0.5f}));
  const gen::Tuning best = probe.pick(p);
  const gen::Tuning* small = nullptr;  // ml = 16: the mean predicts it 2 log2 units slower
  for (const gen::Tuning& t : probe.space(p.data))
    if (!small && t.ml == 16 && model::candidate_fits(p, t)) small = &t;
  ASSERT_TRUE(small);
  model::Model m = scores_ml({1, 1, -0.5f});
  m.trust_margin = 0.5f;
  EXPECT_EQ(model::Picker(m).pick(p, *small), best);
  m.trust_all_members = true;
  EXPECT_EQ(model::Picker(m).pick(p, *small), *small);
  model::Model agree = scores_ml({1, 2, 3});
  agree.trust_all_members = true;
  EXPECT_EQ(model::Picker(std::move(agree)).pick(p, *small).ml, 256);
}

class EnsembleFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptxblas-ensemble-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    m_.device_key = "test-sm90";
    m_.mean.assign(static_cast<std::size_t>(model::feature_count()), 0.0f);
    m_.stddev.assign(static_cast<std::size_t>(model::feature_count()), 1.0f);
    std::vector<Mlp> members;
    for (std::uint64_t s = 1; s <= 4; ++s) members.push_back(Mlp::random({model::feature_count(), 16, 24, 8, 1}, s));
    m_.mlp = tuner::ensemble_of(members);
    m_.members = 4;
    m_.trust_all_members = true;
    model::save_model(m_, dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The saved model.toml with `from` replaced by `to`: the load's error line (none: a failure).
  std::string load_error_with(const std::string& from, const std::string& to) {
    std::ifstream in(dir_ / "model.toml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no '" << from << "' in model.toml";
      return "";
    }
    std::ofstream(dir_ / "model.toml") << text.replace(at, from.size(), to);
    std::string error;
    const bool loaded = model::load_model(dir_, error).has_value();
    std::ofstream(dir_ / "model.toml") << text.replace(at, to.size(), from);  // as saved again
    EXPECT_FALSE(loaded) << to;
    return error;
  }
  model::Model m_;
  fs::path dir_;
};

TEST_F(EnsembleFile, RoundTripKeepsGroupsAndPredictions) {
  std::string error;
  const auto back = model::load_model(dir_, error);
  ASSERT_TRUE(back.has_value()) << error;
  ASSERT_EQ(back->mlp.layers().size(), 4u);
  EXPECT_EQ(back->mlp.layers()[0].groups, 1);
  EXPECT_EQ(back->mlp.layers()[1].groups, 4);
  EXPECT_EQ(back->mlp.layers()[2].groups, 4);
  EXPECT_EQ(back->mlp.layers()[3].groups, 1);
  EXPECT_EQ(back->members, 4);
  EXPECT_TRUE(back->trust_all_members);
  const std::vector<float> x = inputs(9, model::feature_count(), 4);
  EXPECT_EQ(predict(m_.mlp, x, 9), predict(back->mlp, x, 9));
}

TEST_F(EnsembleFile, MembersMustMatchTheLayers) {
  for (const char* members : {"members = 3", "members = 0", "members = 99"})
    EXPECT_NE(load_error_with("members = 4", members).find("members"), std::string::npos) << members;
}

TEST_F(EnsembleFile, MembersAndTheirRuleMustBeOfTheirKind) {
  for (const char* members : {"members = 4.0", "members = '4'", "members = true"})
    EXPECT_NE(load_error_with("members = 4", members).find("members"), std::string::npos) << members;
  for (const char* all : {"trust_all_members = 1", "trust_all_members = 'yes'"})
    EXPECT_NE(load_error_with("trust_all_members = true", all).find("trust_all_members"), std::string::npos) << all;
}

TEST_F(EnsembleFile, BadGroupsGiveOneLine) {
  for (const char* groups : {"groups = [ 1, 3, 4, 1 ]", "groups = [ 1, 4, 4 ]", "groups = [ 1, 0, 4, 1 ]",
                             "groups = [ 1, 'x', 4, 1 ]", "groups = [ 1, 2, 4, 1 ]"})
    EXPECT_NE(load_error_with("groups = [ 1, 4, 4, 1 ]", groups).find("model.toml"), std::string::npos) << groups;
}

tuner::TrainOptions ensemble_options(int members, int threads) {
  tuner::TrainOptions o;
  o.hidden = {16, 16};
  o.epochs = 8;
  o.batch = 32;
  o.learning_rate = 3e-3f;
  o.seed = 5;
  o.members = members;
  o.threads = threads;
  return o;
}

// Members on threads give the same weights as members one after another, the first member is the
// single network of the same seed, and the mean of members predicts no worse on held-out rows than
// they do on average.
TEST(EnsembleTraining, ReproducibleOnAnyThreadCountAndNoWorseThanItsMembers) {
  const auto rows = modeltest::synthetic_dataset(800, 3);
  tuner::TrainReport r1, r2, single;
  const model::Model a = tuner::train_model(rows, ensemble_options(3, 1), r1);
  const model::Model b = tuner::train_model(rows, ensemble_options(3, 3), r2);
  const model::Model one = tuner::train_model(rows, ensemble_options(1, 1), single);
  ASSERT_EQ(a.mlp.layers().size(), b.mlp.layers().size());
  for (std::size_t i = 0; i < a.mlp.layers().size(); ++i) {
    EXPECT_EQ(a.mlp.layers()[i].w, b.mlp.layers()[i].w);
    EXPECT_EQ(a.mlp.layers()[i].b, b.mlp.layers()[i].b);
  }
  EXPECT_EQ(a.mlp.layers()[1].groups, 3);
  EXPECT_EQ(a.members, 3);
  EXPECT_EQ(one.members, 1);
  ASSERT_EQ(r1.member_holdout_mse.size(), 3u);
  EXPECT_EQ(r1.member_holdout_mse[0], single.holdout_mse);
  EXPECT_NE(r1.member_holdout_mse[0], r1.member_holdout_mse[1]);
  const double members_mean = (r1.member_holdout_mse[0] + r1.member_holdout_mse[1] + r1.member_holdout_mse[2]) / 3;
  EXPECT_LE(r1.holdout_mse, members_mean);  // Jensen: the mean's error never exceeds the mean error
  EXPECT_EQ(a.mean, one.mean);              // one split, one normalisation
}

// Members without hidden layers fold into one linear network, saved and loaded as one; a seed's
// high 32 bits reach the members' seeds (seed_seq keeps 32 bits of each value).
TEST(EnsembleTraining, LinearMembersFoldIntoOneAndTheSeedsHighBitsCount) {
  const auto rows = modeltest::synthetic_dataset(400, 3);
  tuner::TrainOptions linear = ensemble_options(3, 2);
  linear.hidden.clear();
  tuner::TrainReport r;
  model::Model m = tuner::train_model(rows, linear, r);
  EXPECT_EQ(m.members, 1);
  m.device_key = "test-sm90";
  const fs::path dir = fs::temp_directory_path() / ("ptxblas-linear-ensemble-" + std::to_string(::getpid()));
  model::save_model(m, dir);
  std::string error;
  EXPECT_TRUE(model::load_model(dir, error).has_value()) << error;
  fs::remove_all(dir);

  // (Two whole trainings would differ anyway: the split's generator takes all 64 bits.)
  const std::uint64_t seed = 5, above = seed + (std::uint64_t{1} << 32);
  for (int k : {1, 2}) {
    std::seed_seq old_seeds{seed, static_cast<std::uint64_t>(k)};  // what members always had
    EXPECT_EQ(tuner::member_rng(seed, k)(), std::mt19937_64(old_seeds)()) << k;
    EXPECT_NE(tuner::member_rng(above, k)(), tuner::member_rng(seed, k)()) << k;
  }
}

}  // namespace
