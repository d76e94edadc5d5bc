#include "picker.hpp"

#include "job_pool.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

namespace ptxblas::model {
namespace {

constexpr std::int64_t kMaxWorkspaceBytes = std::int64_t{512} << 20;
constexpr std::int64_t kMaxGridY = 65535;

// A first pick is rare and its work large (a type's space, ~25 ms on one core; scoring up to
// ~120k candidates), a thread costs ~50 us: up to 8 threads, no more than the cores.
void run_picker_jobs(std::size_t jobs, const std::function<void(std::size_t)>& job) {
  model::run_jobs(jobs, std::min<std::size_t>(8, std::max(1u, std::thread::hardware_concurrency())), job);
}

void predict_parallel(const Mlp& mlp, const float* x, std::size_t rows, std::size_t features, float* out) {
  constexpr std::size_t kRowsPerJob = 8192;
  run_picker_jobs((rows + kRowsPerJob - 1) / kRowsPerJob, [&](std::size_t j) {
    const std::size_t begin = j * kRowsPerJob, n = std::min(rows, begin + kRowsPerJob) - begin;
    mlp.predict(x + begin * features, static_cast<int>(n), out + begin);
  });
}

}  // namespace

bool candidate_fits(const Problem& p, const gen::Tuning& t) {
  if (t.kg == 1) return true;
  if (p.k < static_cast<std::int64_t>(t.kg) * t.u) return false;  // every slice at least one K-step
  if (p.m * p.n >= (std::int64_t{1} << 31) || p.n > kMaxGridY * t.nl) return false;
  return static_cast<std::int64_t>(t.kg) * p.m * p.n * gen::compute_bytes(p.data) <= kMaxWorkspaceBytes;
}

std::size_t ProblemHash::operator()(const Problem& p) const {
  std::size_t h = static_cast<std::size_t>(p.data) | (static_cast<std::size_t>(p.op_a) << 4) |
                  (static_cast<std::size_t>(p.op_b) << 8);
  for (std::int64_t v : {p.m, p.n, p.k}) h = h * 1000003u ^ std::hash<std::int64_t>{}(v);
  return h;
}

Picker::Picker(Model m, gen::Limits lim) : model_(std::move(m)), limits_(lim) {
  for (int k = 0; model_.members > 1 && k < model_.members; ++k) members_.push_back(model_.mlp.member(model_.members, k));
}

const Picker::Space& Picker::space_entry(gen::DataType t) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = spaces_.find(t); it != spaces_.end()) return it->second;
  }
  // Stages the model never measured would be extrapolation (a model of register-staged rows
  // scored cp.async stages as if they were a third register stage).
  std::vector<gen::SpacePart> parts = gen::space_parts();
  std::erase_if(parts, [&](const gen::SpacePart& x) { return x.stages > model_.max_stages; });
  // Each part enumerated and its features computed on a thread, then joined in order (the same
  // space, in the same order, as gen::enumerate_space).
  constexpr int kT = gen::kTuningParams;
  std::vector<Space> pieces(parts.size());
  run_picker_jobs(parts.size(), [&](std::size_t i) {
    Space& s = pieces[i];
    s.tunings = gen::enumerate_space_part(t, parts[i].family, parts[i].stages, limits_);
    s.features.resize(s.tunings.size() * kT);
    for (std::size_t r = 0; r < s.tunings.size(); ++r) {
      float* row = s.features.data() + r * kT;
      write_tuning_features(s.tunings[r], row);
      for (int j = 0; j < kT; ++j) {
        const std::size_t f = static_cast<std::size_t>(kProblemFeatures + j);
        row[j] = (row[j] - model_.mean[f]) / model_.stddev[f];
      }
    }
  });
  Space s;
  std::size_t points = 0;
  for (const Space& piece : pieces) points += piece.tunings.size();
  s.tunings.reserve(points);
  s.features.reserve(points * kT);
  for (const Space& piece : pieces) {
    s.tunings.insert(s.tunings.end(), piece.tunings.begin(), piece.tunings.end());
    s.features.insert(s.features.end(), piece.features.begin(), piece.features.end());
  }
  std::unique_lock lock(mutex_);
  return spaces_.try_emplace(t, std::move(s)).first->second;
}

const std::vector<gen::Tuning>& Picker::space(gen::DataType t) { return space_entry(t).tunings; }

std::vector<float> Picker::score(const Problem& p, const std::vector<gen::Tuning>& candidates) const {
  return predict_with(model_.mlp, p, candidates);
}

std::vector<float> Picker::predict_with(const Mlp& net, const Problem& p,
                                        const std::vector<gen::Tuning>& candidates) const {
  const int f = feature_count();
  std::vector<float> x(candidates.size() * static_cast<std::size_t>(f));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    float* row = x.data() + i * static_cast<std::size_t>(f);
    write_features(p, candidates[i], row);
    for (int j = 0; j < f; ++j)
      row[j] = (row[j] - model_.mean[static_cast<std::size_t>(j)]) / model_.stddev[static_cast<std::size_t>(j)];
  }
  std::vector<float> out(candidates.size());
  net.predict(x.data(), static_cast<int>(candidates.size()), out.data());
  return out;
}

bool Picker::covers(const Problem& p) const {
  const double flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  return model_.max_flops <= 0 || flops <= model_.max_flops;
}

std::vector<gen::Tuning> Picker::top(const Problem& p, int k) {
  std::vector<gen::Tuning> best;
  for (const Scored& s : top_scored(p, k)) best.push_back(s.tuning);
  return best;
}

std::vector<Picker::Scored> Picker::top_scored(const Problem& p, int k) {
  const Space& sp = space_entry(p.data);
  constexpr int kT = gen::kTuningParams;
  const int f = feature_count();
  float prefix[kProblemFeatures];
  write_problem_features(p, prefix);
  for (int j = 0; j < kProblemFeatures; ++j)
    prefix[j] = (prefix[j] - model_.mean[static_cast<std::size_t>(j)]) / model_.stddev[static_cast<std::size_t>(j)];
  std::vector<std::size_t> fits;
  for (std::size_t i = 0; i < sp.tunings.size(); ++i)
    if (candidate_fits(p, sp.tunings[i])) fits.push_back(i);
  std::vector<float> x(fits.size() * static_cast<std::size_t>(f)), s(fits.size());
  constexpr int kP = kProblemFeatures + kT;
  for (std::size_t r = 0; r < fits.size(); ++r) {
    float* row = x.data() + r * static_cast<std::size_t>(f);
    std::copy(prefix, prefix + kProblemFeatures, row);
    std::copy_n(sp.features.data() + fits[r] * kT, kT, row + kProblemFeatures);
    write_pair_features(p, sp.tunings[fits[r]], row + kP);
    for (int j = kP; j < f; ++j)
      row[j] = (row[j] - model_.mean[static_cast<std::size_t>(j)]) / model_.stddev[static_cast<std::size_t>(j)];
  }
  std::vector<std::size_t> order(fits.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t fc = static_cast<std::size_t>(f);
  // A screen at least as wide as the k asked for, so that all k are the ensemble's ranking.
  const std::size_t screened = std::max(kScreened, static_cast<std::size_t>(std::max(k, 0)));
  if (!members_.empty() && fits.size() > screened) {
    // The first member screens; the ensemble scores the screen's best, the rest rank below them.
    predict_parallel(members_.front(), x.data(), fits.size(), fc, s.data());
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(screened), order.end(),
                     [&](std::size_t a, std::size_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
    order.resize(screened);
    std::sort(order.begin(), order.end());  // the space's order again, for ties
    std::vector<float> xs(screened * fc), ss(screened);
    for (std::size_t r = 0; r < screened; ++r) std::copy_n(x.data() + order[r] * fc, fc, xs.data() + r * fc);
    predict_parallel(model_.mlp, xs.data(), screened, fc, ss.data());
    std::fill(s.begin(), s.end(), -std::numeric_limits<float>::infinity());
    for (std::size_t r = 0; r < screened; ++r) s[order[r]] = ss[r];
  } else if (!fits.empty()) {
    predict_parallel(model_.mlp, x.data(), fits.size(), fc, s.data());
  }
  const std::size_t n = std::min(order.size(), static_cast<std::size_t>(std::max(k, 0)));
  // Ties keep the space's order, so the first is the same as a max_element scan's.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](std::size_t a, std::size_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
  std::vector<Scored> best;
  for (std::size_t i = 0; i < n; ++i) best.push_back({sp.tunings[fits[order[i]]], s[order[i]]});
  return best;
}

gen::Tuning Picker::pick(const Problem& p) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = decisions_.find(p); it != decisions_.end()) return it->second;
  }
  const std::vector<gen::Tuning> best = top(p, 1);
  // The space always holds kg == 1 candidates, so one always fits.
  const gen::Tuning choice = best.empty() ? gen::Tuning{} : best.front();
  std::unique_lock lock(mutex_);
  decisions_.emplace(p, choice);
  return choice;
}

gen::Tuning Picker::pick(const Problem& p, const gen::Tuning& fallback, float fallback_gain) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = guarded_.find(p); it != guarded_.end()) return it->second;
  }
  const gen::Tuning best = pick(p);
  gen::Tuning choice = best;
  if (!(best == fallback)) {
    const std::vector<float> s = score(p, {best, fallback});
    if (s[0] < s[1] + fallback_gain + model_.trust_margin) choice = fallback;
    for (std::size_t k = 0; model_.trust_all_members && choice == best && k < members_.size(); ++k) {
      const std::vector<float> sk = predict_with(members_[k], p, {best, fallback});
      if (!(sk[0] > sk[1] + fallback_gain)) choice = fallback;
    }
  }
  std::unique_lock lock(mutex_);
  guarded_.emplace(p, choice);
  return choice;
}

}  // namespace ptxblas::model
