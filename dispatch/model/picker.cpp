#include "picker.hpp"

#include <algorithm>
#include <mutex>

namespace ptxblas::model {
namespace {

constexpr std::int64_t kMaxWorkspaceBytes = std::int64_t{512} << 20;
constexpr std::int64_t kMaxGridY = 65535;

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

Picker::Picker(Model m, gen::Limits lim) : model_(std::move(m)), limits_(lim) {}

const std::vector<gen::Tuning>& Picker::space(gen::DataType t) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = spaces_.find(t); it != spaces_.end()) return it->second;
  }
  std::vector<gen::Tuning> s = gen::enumerate_space(t, limits_);
  std::unique_lock lock(mutex_);
  return spaces_.try_emplace(t, std::move(s)).first->second;
}

std::vector<float> Picker::score(const Problem& p, const std::vector<gen::Tuning>& candidates) const {
  const int f = feature_count();
  std::vector<float> x(candidates.size() * static_cast<std::size_t>(f));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    float* row = x.data() + i * static_cast<std::size_t>(f);
    write_features(p, candidates[i], row);
    for (int j = 0; j < f; ++j)
      row[j] = (row[j] - model_.mean[static_cast<std::size_t>(j)]) / model_.stddev[static_cast<std::size_t>(j)];
  }
  std::vector<float> out(candidates.size());
  model_.mlp.predict(x.data(), static_cast<int>(candidates.size()), out.data());
  return out;
}

gen::Tuning Picker::pick(const Problem& p) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = decisions_.find(p); it != decisions_.end()) return it->second;
  }
  std::vector<gen::Tuning> fits;
  for (const gen::Tuning& t : space(p.data))
    if (candidate_fits(p, t)) fits.push_back(t);
  gen::Tuning best;  // the space always holds kg == 1 candidates, so `fits` is never empty
  if (!fits.empty()) {
    const std::vector<float> s = score(p, fits);
    best = fits[static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin())];
  }
  std::unique_lock lock(mutex_);
  decisions_.emplace(p, best);
  return best;
}

}  // namespace ptxblas::model
