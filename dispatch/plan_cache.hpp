// The final plan of a GEMM call's model or heuristic path, kept per context and problem while
// first-sight benchmarks are off: a repeated shape then skips plan_gemm, the cp.async lowering
// and the picker's lookup (0.1-0.25 us per call, a quarter of a cached shape's 1 us dispatch
// budget; perf notes §38). Plans depend on the device only through its SM count and model, both
// fixed per context.
#pragma once

#include <cstddef>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "picker.hpp"

namespace ptxblas::dispatch {

struct PlanKey {
  CUcontext ctx = nullptr;
  model::Problem problem;
  bool scalar_f16 = false;
  bool operator==(const PlanKey&) const = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const;
};

class PlanCache {
 public:
  // Beyond this many problems the cache starts over (a program sweeping shapes stays bounded).
  static constexpr std::size_t kMaxEntries = 1 << 16;

  std::optional<Plan> find(const PlanKey& key) const;
  void add(const PlanKey& key, const Plan& plan);
  std::size_t size() const;

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plans_;
};

}  // namespace ptxblas::dispatch
