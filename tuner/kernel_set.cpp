#include "kernel_set.hpp"

#include <set>

#include "dispatch_mirror.hpp"
#include "gemm_call.hpp"
#include "simt_gemm_ptx.hpp"

namespace ptxblas::tuner {

std::string kernels_of(const Sample& s) {
  const model::Problem& p = s.problem;
  const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, s.tuning);
  // The kernel the launch runs (with its vector copies), which is what the JIT cache must hold.
  std::string k = gen::kernel_name(gen::canonical(launched_config(p, plan)));
  if (plan.kg > 1) k += " + " + gen::splitk_reduce_name(p.data, false);
  return k;
}

std::vector<Sample> one_sample_per_kernel(const std::vector<Sample>& samples) {
  std::set<std::string> seen;
  std::vector<Sample> out;
  for (const Sample& s : samples)
    if (seen.insert(kernels_of(s)).second) out.push_back(s);
  return out;
}

}  // namespace ptxblas::tuner
