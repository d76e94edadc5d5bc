// Training the performance model: features normalised by the training rows' mean and deviation,
// target log2 TFLOP/s, MSE loss, Adam, mini-batches shuffled by a fixed seed, single-threaded so
// the same data and seed give the same weights bit for bit (an ensemble's members train on
// threads, each from its own seed, so the same holds for them). With a rank weight, batches hold
// whole problems and the loss adds the error left after each problem's mean error is taken out:
// dispatch only compares configurations of one problem, so their order is what must be right.
#pragma once

#include <random>

#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "model_file.hpp"

namespace ptxblas::tuner {

struct TrainOptions {
  std::vector<int> hidden = {32, 64, 32};  // small: a new shape scores ~10^4 candidates
  int epochs = 60;
  int batch = 64;
  float learning_rate = 1e-3f;
  std::uint64_t seed = 1;
  double holdout = 0.2;  // fraction of problems (all their rows) kept out to report the error on
  int members = 1;       // > 1: an ensemble of this many networks (same split, own seeds), averaged
  int threads = 0;       // members trained at once (0: one per core)
  float rank_weight = 0; // > 0: batches of whole problems, loss MSE + rank_weight x within-problem
                         // MSE (each row's error less its problem's mean error); 0: rows shuffled
};

// Among the measured configurations of each problem, the measured speed of the one the model
// ranks first over the fastest measured: what dispatch would lose on those problems.
struct PickQuality {
  std::size_t problems = 0;  // problems with at least two measured configurations
  double median = 0, p10 = 0, worst = 0, geomean = 0;
};

struct TrainReport {
  std::size_t train_rows = 0, holdout_rows = 0;
  double train_mse = 0, holdout_mse = 0;  // on log2 TFLOP/s
  double holdout_rank_mse = 0;            // held-out error less each problem's mean error
  std::vector<double> epoch_mse;          // training loss after each epoch (the first member's)
  std::vector<double> member_holdout_mse; // each member's own held-out error
  PickQuality holdout_pick;               // on the held-out problems
};

// Trains on the benchmarked rows (tflops > 0). Throws std::invalid_argument without any.
model::Model train_model(const std::vector<Sample>& rows, const TrainOptions& opt, TrainReport& report);

// The generator of ensemble member k >= 1 for --seed `seed` (member 0 goes on with the split's).
std::mt19937_64 member_rng(std::uint64_t seed, int k);

PickQuality pick_quality(const model::Model& m, const std::vector<const Sample*>& rows);

// Mean squared error of the model's log2 TFLOP/s on rows, after each problem's mean error is
// taken out: how well the model orders one problem's configurations.
double within_problem_mse(const model::Model& m, const std::vector<const Sample*>& rows);

// Mean squared error of the model's log2 TFLOP/s on rows.
double model_mse(const model::Model& m, const std::vector<Sample>& rows);
double model_mse(const model::Model& m, const std::vector<const Sample*>& rows);

// The benchmarked rows train_model holds out for this seed and fraction (whole problems), so
// models trained on the same files can be compared on the same unseen problems.
std::vector<const Sample*> held_out_rows(const std::vector<Sample>& rows, std::uint64_t seed, double fraction);

}  // namespace ptxblas::tuner
