// Training lowers the loss on a synthetic function, generalises to held-out rows, and is
// reproducible: the same data and seed give the same weights bit for bit.
#include <gtest/gtest.h>

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

TEST(Training, NeedsBenchmarkedRows) {
  auto rows = synthetic_dataset(10, 1);
  for (auto& r : rows) r.tflops.reset();
  tuner::TrainReport rep;
  EXPECT_THROW(tuner::train_model(rows, small_options(1), rep), std::invalid_argument);
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

  std::stringstream bad(std::string(tuner::kDatasetHeader) + "\nkey,S,N,N,1,2,3,64,64,8,4,4,1,1,1.0\nkey,Q,N\n");
  try {
    tuner::read_dataset(bad);
    FAIL() << "a malformed line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}

}  // namespace
