// ptxblas-tune: turns device time into a performance model (ISAAC §4-6).
//   sample  draw (problem, configuration) pairs from the learned categorical model -> CSV
//   bench   time pending samples on the GPU -> dataset CSV (resumable, time-boxed; the kernels
//           compiled ahead by --jit-workers processes, `jit-warm`, into the driver's JIT cache)
//   train   fit the MLP on benchmarked rows, report the held-out error -> model folder
//   score   compare models on the problems train held out (error, pick quality)
//   merge   models trained on the same rows as one ensemble of all their members
//   export  check a trained model and install it as models/<device key>/
//   space   print, per type and layout, how many configurations are legal and survive pruning
//   eval    on held-out shapes, the model's pick against a brute-force oracle and cuBLAS (GPU)
//   pick    the model's choice per shape and the host time of a first pick (CPU)
//   remeasure  the dataset rows dispatch runs lowered, as samples to time again (CPU)
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "cli_checks.hpp"
#include "bench_runner.hpp"
#include "eval_candidates.hpp"
#include "mma_grid.hpp"
#include "model_eval.hpp"
#include "dataset.hpp"
#include "dispatch_mirror.hpp"
#include "model_choice.hpp"
#include "model_file.hpp"
#include "picker.hpp"
#include "problem_configs.hpp"
#include "progress.hpp"
#include "sampler.hpp"
#include "resources.hpp"
#include "tile_catalog.hpp"
#include "ensemble.hpp"
#include "trainer.hpp"

namespace fs = std::filesystem;
using namespace ptxblas;

namespace {

constexpr gen::DataType kTypes[] = {gen::DataType::F32, gen::DataType::F64, gen::DataType::C32,
                                    gen::DataType::C64, gen::DataType::F16, gen::DataType::BF16};

// A model folder, or a std::runtime_error with load_model's one-line reason (it names the file).
model::Model load_or_throw(const std::string& dir) {
  std::string error;
  std::optional<model::Model> m = model::load_model(dir, error);
  if (!m) throw std::runtime_error(error);
  return std::move(*m);
}

int cmd_sample(int count, int learn_draws, std::uint64_t seed, const std::string& device, const tuner::ConfigMix& mix,
               int sms, double min_gflop, const std::string& types, const std::string& model_dir,
               const std::string& out_path) {
  std::mt19937_64 rng(seed);
  std::unique_ptr<model::Picker> picker;
  if (!model_dir.empty()) {
    picker = std::make_unique<model::Picker>(load_or_throw(model_dir));
  }
  std::ofstream out(out_path);
  if (!out) throw std::runtime_error("cannot write " + out_path);
  tuner::write_header(out);
  // One learned sampler per type (legality depends on the type's element size).
  std::vector<tuner::CategoricalSampler> samplers;
  for (gen::DataType t : kTypes) {
    tuner::CategoricalSampler s(1.0);
    s.learn(t, learn_draws, rng);
    const double learned = tuner::acceptance_rate([&](std::mt19937_64& r) { return s.draw(r); }, t, 2000, rng);
    const double uniform = tuner::acceptance_rate([](std::mt19937_64& r) { return tuner::draw_uniform(r); }, t, 2000, rng);
    std::printf("type %c: acceptance %.1f%% learned vs %.1f%% uniform\n", tuner::type_code(t), 100 * learned,
                100 * uniform);
    samplers.push_back(s);
  }
  tuner::Progress bar("sample", count);
  int written = 0, problems = 0, seeded = 0;
  while (written < count) {
    tuner::Sample s;
    s.device_key = device;
    do s.problem = tuner::draw_problem(rng, min_gflop * 1e9);
    while (types.find(tuner::type_code(s.problem.data)) == std::string::npos);
    std::size_t ti = 0;
    while (kTypes[ti] != s.problem.data) ++ti;
    const std::vector<gen::Tuning> configs = tuner::problem_configs(s.problem, samplers[ti], mix, sms, rng, picker.get());
    ++problems;
    seeded += tuner::heuristic_tuning(s.problem, sms).has_value();
    for (const gen::Tuning& t : configs) {
      if (written == count) break;
      s.tuning = t;
      tuner::write_row(out, s);
      bar.step(++written);
    }
  }
  bar.done();
  std::printf("%d rows over %d problems (%d with the heuristic's pick and its neighbours)\n", written, problems,
              seeded);
  return 0;
}

std::vector<tuner::Sample> read_all(const std::vector<std::string>& paths) {
  std::vector<tuner::Sample> rows;
  for (const std::string& p : paths) {
    const auto part = tuner::read_dataset_file(p);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

int cmd_train(const std::vector<std::string>& data, const tuner::TrainOptions& opt, const std::string& out_dir) {
  std::size_t replaced = 0;
  const std::vector<tuner::Sample> rows = tuner::latest_rows(read_all(data), replaced);
  if (replaced > 0) std::printf("%zu rows measured again in a later file replace their earlier ones\n", replaced);
  tuner::TrainReport rep;
  const auto t0 = std::chrono::steady_clock::now();
  model::Model m = tuner::train_model(rows, opt, rep);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("trained on %zu rows, held out %zu: MSE(log2 TFLOP/s) train %.4f, held-out %.4f, held-out within "
              "problems %.4f (%.1f s)\n",
              rep.train_rows, rep.holdout_rows, rep.train_mse, rep.holdout_mse, rep.holdout_rank_mse, secs);
  const tuner::PickQuality& q = rep.holdout_pick;
  std::printf("held-out problems: the model's first of their measured configurations runs at %.3f of the best "
              "at the median, %.3f at the 10th percentile, %.3f at worst, geomean %.3f (%zu problems)\n",
              q.median, q.p10, q.worst, q.geomean, q.problems);
  std::string members;
  if (rep.member_holdout_mse.size() > 1 && m.members > 1) {  // linear members fold into one network
    members = ", ensemble of " + std::to_string(rep.member_holdout_mse.size()) + " (members' held-out MSE";
    for (double e : rep.member_holdout_mse) {
      char one[16];
      std::snprintf(one, sizeof one, " %.4f", e);
      members += one;
    }
    members += ")";
    std::printf("%s\n", members.c_str() + 2);
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "ptxblas-tune train: %zu rows, %zu held out (whole problems), held-out MSE %.4f, pick median "
                "%.3f p10 %.3f of the best measured, seed %llu",
                rep.train_rows, rep.holdout_rows, rep.holdout_mse, q.median, q.p10,
                static_cast<unsigned long long>(opt.seed));
  if (opt.rank_weight > 0) {
    const std::size_t used = std::strlen(buf);
    std::snprintf(buf + used, sizeof buf - used, ", rank weight %g (held-out within-problem MSE %.4f)",
                  static_cast<double>(opt.rank_weight), rep.holdout_rank_mse);
  }
  m.trained_with = buf + members;
  model::save_model(m, out_dir);
  std::printf("wrote %s\n", out_dir.c_str());
  return 0;
}

// Models trained on the same files, compared on the problems `train --seed S --holdout F` kept
// out: error, error within problems, and the measured speed of each one's first pick.
int cmd_score(const std::vector<std::string>& models, const std::vector<std::string>& data, std::uint64_t seed,
              double fraction) {
  std::size_t replaced = 0;
  const std::vector<tuner::Sample> rows = tuner::latest_rows(read_all(data), replaced);
  const std::vector<const tuner::Sample*> held = tuner::held_out_rows(rows, seed, fraction);
  std::printf("%zu held-out rows (seed %llu, fraction %g); pick = the model's first of each problem's measured "
              "configurations over the best\n",
              held.size(), static_cast<unsigned long long>(seed), fraction);
  std::printf("%-40s %8s %8s %7s %7s %7s %7s\n", "model", "MSE", "within", "median", "p10", "worst", "geomean");
  for (const std::string& dir : models) {
    const model::Model m = load_or_throw(dir);
    const tuner::PickQuality q = tuner::pick_quality(m, held);
    std::printf("%-40s %8.4f %8.4f %7.3f %7.3f %7.3f %7.3f\n", dir.c_str(), tuner::model_mse(m, held),
                tuner::within_problem_mse(m, held), q.median, q.p10, q.worst, q.geomean);
  }
  return 0;
}

int cmd_merge(const std::vector<std::string>& dirs, const std::string& out_dir) {
  std::vector<model::Model> models;
  for (const std::string& dir : dirs) models.push_back(load_or_throw(dir));
  const model::Model merged = tuner::merge_models(models);
  model::save_model(merged, out_dir);
  std::printf("wrote %s: %d members\n", out_dir.c_str(), merged.members);
  return 0;
}

int cmd_export(const std::string& trained, const std::string& name, int sm, float trust_margin,
               bool trust_all_members, const std::string& models_dir) {
  model::Model m = load_or_throw(trained);
  m.trust_margin = trust_margin;
  m.trust_all_members = trust_all_members && m.members > 1;
  m.device_name = name;
  m.sm = sm;
  m.device_key = model::device_key(name, sm);
  const fs::path dir = fs::path(models_dir) / m.device_key;
  model::save_model(m, dir);
  std::printf("installed %s\n", dir.string().c_str());
  return 0;
}

// Per type and layout (op(A) op(B); C copies like T): how many points of the tuning space (both
// families, stages, pad) are legal for that layout, and how many survive pruning (which also
// asks an mma tile to be legal for every layout).
int cmd_space() {
  const auto& v = gen::tuning_values();
  std::size_t total = 1;
  for (const auto& vals : v) total *= vals.size();
  const std::size_t tiles = total / v[6].size();  // kg does not change legality
  std::printf("tuning space: %zu points (%zu tiles x %zu kg)\n", total, tiles, v[6].size());
  std::printf("type layout    legal     kept   (mma kept)\n");
  for (gen::DataType t : kTypes)
    for (gen::Op a : {gen::Op::N, gen::Op::T})
      for (gen::Op b : {gen::Op::N, gen::Op::T}) {
        std::size_t legal = 0, kept = 0, mma = 0;
        gen::for_each_tile([&](const gen::Tuning& tu) {
          gen::KernelConfig c;
          c.data = t;
          c.op_a = a;
          c.op_b = b;
          if (!gen::why_illegal(gen::apply_tuning(c, tu)).empty()) return;
          ++legal;
          if (gen::why_excluded(t, tu).empty()) {
            ++kept;
            mma += tu.family == 1;
          }
        });
        std::printf("%c    %c%c     %8zu %8zu   (%zu)\n", tuner::type_code(t), gen::op_letter(a), gen::op_letter(b),
                    legal * v[6].size(), kept * v[6].size(), mma * v[6].size());
      }
  return 0;
}

// The rows of `data` whose tuning dispatch runs as another kernel (dispatch_mirror.hpp), as
// samples to time again with `bench --as-dispatched`; training on the old files and that one
// then keeps the new measurement of each (latest_rows).
int cmd_remeasure(const std::vector<std::string>& data, const std::string& out_path) {
  std::ofstream out(out_path);
  if (!out) throw std::runtime_error("cannot write " + out_path);
  tuner::write_header(out);
  std::size_t total = 0, picked = 0;
  for (tuner::Sample s : read_all(data)) {
    ++total;
    if (!tuner::lowered_by_dispatch(s.problem, s.tuning)) continue;
    s.tflops.reset();
    tuner::write_row(out, s);
    ++picked;
  }
  std::printf("%zu of %zu rows run lowered by dispatch: written to %s\n", picked, total, out_path.c_str());
  return 0;
}

// The model's choice for each shape, with its predicted speed and the host time a first pick
// takes (space enumeration excluded: it is done once per type). CPU only.
int cmd_pick(const std::string& model_dir, const std::string& shapes_path, int top, int sms) {
  model::Picker picker(load_or_throw(model_dir));
  std::ifstream in(shapes_path);
  if (!in) throw std::runtime_error("cannot read " + shapes_path);
  std::printf("%-4s %-24s %-40s %9s %8s %9s\n", "type", "shape", "model's pick", "pred TF/s", "scored", "pick ms");
  for (const tuner::EvalShape& s : tuner::read_eval_shapes(in)) {
    const model::Problem& p = s.problem;
    std::size_t fits = 0;
    for (const gen::Tuning& t : picker.space(p.data)) fits += model::candidate_fits(p, t);
    const auto t0 = std::chrono::steady_clock::now();
    const gen::Tuning best = picker.pick(p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    gen::KernelConfig base;
    base.data = p.data;
    base.op_a = p.op_a;
    base.op_b = p.op_b;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%c%c %lldx%lldx%lld", gen::op_letter(p.op_a), gen::op_letter(p.op_b),
                  static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k));
    std::printf("%-4c %-24s %-40s %9.4g %8zu %9.2f\n", tuner::type_code(p.data), shape,
                gen::tuning_name(base, best).c_str(), std::exp2(picker.score(p, {best})[0]), fits, ms);
    if (top <= 0) continue;
    // The runners-up and the heuristic's plan (what dispatch keeps unless the pick is predicted
    // trust_margin faster), each with its prediction: where the model is confidently wrong.
    for (const model::Picker::Scored& s2 : picker.top_scored(p, top))
      std::printf("%-4s %-24s   %-38s %9.4g\n", "", "", gen::tuning_name(base, s2.tuning).c_str(),
                  std::exp2(s2.log2_tflops));
    // The heuristic's plan as dispatch weighs the pick against it (dispatch_mirror.hpp), then what
    // dispatch runs without first-sight timing (narrow / skinny plans, size limit, balanced split).
    const gen::Tuning h = tuner::heuristic_fallback(p, sms, tuner::knows_async(picker));
    const gen::Tuning chosen = tuner::model_choice(picker, p, sms);
    const float gain = dispatch::lowering_gain(dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, h), p.m, p.n, p.k);
    char lowered[64] = "";
    if (gain > 0) std::snprintf(lowered, sizeof lowered, " (runs lowered: +%.3f log2)", static_cast<double>(gain));
    std::printf("%-4s %-24s   %-38s %9.4g  heuristic's plan%s: %s\n", "", "", gen::tuning_name(base, h).c_str(),
                std::exp2(picker.score(p, {h})[0]), lowered,
                chosen == h ? "kept (the pick is not trust_margin faster)" : "replaced by the pick");
    const gen::Tuning runs = tuner::dispatched_tuning(&picker, p, sms);
    const bool as_chosen = runs == tuner::run_after_pick(p, chosen, tuner::knows_async(picker));
    std::printf("%-4s %-24s   %-38s %9.4g  dispatch runs%s\n", "", "", gen::tuning_name(base, runs).c_str(),
                std::exp2(picker.score(p, {runs})[0]),
                as_chosen ? "" : " (a narrow, skinny or re-split plan: not the choice above)");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptxblas-tune: sample, train and export the per-device performance model"};
  app.require_subcommand(1);

  int count = 10000, learn_draws = 20000;
  std::uint64_t seed = 1;
  std::string device = "unknown", out = "samples.csv";
  auto* sample = app.add_subcommand("sample", "draw (problem, configuration) pairs into a CSV");
  sample->add_option("--count", count, "samples to write")->check(cli::kPositive);
  sample->add_option("--learn-draws", learn_draws, "uniform draws the categorical model learns from")
      ->check(cli::kNonNegative);
  sample->add_option("--seed", seed, "random seed");
  sample->add_option("--device-key", device, "device key written into each row");
  sample->add_option("--out", out, "output CSV");
  tuner::ConfigMix mix;
  int sms = 132;
  double min_gflop = 0;
  sample->add_option("--per-problem", mix.per_problem, "configurations per problem")
      ->capture_default_str()
      ->check(cli::kPositive);
  sample->add_option("--neighbours", mix.neighbours, "of which one-step neighbours of the heuristic's pick")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  std::string sample_model;
  sample->add_option("--model", sample_model, "a model trained on earlier rows: add its best-predicted configurations");
  sample->add_option("--model-top", mix.model_top, "how many of them per problem")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  sample->add_option("--min-gflop", min_gflop, "draw only problems of at least this much work (2MNK / 1e9)")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  sample->add_option("--sms", sms, "multiprocessors the heuristic plans for (H100: 132)")
      ->capture_default_str()
      ->check(cli::kPositive);
  sample->add_flag("--stage-variants", mix.stage_variants,
                   "add the heuristic's and the model's picks with every other stage count");
  std::string types = "HBSDCZ";
  sample->add_option("--types", types, "draw problems of these types only (letters of HBSDCZ)")
      ->capture_default_str()
      ->check([](const std::string& s) {
        return !s.empty() && s.find_first_not_of("HBSDCZ") == std::string::npos ? std::string{}
                                                                                : std::string("letters of HBSDCZ");
      });

  tuner::BenchOptions bopt;
  auto* bench = app.add_subcommand("bench", "time pending samples on the GPU, append to a dataset");
  bench->add_option("--samples", bopt.samples, "samples CSV from `sample`")->required();
  bench->add_option("--out", bopt.out, "dataset CSV (appended; rows already there are skipped)")->required();
  bench->add_option("--minutes", bopt.minutes, "wall-clock budget")->check(cli::kPositive);
  bench->add_option("--min-ms", bopt.min_ms, "time each configuration at least this long")->check(cli::kPositive);
  bench->add_flag("--as-dispatched", bopt.as_dispatched,
                  "time each configuration as dispatch runs it (its f32 vector-stage lowering), for `remeasure`'s rows");
  bopt.jit_workers = std::max(1u, std::thread::hardware_concurrency());
  bench->add_option("--jit-workers", bopt.jit_workers,
                    "processes compiling the kernels into the driver's JIT cache before timing (1: none)")
      ->capture_default_str()
      ->check(cli::kPositive);
  std::string warm_samples;
  int shard = 0, shards = 1;
  auto* warm = app.add_subcommand("jit-warm", "one JIT worker of `bench` (internal)");
  warm->group("");  // not listed in --help: bench starts it
  warm->add_option("--samples", warm_samples)->required();
  warm->add_option("--shard", shard)->required();
  warm->add_option("--shards", shards)->required()->check(cli::kPositive);

  std::vector<std::string> data;
  tuner::TrainOptions opt;
  std::string model_out = "trained-model";
  auto* train = app.add_subcommand("train", "train the MLP on benchmarked rows");
  train->add_option("--data", data, "dataset CSV files")->required();
  train->add_option("--hidden", opt.hidden, "hidden layer widths")->check(cli::kPositive);
  train->add_option("--epochs", opt.epochs, "passes over the data")->check(cli::kPositive);
  train->add_option("--batch", opt.batch, "mini-batch size")->check(cli::kPositive);
  train->add_option("--lr", opt.learning_rate, "Adam learning rate")->check(cli::kPositive);
  train->add_option("--seed", opt.seed, "seed for initial weights and shuffling");
  train->add_option("--holdout", opt.holdout, "fraction of rows held out")->check(CLI::Range(0.0, 0.9));
  train->add_option("--out", model_out, "folder for the trained model");
  train->add_option("--members", opt.members, "networks averaged into one model (an ensemble; 1: a single network)")
      ->check(CLI::Range(1, 64));
  train->add_option("--threads", opt.threads, "members trained at once (0: one per core)")->check(cli::kNonNegative);
  train->add_option("--rank-weight", opt.rank_weight,
                    "batches of whole problems, loss MSE + this x the error left after each problem's mean error")
      ->check(CLI::Range(0.0f, 100.0f));

  std::string trained = "trained-model", name, models_dir = "models";
  int sm = 0;
  auto* exp = app.add_subcommand("export", "install a trained model for a device");
  exp->add_option("--model", trained, "trained model folder")->required();
  exp->add_option("--device-name", name, "device name as the driver reports it")->required();
  exp->add_option("--sm", sm, "compute capability as 10*major+minor")->required()->check(cli::kPositive);
  exp->add_option("--models-dir", models_dir, "the repository's models/ folder");
  float trust_margin = 0.15f;
  exp->add_option("--trust-margin", trust_margin,
                  "log2: dispatch takes the model's pick over the heuristic's plan only when predicted this much faster")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 2.0f));
  bool trust_all_members = false;
  exp->add_flag("--trust-all-members", trust_all_members,
                "an ensemble's pick replaces the heuristic's plan only if every member predicts it faster too");

  auto* space = app.add_subcommand("space", "count legal and pruned configurations per type and layout");

  tuner::EvalOptions eopt;
  auto* eval = app.add_subcommand("eval", "model's pick vs a brute-force oracle and cuBLAS on held-out shapes (GPU)");
  eval->add_option("--model", eopt.model_dirs, "trained or exported model folders (the first one's CSV)")->required();
  eval->add_option("--shapes", eopt.shapes, "held-out shapes (bench suite format)")->required();
  eval->add_option("--out", eopt.out, "CSV to write (testing/reports/h100-model-eval.csv)")->required();
  eval->add_option("--top", eopt.top, "the model's next best candidates the oracle times")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  eval->add_option("--random", eopt.random, "random candidates of the pruned space the oracle times")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  eval->add_option("--seed", eopt.seed, "seed of the random candidates");
  eval->add_option("--first-sight-k", eopt.first_sight_k,
                   "also report the best of the heuristic's pick and the model's k best (dispatch.benchmark_top_k)")
      ->capture_default_str()
      ->check(cli::kNonNegative);
  eval->add_option("--minutes", eopt.minutes, "wall-clock budget")->capture_default_str()->check(cli::kPositive);
  eval->add_option("--confirm-rounds", eopt.confirm_rounds,
                   "times the finalists are re-timed in turn (0: read the first pass)")
      ->capture_default_str()
      ->check(CLI::Range(0, 15));
  eopt.jit_workers = bopt.jit_workers;
  eval->add_option("--jit-workers", eopt.jit_workers, "processes compiling the candidates before timing (1: none)")
      ->capture_default_str()
      ->check(cli::kPositive);

  std::vector<std::string> score_models, score_data;
  std::uint64_t score_seed = 1;
  double score_holdout = 0.2;
  auto* score = app.add_subcommand(
      "score", "compare models on the problems `train` held out: error and pick quality (CPU)");
  score->add_option("--model", score_models, "trained or exported model folders")->required();
  score->add_option("--data", score_data, "the dataset CSVs they were trained on, in train's order")->required();
  score->add_option("--seed", score_seed, "train's --seed")->capture_default_str();
  score->add_option("--holdout", score_holdout, "train's --holdout")->capture_default_str()->check(CLI::Range(0.0, 0.9));

  std::vector<std::string> merge_dirs;
  std::string merge_out = "merged-model";
  auto* merge = app.add_subcommand(
      "merge", "models trained on the same rows (other losses or seeds) as one ensemble of all their members (CPU)");
  merge->add_option("--model", merge_dirs, "trained or exported model folders")->required();
  merge->add_option("--out", merge_out, "folder for the merged model (then `export` it)")->capture_default_str();

  std::vector<std::string> remeasure_data;
  std::string remeasure_out = "samples-lowered.csv";
  auto* remeasure = app.add_subcommand(
      "remeasure", "the dataset rows dispatch runs lowered, as samples for `bench --as-dispatched` (CPU)");
  remeasure->add_option("--data", remeasure_data, "dataset CSVs")->required();
  remeasure->add_option("--out", remeasure_out, "samples CSV")->capture_default_str();

  std::string pick_model, pick_shapes;
  auto* pick = app.add_subcommand("pick", "print the model's choice per shape and how long a first pick takes (CPU)");
  pick->add_option("--model", pick_model, "trained or exported model folder")->required();
  pick->add_option("--shapes", pick_shapes, "shapes (bench suite format)")->required();
  int pick_top = 0;
  pick->add_option("--top", pick_top, "also print the model's N best and the heuristic's plan, predicted")
      ->check(CLI::Range(0, 4096));
  int pick_sms = 132;
  pick->add_option("--sms", pick_sms, "multiprocessors the heuristic plans for")->capture_default_str()->check(cli::kPositive);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*sample) return cmd_sample(count, learn_draws, seed, device, mix, sms, min_gflop, types, sample_model, out);
    if (*bench) return tuner::run_bench(bopt) >= 0 ? 0 : 1;
    if (*warm) return tuner::run_jit_warm(warm_samples, shard, shards) >= 0 ? 0 : 1;
    if (*train) return cmd_train(data, opt, model_out);
    if (*score) return cmd_score(score_models, score_data, score_seed, score_holdout);
    if (*merge) return cmd_merge(merge_dirs, merge_out);
    if (*exp) return cmd_export(trained, name, sm, trust_margin, trust_all_members, models_dir);
    if (*space) return cmd_space();
    if (*eval) return tuner::run_eval(eopt) > 0 ? 0 : 1;
    if (*remeasure) return cmd_remeasure(remeasure_data, remeasure_out);
    if (*pick) return cmd_pick(pick_model, pick_shapes, pick_top, pick_sms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxblas-tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
