#include "load_plan.hpp"

#include <algorithm>

namespace ptxblas::gen {

LoadPlan make_load_layout(const KernelConfig& c, Operand which) {
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
  p.smem_stride = p.mn_extent + p.smem_pad;
  p.smem_rows = c.u;
  if (c.family == Family::Mma) {
    const bool half = storage_bytes(c.data) == 2;
    if (half || !p.mn_is_row) {
      // [mn][k]: a fragment register holds consecutive k. A warp's fragment loads touch 8 mn
      // rows x 4 k positions. f16/bf16 read k pairs (4 bytes): a stride of 8 (mod 16) elements
      // puts all 32 words in distinct banks; f64 and c64 are served per half (quarter) warp, for
      // which a stride of 4 (mod 8) elements suffices. store_pad, for an f16 operand copied along
      // M/N (lanes store one k of consecutive rows): rows of an odd number of k pairs put those
      // stores in distinct banks.
      p.k_contiguous = true;
      const bool for_stores = c.store_pad && p.mn_is_row;
      const int modulus = for_stores ? 4 : (half ? 16 : 8);
      const int want = for_stores ? 2 : (half ? 8 : 4);
      p.smem_pad = ((want - c.u % modulus) % modulus + modulus) % modulus;
      p.smem_stride = c.u + p.smem_pad;
      p.smem_rows = p.mn_extent;
    } else {
      // f64/c64 copied along M/N stay [k][mn] as in global memory: the stores of consecutive
      // rows are contiguous, and a fragment load (k = q, row = g) hits q * stride + g, distinct
      // banks per half warp (f64, and c64 in planes (c64_planes): stride 4 mod 16 elements) or
      // quarter warp (c64 {re, im} pairs: 2 mod 8).
      const int modulus = c.data == DataType::C64 && !c64_planes(c) ? 8 : 16, want = modulus / 4;
      p.smem_pad = ((want - p.mn_extent % modulus) % modulus + modulus) % modulus;
      p.smem_stride = p.mn_extent + p.smem_pad;
    }
  }
  p.copy_vec = copy_vector(c, which);
  const int units = p.fast_extent / p.copy_vec;  // copies along the stored row
  p.tid_wraps = c.threads() > 0 && units > 0 && c.threads() % units == 0;
  return p;
}

bool load_splits_evenly(const LoadPlan& layout, int threads) {
  const int units = layout.fast_extent / std::max(layout.copy_vec, 1);
  const int total = units * layout.slow_extent;
  if (threads <= 0 || total < threads || total % threads != 0) return false;
  return layout.tid_wraps || (units > 0 && units % threads == 0);
}

int copy_vector(const KernelConfig& c, Operand which) {
  const int es = storage_bytes(c.data);
  if (!(which == Operand::A ? c.vec_copy_a : c.vec_copy_b) || !async_copy(c) || (es != 4 && es != 8)) return 1;
  const int v = 16 / es;
  KernelConfig scalar = c;
  scalar.vec_copy_a = scalar.vec_copy_b = false;
  const LoadPlan l = make_load_layout(scalar, which);
  // Operands stored M/N-contiguous, which cp.async kernels keep [k][mn] in shared memory, and f64
  // operands of mma kernels stored K-contiguous, kept [mn][k] there, in tiles at least 64 wide
  // (vectors along K: D's NN and TN GEMMs ran 5-8% faster on 64- and 128-wide tiles; 32-wide
  // ones, memory-bound on D's deepbench shapes, lost 4-15% with them, cause not found; perf notes
  // §60). A SIMT kernel keeps a K-contiguous operand [k][mn] (no contiguous run). Other mma types
  // keep one element per copy along K: c64's elements are 16 bytes already, f32 (TF32) was not
  // measured.
  const bool k_vectors = c.family == Family::Mma && c.data == DataType::F64 && l.k_contiguous && l.mn_extent >= 64;
  if ((!l.mn_is_row && !k_vectors) || l.fast_extent % v != 0) return 1;  // and whole vectors
  const int threads = c.threads(), units = l.fast_extent / v;
  if (threads <= 0 || units * l.slow_extent < threads || units * l.slow_extent % threads != 0) return 1;
  if (threads % units != 0 && units % threads != 0) return 1;
  // The shared rows' padding keeps vectors 16-byte aligned.
  if (l.smem_stride * shared_bytes(c) % 16 != 0) return 1;
  return v;
}

LoadPlan make_load_plan(const KernelConfig& c, Operand which) {
  LoadPlan p = make_load_layout(c, which);
  const int threads = c.threads();
  if (!load_splits_evenly(p, threads)) {
    p.tid_wraps = false;
    return p;
  }
  const int units = p.fast_extent / p.copy_vec;
  const int slots = units * p.slow_extent / threads;
  if (p.tid_wraps) {
    const int rows_per_pass = threads / units;
    for (int j = 0; j < slots; ++j) p.offsets.emplace_back(0, j * rows_per_pass);
  } else {
    const int passes_per_row = units / threads;
    for (int j = 0; j < slots; ++j)
      p.offsets.emplace_back((j % passes_per_row) * threads * p.copy_vec, j / passes_per_row);
  }
  return p;
}

int smem_stage_bytes(const KernelConfig& c, Operand which) {
  const LoadPlan p = make_load_layout(c, which);
  return (p.smem_rows * p.smem_stride * shared_bytes(c) + 15) / 16 * 16;
}

}  // namespace ptxblas::gen
