// The input-aware choice: every candidate configuration of the space that fits the problem is
// scored by the model (one batched forward pass) and the best predicted one is taken (ISAAC §5).
// An ensemble's first member screens the space and the whole ensemble ranks the screen's best
// (kScreened), so a first pick costs about one network's work. Decisions are cached per
// problem, so a repeated shape costs one hash lookup.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "features.hpp"
#include "model_file.hpp"
#include "param_space.hpp"

namespace ptxblas::model {

// Runtime limits on a candidate beyond the kernel's own legality: K slices at least one K-step
// deep, a bounded split-K workspace, grid limits.
bool candidate_fits(const Problem& p, const gen::Tuning& t);

struct ProblemHash {
  std::size_t operator()(const Problem& p) const;
};

class Picker {
 public:
  static constexpr std::size_t kScreened = 4096;  // an ensemble ranks this many of its first member's best

  explicit Picker(Model m, gen::Limits lim = {});

  // Whether p is no larger (2mnk) than the largest problem the model was trained on. Beyond it,
  // dispatch keeps the heuristic rather than trust an extrapolation (the tuner's problems stop at
  // 0.2 TFLOP so that one run fits a device call; 8192^3 is 1.1).
  bool covers(const Problem& p) const;

  // The model's best candidate for p (cached; thread safe).
  gen::Tuning pick(const Problem& p);

  // The model's best candidate when it predicts it at least the model's trust_margin (log2)
  // faster than `fallback` (the heuristic's plan) with `fallback_gain` (log2) added to the
  // fallback's prediction, and, with trust_all_members, every member of the ensemble predicts it
  // faster too; else `fallback`: where the model cannot tell them apart (its held-out error is
  // ~0.25 in log2) the known choice stays. Cached per problem (callers pass one gain per problem).
  gen::Tuning pick(const Problem& p, const gen::Tuning& fallback, float fallback_gain = 0);

  // The model's k best candidates for p, best first (no cache; fewer when fewer fit). An
  // ensemble's screen keeps max(kScreened, k) of its first member's best.
  std::vector<gen::Tuning> top(const Problem& p, int k);
  // The same with each one's predicted log2 TFLOP/s (as score() gives it).
  struct Scored {
    gen::Tuning tuning;
    float log2_tflops;
  };
  std::vector<Scored> top_scored(const Problem& p, int k);

  // Predicted log2 TFLOP/s of each candidate for p (no cache).
  std::vector<float> score(const Problem& p, const std::vector<gen::Tuning>& candidates) const;

  // The space for a type (enumerated once per type), stages up to the model's max_stages.
  const std::vector<gen::Tuning>& space(gen::DataType t);

  const Model& model() const { return model_; }

 private:
  // A type's space with each configuration's normalised features, computed once: a first pick
  // then only copies them beside the problem's (the logs cost more than the network did).
  struct Space {
    std::vector<gen::Tuning> tunings;
    std::vector<float> features;  // tunings.size() x gen::kTuningParams
  };
  const Space& space_entry(gen::DataType t);

  // Predictions of `net` (the model or one member) for p's candidates, normalised features.
  std::vector<float> predict_with(const Mlp& net, const Problem& p, const std::vector<gen::Tuning>& candidates) const;

  Model model_;
  std::vector<Mlp> members_;  // an ensemble's members, one by one (empty for a single network)
  gen::Limits limits_;
  std::shared_mutex mutex_;
  std::map<gen::DataType, Space> spaces_;
  std::unordered_map<Problem, gen::Tuning, ProblemHash> decisions_;
  std::unordered_map<Problem, gen::Tuning, ProblemHash> guarded_;  // pick(p, fallback)'s
};

}  // namespace ptxblas::model
