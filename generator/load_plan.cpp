#include "load_plan.hpp"

#include <algorithm>

namespace ptxblas::gen {

LoadPlan make_load_plan(const KernelConfig& c, Operand which) {
  LoadPlan p;
  const Op op = which == Operand::A ? c.op_a : c.op_b;
  p.mn_extent = which == Operand::A ? c.ml : c.nl;
  // A is stored M x K when not transposed; B is stored K x N when not transposed.
  p.mn_is_row = which == Operand::A ? op == Op::N : op != Op::N;
  p.fast_extent = p.mn_is_row ? p.mn_extent : c.u;
  p.slow_extent = p.mn_is_row ? c.u : p.mn_extent;
  // Threads writing consecutive k land one shared row apart: pad to spread them over banks,
  // by whole vectors so the compute loop's vector loads stay aligned.
  p.smem_pad = p.mn_is_row ? 0 : std::max(1, c.vec);

  const int threads = c.threads();
  const int total = p.fast_extent * p.slow_extent;
  if (threads <= 0 || total % threads != 0) return p;
  const int slots = total / threads;
  if (threads % p.fast_extent == 0) {
    p.tid_wraps = true;
    const int rows_per_pass = threads / p.fast_extent;
    for (int j = 0; j < slots; ++j) p.offsets.emplace_back(0, j * rows_per_pass);
  } else if (p.fast_extent % threads == 0) {
    const int passes_per_row = p.fast_extent / threads;
    for (int j = 0; j < slots; ++j)
      p.offsets.emplace_back((j % passes_per_row) * threads, j / passes_per_row);
  }
  return p;
}

}  // namespace ptxblas::gen
