#include "plan_cache.hpp"

#include <functional>
#include <mutex>

#include "batched_plan.hpp"

namespace ptxblas::dispatch {

std::size_t PlanKeyHash::operator()(const PlanKey& k) const {
  std::size_t h = model::ProblemHash{}(k.problem);
  const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(std::hash<const void*>{}(k.ctx));
  mix(static_cast<std::size_t>(k.batched.batch));
  return h ^ (static_cast<std::size_t>(k.scalar_f16) | static_cast<std::size_t>(k.band) << 1 |
              static_cast<std::size_t>(k.batched.wgmma) << 8 | static_cast<std::size_t>(k.batched.reads_c) << 9 |
              static_cast<std::size_t>(k.fill) << 10);
}

PlanKey batch_plan_key(CUcontext ctx, const GemmCall& call, bool wgmma) {
  return {ctx,
          {call.data, call.op_a, call.op_b, call.m, call.n, call.k},
          call.scalar_f16,
          gen::kBandNone,
          {call.batch, wgmma, batch_reads_c(call)}};
}

std::optional<ProblemPlans> PlanCache::find(const PlanKey& key) const {
  std::shared_lock lock(mutex_);
  if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  return std::nullopt;
}

void PlanCache::add(const PlanKey& key, const ProblemPlans& plans) {
  std::unique_lock lock(mutex_);
  if (plans_.size() >= kMaxEntries) plans_.clear();
  plans_.insert_or_assign(key, plans);
}

std::size_t PlanCache::size() const {
  std::shared_lock lock(mutex_);
  return plans_.size();
}

}  // namespace ptxblas::dispatch
