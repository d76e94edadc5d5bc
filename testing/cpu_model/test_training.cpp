// Training lowers the loss on a synthetic function, generalises to held-out rows, and is
// reproducible: the same data and seed give the same weights bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "synthetic.hpp"
#include "trainer.hpp"

namespace {

using namespace modeltest;

tuner::TrainOptions small_options(std::uint64_t seed) {
  tuner::TrainOptions o;
  o.hidden = {32, 32};
  o.epochs = 25;
  o.batch = 32;
  o.learning_rate = 3e-3f;
  o.seed = seed;
  return o;
}

TEST(Training, LowersTheLossAndGeneralises) {
  const auto rows = synthetic_dataset(3000, 5);
  tuner::TrainReport rep;
  const model::Model m = tuner::train_model(rows, small_options(1), rep);
  ASSERT_EQ(rep.epoch_mse.size(), 25u);
  EXPECT_LT(rep.epoch_mse.back(), 0.5 * rep.epoch_mse.front());
  // Variance of the target, for scale: the model must explain most of it on unseen rows.
  double mean = 0, var = 0;
  for (const auto& r : rows) mean += std::log2(*r.tflops);
  mean /= static_cast<double>(rows.size());
  for (const auto& r : rows) var += std::pow(std::log2(*r.tflops) - mean, 2);
  var /= static_cast<double>(rows.size());
  EXPECT_LT(rep.holdout_mse, 0.25 * var) << "held-out MSE " << rep.holdout_mse << ", target variance " << var;
  EXPECT_EQ(rep.train_rows + rep.holdout_rows, rows.size());
  EXPECT_NEAR(tuner::model_mse(m, rows), (rep.train_mse * rep.train_rows + rep.holdout_mse * rep.holdout_rows) /
                                             static_cast<double>(rows.size()), 1e-3);
}

TEST(Training, SameSeedSameWeights) {
  const auto rows = synthetic_dataset(500, 9);
  tuner::TrainReport r1, r2, r3;
  const model::Model a = tuner::train_model(rows, small_options(3), r1);
  const model::Model b = tuner::train_model(rows, small_options(3), r2);
  const model::Model c = tuner::train_model(rows, small_options(4), r3);
  for (std::size_t i = 0; i < a.mlp.layers().size(); ++i) {
    EXPECT_EQ(a.mlp.layers()[i].w, b.mlp.layers()[i].w);
    EXPECT_EQ(a.mlp.layers()[i].b, b.mlp.layers()[i].b);
  }
  EXPECT_NE(a.mlp.layers()[0].w, c.mlp.layers()[0].w);
  EXPECT_EQ(r1.holdout_mse, r2.holdout_mse);
}

// Several configurations per problem, each problem's speeds scaled by a factor no feature
// explains (as one machine's state or clock might): only their order within a problem is
// learnable, which is what dispatch compares.
std::vector<tuner::Sample> offset_problems(int problems, int per_problem, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  tuner::CategoricalSampler s;
  s.learn(gen::DataType::F32, 2000, rng);
  std::uniform_real_distribution<double> offset(-3.0, 3.0);
  std::vector<tuner::Sample> out;
  for (int p = 0; p < problems; ++p) {
    const model::Problem problem = [&] {
      model::Problem q = tuner::draw_problem(rng, 0, 8192, 8192);
      q.data = gen::DataType::F32;
      return q;
    }();
    const double scale = std::exp2(offset(rng));
    for (int c = 0; c < per_problem;) {
      tuner::Sample x;
      x.device_key = "synthetic-sm90";
      x.problem = problem;
      x.tuning = s.draw(rng);
      if (!gen::why_excluded(x.problem.data, x.tuning).empty()) continue;
      x.tflops = synthetic_tflops(x.problem, x.tuning) * scale;
      out.push_back(x);
      ++c;
    }
  }
  return out;
}

TEST(Training, RankWeightLearnsTheOrderWithinAProblem) {
  const auto rows = offset_problems(300, 10, 21);
  tuner::TrainOptions plain = small_options(5), ranked = small_options(5);
  ranked.rank_weight = 4.0f;
  tuner::TrainReport rp, rr, again;
  const model::Model mp = tuner::train_model(rows, plain, rp);
  const model::Model mr = tuner::train_model(rows, ranked, rr);
  std::printf("held-out within-problem MSE: plain %.4f, rank weight 4 %.4f; pick geomean %.3f, %.3f\n",
              rp.holdout_rank_mse, rr.holdout_rank_mse, rp.holdout_pick.geomean, rr.holdout_pick.geomean);
  EXPECT_LT(rr.holdout_rank_mse, 0.5 * rp.holdout_rank_mse);  // 0.093 against 0.381 when written
  EXPECT_GT(rr.holdout_pick.geomean, rp.holdout_pick.geomean);
  // Whole-problem batches are reproducible too, and the within-problem error is at most the error.
  const model::Model mr2 = tuner::train_model(rows, ranked, again);
  EXPECT_EQ(mr.mlp.layers()[0].w, mr2.mlp.layers()[0].w);
  EXPECT_EQ(rr.holdout_rank_mse, again.holdout_rank_mse);
  std::vector<const tuner::Sample*> all;
  for (const auto& r : rows) all.push_back(&r);
  EXPECT_LE(tuner::within_problem_mse(mr, all), tuner::model_mse(mr, rows) + 1e-9);
  EXPECT_NE(mp.mlp.layers()[0].w, mr.mlp.layers()[0].w);
}

// `ptxblas-tune score` compares models on the rows train held out: the same rows, the same numbers.
TEST(Training, HeldOutRowsAreTrainsOwn) {
  const auto rows = offset_problems(120, 6, 8);
  tuner::TrainReport rep;
  const model::Model m = tuner::train_model(rows, small_options(7), rep);
  const auto held = tuner::held_out_rows(rows, 7, small_options(7).holdout);
  ASSERT_EQ(held.size(), rep.holdout_rows);
  EXPECT_NEAR(tuner::model_mse(m, held), rep.holdout_mse, 1e-9);
  EXPECT_NEAR(tuner::within_problem_mse(m, held), rep.holdout_rank_mse, 1e-9);
  const tuner::PickQuality q = tuner::pick_quality(m, held);
  EXPECT_EQ(q.problems, rep.holdout_pick.problems);
  EXPECT_EQ(q.geomean, rep.holdout_pick.geomean);
  EXPECT_NE(tuner::held_out_rows(rows, 8, 0.2), held);  // another seed, other problems
}

TEST(Training, NeedsBenchmarkedRows) {
  auto rows = synthetic_dataset(10, 1);
  for (auto& r : rows) r.tflops.reset();
  tuner::TrainReport rep;
  EXPECT_THROW(tuner::train_model(rows, small_options(1), rep), std::invalid_argument);
}

// read_dataset's error for `text`, or "accepted".
std::string read_error(const std::string& text) {
  std::stringstream in(text);
  try {
    tuner::read_dataset(in);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Dataset, RoundTripsAndReportsBadLines) {
  const auto rows = synthetic_dataset(20, 2);
  std::stringstream ss;
  tuner::write_header(ss);
  for (const auto& r : rows) tuner::write_row(ss, r);
  tuner::Sample pending = rows[0];
  pending.tflops.reset();
  tuner::write_row(ss, pending);
  const auto back = tuner::read_dataset(ss);
  ASSERT_EQ(back.size(), rows.size() + 1);
  EXPECT_EQ(back[3].problem, rows[3].problem);
  EXPECT_EQ(back[3].tuning, rows[3].tuning);
  EXPECT_NEAR(*back[3].tflops, *rows[3].tflops, 1e-4 * *rows[3].tflops);
  EXPECT_FALSE(back.back().tflops.has_value());

  // A row of the first format (no family, stages, pad) reads as SIMT, one stage, no pad.
  std::stringstream old("key,S,N,N,1,2,3,64,64,8,4,4,1,1,1.0\nkey,H,N,T,5,6,7,64,64,32,32,32,1,2,1,2,1,9.5\n");
  const auto both = tuner::read_dataset(old);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].tuning.family, 0);
  EXPECT_EQ(both[0].tuning.stages, 1);
  EXPECT_EQ(both[1].tuning.family, 1);
  EXPECT_EQ(both[1].tuning.stages, 2);
  EXPECT_EQ(both[1].tuning.pad, 1);
  EXPECT_EQ(both[1].tuning.kg, 2);

  // Windows line ends (a dataset saved by a spreadsheet or Python's csv module) read the same.
  std::stringstream crlf(std::string(tuner::kDatasetHeader) + "\r\nkey,H,N,T,5,6,7,64,64,32,32,32,1,2,1,2,1,9.5\r\n");
  const auto windows = tuner::read_dataset(crlf);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].tuning, both[1].tuning);
  EXPECT_DOUBLE_EQ(*windows[0].tflops, 9.5);

  const std::string bad = read_error(std::string(tuner::kDatasetHeader) + "\nkey,S,N,N,1,2,3,64,64,8,4,4,1,1,1.0\nkey,Q,N\n");
  EXPECT_NE(bad.find("line 3"), std::string::npos) << bad;
}

TEST(Dataset, ACompressedFileIsNamedAsSuch) {
  const std::string gz = read_error(std::string("\x1f\x8b\x08\x00", 4) + "binary");
  EXPECT_NE(gz.find("gunzip it first"), std::string::npos) << gz;
}

TEST(Dataset, AFilesErrorsNameIt) {
  const std::string path = ::testing::TempDir() + "ptxblas-bad-dataset.csv";
  std::ofstream(path) << tuner::kDatasetHeader << "\nkey,S,N,N,1,2,3,64,64,8,4,4,1,1,0,1,0,slow\n";
  try {
    tuner::read_dataset_file(path);
    FAIL() << "a bad file was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": dataset line 2: tflops 'slow' is not a number");
  }
  std::remove(path.c_str());
  EXPECT_THROW(tuner::read_dataset_file(path), std::runtime_error);  // gone: "cannot read"
}

TEST(Dataset, ABadFieldIsNamedWithWhatWasFound) {
  const std::string good = "key,S,N,N,1,2,3,64,64,8,4,4,1,1,0,1,0,1.5";
  ASSERT_EQ(read_error(good), "accepted");
  // One field of `good` replaced, and what the message must say.
  const struct {
    int field;
    const char* text;
    const char* message;
  } cases[] = {{4, "x", "m 'x' is not an integer"},      {6, "12abc", "k '12abc' is not an integer"},
               {5, "0", "at least 1"},                   {8, "", "nl '' is not an integer"},
               {13, "99999999999", "kg '99999999999'"},   {17, "fast", "tflops 'fast' is not a number"},
               {17, "0", "tflops must be positive"},      {17, "nan", "tflops must be positive"}};
  for (const auto& c : cases) {
    std::vector<std::string> f;
    std::stringstream in(good);
    for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
    f[c.field] = c.text;
    std::string line;
    for (const std::string& cell : f) line += (line.empty() ? "" : ",") + cell;
    const std::string error = read_error(std::string(tuner::kDatasetHeader) + "\n" + line + "\n");
    EXPECT_NE(error.find("line 2: "), std::string::npos) << line << ": " << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << line << ": " << error;
  }
}

// pick_quality by hand: a linear "model" that scores log2(ml), so it always takes the largest ml.
TEST(PickQuality, RatioOfTheModelsFirstToTheBestMeasured) {
  const int f = model::feature_count();
  model::Model m;
  m.mean.assign(static_cast<std::size_t>(f), 0.0f);
  m.stddev.assign(static_cast<std::size_t>(f), 1.0f);
  model::DenseLayer l{f, 1, std::vector<float>(static_cast<std::size_t>(f), 0.0f), {0.0f}};
  l.w[model::kProblemFeatures + 0] = 1.0f;  // log2_ml
  m.mlp = model::Mlp({l});
  std::vector<tuner::Sample> rows;
  auto add = [&](std::int64_t mdim, int ml, double tflops) {
    tuner::Sample s;
    s.problem = {gen::DataType::F32, gen::Op::N, gen::Op::N, mdim, 64, 64};
    s.tuning.ml = ml;
    s.tflops = tflops;
    rows.push_back(s);
  };
  add(100, 32, 5), add(100, 64, 10), add(100, 128, 8);  // picks 128: 0.8 of the best
  add(200, 16, 2), add(200, 64, 4);                     // picks 64: the best
  add(300, 64, 3);                                      // one configuration: not counted
  std::vector<const tuner::Sample*> ptrs;
  for (const auto& r : rows) ptrs.push_back(&r);
  const tuner::PickQuality q = tuner::pick_quality(m, ptrs);
  EXPECT_EQ(q.problems, 2u);
  EXPECT_DOUBLE_EQ(q.worst, 0.8);
  EXPECT_DOUBLE_EQ(q.median, 1.0);
  EXPECT_NEAR(q.geomean, std::sqrt(0.8), 1e-12);
}

TEST(Features, PairFeaturesByHand) {
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::N, 100, 50, 1000};
  gen::Tuning t;
  t.ml = 64, t.nl = 32, t.kg = 4;
  float x[model::kPairFeatures];
  model::write_pair_features(p, t, x);
  EXPECT_FLOAT_EQ(x[0], 4.0f);                          // 2 x 2 tiles x 4 slices
  EXPECT_FLOAT_EQ(x[1], static_cast<float>(std::log2(251.0)));  // 250-deep slices
  EXPECT_FLOAT_EQ(x[2], 5000.0f / (128.0f * 64.0f));    // C's share of the tiles' area
}

}  // namespace
