#include "untimed_plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "async_stages.hpp"
#include "model_choice.hpp"

namespace ptxblas::dispatch {
namespace {

// The share of a banded step's K work a tile leaves (1: it skips nothing). Each block row (A band)
// or column (B band) of the tile sums only the K range its rows or columns of the triangle reach,
// so a tile spanning the whole band dimension skips nothing (kernel_abi.hpp kBand*).
double band_work(const GemmCall& call, int ml, int nl) {
  const bool a_band = call.band == gen::kBandALower || call.band == gen::kBandAUpper;
  const bool from_zero = call.band == gen::kBandALower || call.band == gen::kBandBUpper;  // K in [0, end)
  const std::int64_t dim = a_band ? call.m : call.n, tile = a_band ? ml : nl;
  if (dim <= 0 || call.k <= 0 || tile <= 0) return 1.0;
  double reach = 0;
  std::int64_t blocks = 0;
  for (std::int64_t first = 0; first < dim; first += tile, ++blocks)
    reach += static_cast<double>(from_zero ? std::min(call.k, first + tile) : std::max<std::int64_t>(0, call.k - first));
  return std::max(reach / (static_cast<double>(blocks) * static_cast<double>(call.k)), 1e-3);
}

// The model scores plain GEMM. Where its pick for a banded step is one the band cannot profit
// from, a tile spanning the whole band dimension (it skips nothing) or, on a K as short as TRSM's
// leaves, a split of K (its workspace and reduction are a fixed cost the short K does not repay),
// its 32 best unsplit candidates are ranked by predicted speed over the work each tile leaves
// (perf notes §59). Elsewhere the model's pick stands: re-ranking every banded step moved TRMM's
// and DTRSM's tiles for the worse.
gen::Tuning band_choice(const GemmCall& call, model::Picker& picker, const model::Problem& problem,
                        const gen::Tuning& choice) {
  constexpr int kCandidates = 32;
  constexpr std::int64_t kShortK = 256;  // TRSM's widest leaf
  const bool spans = band_work(call, choice.ml, choice.nl) >= 1.0;
  const bool short_split = choice.kg > 1 && call.k <= kShortK;
  if (!spans && !short_split) return choice;
  std::vector<model::Picker::Scored> cands;  // scored once, by the pass that ranks them
  if (!short_split) cands.push_back({choice, picker.score(problem, {choice}).front()});
  for (const model::Picker::Scored& s : picker.top_scored(problem, kCandidates))
    if (s.tuning.kg == 1 || call.k > kShortK) cands.push_back(s);
  if (cands.empty()) return choice;
  std::size_t best = 0;
  double best_score = -1e30;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const double score = cands[i].log2_tflops - std::log2(band_work(call, cands[i].tuning.ml, cands[i].tuning.nl));
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return cands[best].tuning;
}

}  // namespace

Plan plan_of(const GemmCall& call, const gen::Tuning& t) {
  return plan_from_tuning(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, t);
}

Plan heuristic_for_model(const GemmCall& call, const model::Picker& picker, int multiprocessors) {
  const Plan plan = plan_gemm(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, multiprocessors);
  // A model that measured cp.async stages weighs its pick against the heuristic's plan as that
  // would run (lowered); an older model's pick is lowered afterwards, like the heuristic's.
  return picker.model().knows_async_stages() ? with_async_stages(plan) : plan;
}

Plan model_choice_plan(const GemmCall& call, model::Picker& picker, const Plan& heuristic) {
  const model::Problem problem{call.data, call.op_a, call.op_b, call.m, call.n, call.k};
  gen::Tuning choice = model_choice(picker, problem, heuristic);
  if (call.band != gen::kBandNone) choice = band_choice(call, picker, problem, choice);
  return choice == tuning_of(heuristic) ? heuristic : plan_of(call, choice);
}

// A narrow C (plan_narrow) with K at least kNarrowOverModelK takes the heuristic's narrow plan
// without asking the model, whose picks there ran 0.63-0.74 of it (S and Z deepbench N = 16, perf
// notes §70); below, the model is weighed against the narrow plan like any heuristic plan (§105:
// its choices ran x1.11-1.23 of the narrow plan at K = 300-397). So does a skinny C of f64 / c64
// (plan_skinny: the model's picks ran 0.81-0.91 of it, §77). Narrow, skinny and balanced plans,
// one-wave deep splits (§145, §147), c64's two slices for a part-empty round (§149) and f64's
// mid-size square tile (§159) are for plain calls (banded and triangular steps' blocks do unequal
// work).
constexpr std::int64_t kNarrowOverModelK = 512;

Plan untimed_choice(const GemmCall& call, model::Picker* picker, int multiprocessors) {
  const bool plain = is_plain(call);
  const bool model = picker && picker->covers({call.data, call.op_a, call.op_b, call.m, call.n, call.k});
  if (plain) {
    if (std::optional<Plan> narrow =
            plan_narrow(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, multiprocessors);
        narrow && (!model || call.k >= kNarrowOverModelK))
      return *narrow;
    if (std::optional<Plan> skinny =
            plan_skinny(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, multiprocessors))
      return *skinny;
  }
  Plan plan;
  if (model) {
    plan = model_choice_plan(call, *picker, heuristic_for_model(call, *picker, multiprocessors));
    if (!picker->model().knows_async_stages()) plan = with_async_stages(plan);
  } else {
    plan = with_async_stages(
        plan_gemm(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, multiprocessors));
  }
  if (!plain) return plan;
  plan = mid_square_f64_tile(plan, call.m, call.n, call.k);
  plan = balanced_split(plan, call.m, call.n, call.k, multiprocessors);
  plan = deep_split_waves(plan, call.m, call.n, call.k, multiprocessors);
  return split_part_round(plan, call.m, call.n, call.k, multiprocessors);
}

Plan untimed_plan(const GemmCall& call, model::Picker* picker, int multiprocessors) {
  const Plan plan = untimed_choice(call, picker, multiprocessors);
  return is_plain(call) ? with_k_sets(plan, call.m, call.n, call.k) : plan;
}

}  // namespace ptxblas::dispatch
