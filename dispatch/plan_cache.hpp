// The final plan of a GEMM call's model or heuristic path, kept per context and problem while
// first-sight benchmarks are off: a repeated shape then skips plan_gemm, the cp.async lowering
// and the picker's lookup (0.1-0.25 us per call, a quarter of a cached shape's 1 us dispatch
// budget; perf notes §38), and f32's vector-stage lowering (~80 ns per call, §45 follow-up).
// Plans depend on the device only through its SM count and model, both fixed per context. A
// batch's plan (plan_batched, never timed: kept whatever the first-sight setting) is kept too:
// its cost model and rules take 0.1-0.5 us a call (§138). Batches and single calls share the
// bound below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "picker.hpp"

namespace ptxblas::dispatch {

// What a batch's plan weighs beyond its problem: its entries, whether wgmma serves it
// (wgmma_fits) and whether its epilogue reads C (batch_reads_c). batch 0: a single call.
struct BatchKey {
  std::int64_t batch = 0;
  bool wgmma = false, reads_c = false;
  bool operator==(const BatchKey&) const = default;
};

struct PlanKey {
  CUcontext ctx = nullptr;
  model::Problem problem;
  bool scalar_f16 = false;
  int band = 0;  // gen::kBand*: a banded step is planned apart from the plain GEMM of its shape
  BatchKey batched;
  bool fill = false;  // not a plain call (triangular or banded): plain calls' rules are theirs alone
  bool operator==(const PlanKey&) const = default;
};

// The key of a batched call's plan (run_batched): its problem, scalar_f16 and BatchKey; `wgmma`
// whether that family serves it (wgmma_fits). Scalars but beta's being zero, pointers, strides
// and leading dimensions do not enter it: plan_batched reads none of them.
PlanKey batch_plan_key(CUcontext ctx, const GemmCall& call, bool wgmma);

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const;
};

// A problem's plan and its f32 vector-stage form (with_f32_vector_stages, for plain calls on the
// wide tile with_f32_wide_tile may take, for batches with_f32_batch_vector_stages; the plan itself
// where no lowering applies), which a call runs when its alignment lets the vectors run.
struct ProblemPlans {
  Plan plan, vector_stages;
};

class PlanCache {
 public:
  // Beyond this many problems the cache starts over (a program sweeping shapes stays bounded).
  static constexpr std::size_t kMaxEntries = 1 << 16;

  std::optional<ProblemPlans> find(const PlanKey& key) const;
  void add(const PlanKey& key, const ProblemPlans& plans);
  std::size_t size() const;

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<PlanKey, ProblemPlans, PlanKeyHash> plans_;
};

}  // namespace ptxblas::dispatch
