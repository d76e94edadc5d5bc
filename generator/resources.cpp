#include "resources.hpp"

#include <algorithm>
#include <cstdlib>

#include "load_plan.hpp"

namespace ptxblas::gen {
namespace {


int smem_array_bytes(const KernelConfig& c, Operand which) {
  return smem_stage_bytes(c, which) * std::max(1, c.stages);
}

// Fragment registers of one K-step of an mma kernel: four registers of A per 16 rows, two of B per
// 8 columns; f64 two words each; c64 both parts, plus B's negated imaginary part.
int mma_fragment_words(const KernelConfig& c) {
  switch (c.data) {
    case DataType::F64: return (c.ms / 16 * 4 + c.ns / 8 * 2) * 2;
    case DataType::C64: return (c.ms / 16 * 4) * 4 + (c.ns / 8 * 2) * 6;
    default: return (c.ms / 16) * 4 + (c.ns / 8) * 2;
  }
}

// Wgmma: the accumulators (f32, spread over the warpgroup's 128 threads) and a few addresses
// (the tensor engine computes the copies' addresses): ptxas gives the catalogue's 64x64 64,
// 64x128 96 and 64x256 warpgroup tiles 162 (perf notes §133).
Resources predict_wgmma(const KernelConfig& c) {
  Resources r;
  r.threads = c.threads();
  r.smem_bytes = dynamic_smem_bytes(c);
  // batch_tiles > 1: the entry loop's counters and C's pointer live through the epilogue (ptxas
  // 13.0: 64x64 71 registers, 64x128 111).
  r.regs_predicted = c.ms * c.ns / 128 + 32 + (c.batch_tiles > 1 ? c.ns / 8 : 0);
  return r;
}

// Wgmma legality (wgmma_ptx.hpp): f16/bf16 only, whole m64nNk16 instructions, tiles the tensor
// engine's boxes hold (at most 256 rows), stages that fit the dynamic shared memory.
const char* illegal_wgmma(const KernelConfig& c, const Limits& lim) {
  if (storage_bytes(c.data) != 2) return "wgmma kernels are for f16 and bf16";
  if (c.vec != 1 || c.store_pad) return "wgmma kernels take vec 1 and no store_pad";
  // 128-byte swizzle atoms: 64 elements of K (K-major operands) or of M/N (M/N-major ones).
  if (c.ms % 64 != 0 || c.ns % 64 != 0 || c.ns > 256) return "wgmma warpgroup tile must be 64k x 64..256";
  // The staged store's read-back puts 16 (ms / 64) / 8 lanes on a column: they must divide 32.
  if (c.ms != 64 && c.ms != 128 && c.ms != 256) return "wgmma warpgroup tile must have 64, 128 or 256 rows";
  if (c.ml > 256 || c.nl > 256) return "wgmma block tile must be at most 256 x 256 (one tensor box)";
  if (c.u != 64) return "wgmma K-step must be 64 (one 128-byte swizzle row)";
  // The staged epilogue writes whole tiles; no triangular (fill) variant exists.
  if (c.fill) return "wgmma kernels have no triangular-output variant";
  if (c.out_of_place) return "wgmma kernels have no out-of-place variant";
  if (c.stages < 2 || c.stages > 8) return "wgmma stages must be 2 to 8";
  const int threads = c.threads();
  if (threads > lim.max_threads_per_block) return "too many threads per block";
  const Resources r = predict_wgmma(c);
  if (r.smem_bytes > lim.max_dynamic_smem) return "shared memory exceeds the dynamic limit";
  if (r.regs_predicted > lim.max_regs_per_thread) return "too many registers per thread";
  if (r.regs_predicted * threads > lim.regs_per_sm) return "block does not fit the register file";
  return nullptr;
}

}  // namespace

Resources predict_resources(const KernelConfig& c, int sm) {
  if (c.family == Family::Wgmma) return predict_wgmma(c);
  Resources r;
  r.threads = c.threads();
  r.smem_bytes = smem_array_bytes(c, Operand::A) + smem_array_bytes(c, Operand::B);
  // KL's sums: in the cp.async stages' dynamic memory once the main loop is done, else an array
  // of their own.
  r.smem_bytes = async_copy(c) ? std::max(r.smem_bytes, kl_reduce_bytes(c)) : r.smem_bytes + kl_reduce_bytes(c);
  // 32-bit registers: accumulators, one K-slice of A and B fragments, the prefetched tile held
  // in registers between global load and shared store, plus addressing. Coefficients were fitted
  // to ptxas 13.0 output over the families CI assembles.
  const int w = compute_bytes(c.data) / 4;
  const int slots = (c.ml + c.nl) * c.u / std::max(1, r.threads);
  // cp.async (async_copy) holds no data between the global and the shared side, but ptxas keeps
  // about half as many registers for the copies' sources and sizes (fitted as below).
  const int prefetch = slots * std::max(1, storage_bytes(c.data) / 4) / (async_copy(c) ? 2 : 1);
  if (c.family == Family::Mma) {
    // Refitted (2026-11-23) to ptxas 13.0 for sm_90 over 400 random points of the mma grid, all
    // layouts: every point within register_margin. ptxas hoists the fragment loads of later
    // K-slices of a step (`extra`), and f64/c64 registers come in aligned pairs (the constants).
    const int acc = c.ms * c.ns / 32 * w * c.ks;
    const int frag = mma_fragment_words(c);
    const int extra = frag * (c.u / c.kl / mma_k(c.data) - 1);  // per KL group's K-steps
    const int two_stages = c.stages > 1 ? 2 : 0;
    switch (c.data) {
      case DataType::F64: r.regs_predicted = acc + frag + extra / 2 + 3 * prefetch / 2 + slots + 28; break;
      case DataType::C64:
        // Tiles in planes (c64_planes) on sm_90 fitted separately (twentieth session, perf notes
        // §69: no moves assembling the operand ranges).
        if (sm >= 90 && c64_planes(c)) {
          r.regs_predicted = acc + frag / 4 + 2 * prefetch + slots + 44 + two_stages;
          break;
        }
        r.regs_predicted = acc + frag / 2 + 2 * prefetch + slots / 2 + 62 + two_stages;
        if (sm < 90) r.regs_predicted -= 3 * frag / 4;  // m8n8k4 consumes fragments one at a time
        break;
      default: r.regs_predicted = acc + frag + 3 * extra / 4 + 2 * prefetch + 2 * slots + 20 + two_stages;
    }
    return r;
  }
  // KS: ks accumulator tiles, and ptxas keeps about half a tile more per extra set in flight
  // (the sets' products are independent; fitted to ptxas 13.0, ks 2 and 4, f32 and c32).
  const int acc = c.ms * c.ns * w * (3 * c.ks - 1) / 2;
  // Complex products also keep B's negated imaginary parts.
  const int frag = (c.ms + c.ns) * w + (is_complex(c.data) ? c.ns * w / 2 : 0);
  r.regs_predicted = acc + frag + prefetch + 2 * slots + 16 + (c.stages > 1 ? 4 : 0);
  return r;
}

bool cross_step_fragments(const KernelConfig& c) {
  if (c.family != Family::Mma || c.data != DataType::F64 || !async_copy(c) || c.kl != 1 || c.ks != 1) return false;
  if (c.u / mma_k(c.data) % 2 != 0) return false;  // 8-deep slices alternate two fragment sets
  return (c.ms / 16) * (c.ns / 8) >= 8;             // 32x32 warp tiles and up: 8 DMMAs a slice
}

int register_margin(const Resources& r) { return std::max(16, r.regs_predicted / 4); }

const char* illegal_reason(const KernelConfig& c, const Limits& lim) {
  if (c.ml <= 0 || c.nl <= 0 || c.u <= 0 || c.ms <= 0 || c.ns <= 0) return "non-positive tile size";
  if (c.ml % c.ms != 0 || c.nl % c.ns != 0) return "thread tile does not divide block tile";
  if (c.band < 0 || c.band > 4) return "unknown band";
  if (c.band && c.fill) return "a kernel is either triangular in its output (fill) or in an operand (band)";
  if (c.atomic_add && (c.family == Family::Wgmma || storage_bytes(c.data) != compute_bytes(c.data)))
    return "atomic split-K is for f32, f64, c32 and c64 SIMT and mma kernels";
  if (c.atomic_add && (c.fill || c.band || c.out_of_place))
    return "atomic split-K is for plain GEMM kernels (no fill, band or out-of-place variant)";
  if (c.kl != 1 && c.kl != 2 && c.kl != 4) return "kl must be 1, 2 or 4";
  if (c.ks != 1 && c.ks != 2 && c.ks != 4) return "ks must be 1, 2 or 4";
  if (c.raster != 0 && (c.raster < 2 || c.raster > kMaxRaster || (c.raster & (c.raster - 1)) != 0))
    return "raster must be 0 or a power of two from 2 to 64";
  if (c.raster && c.band) return "banded kernels keep their own block order (no raster)";
  if (c.batched && (c.fused_split || c.atomic_add || c.fill || c.band || c.out_of_place))
    return "batched kernels run one entry a block z: no split-K, fill, band or out-of-place variant";
  if (c.batch_pointers && (!c.batched || c.family == Family::Wgmma))
    return "arrays of pointers are for batched SIMT and mma kernels";
  if (c.batch_tiles < 1 || c.batch_tiles > kMaxBatchTiles) return "batch_tiles must be 1 to 63";
  if (c.batch_tiles > 1 && (!c.batched || c.family != Family::Wgmma))
    return "several entries a block are for strided wgmma batches";
  if (c.family == Family::Wgmma) {
    if (c.kl != 1 || c.ks != 1) return "wgmma kernels take kl 1 and ks 1";
    if (c.fused_split) return "fused split-K is for SIMT and mma kernels without KL or atomics";
    return c.band ? "wgmma kernels have no triangular-operand variant" : illegal_wgmma(c, lim);
  }
  if (c.u % c.kl != 0) return "K-step does not split into kl groups";
  if (c.family == Family::Simt && (c.u / c.kl) % c.ks != 0) return "K-step rows do not split into ks sets";
  if (c.fused_split && (c.kl != 1 || c.atomic_add))
    return "fused split-K is for SIMT and mma kernels without KL or atomics";
  if (c.vec != 1 && c.vec != 2 && c.vec != 4) return "vector width must be 1, 2 or 4";
  if (c.ms % c.vec != 0 || c.ns % c.vec != 0) return "vector width does not divide the thread tile";
  if (c.vec * compute_bytes(c.data) > 16) return "vector wider than 16 bytes";
  if (c.stages < 1 || c.stages > kMaxAsyncStages) return "stages must be 1 to 6";
  // cp.async copies 4, 8 or 16 bytes as stored: no 2-byte elements, no widening for SIMT.
  if (async_copy(c) && storage_bytes(c.data) < 4) return "cp.async stages (3 or more) need 4-byte elements";
  if (c.store_pad && (c.family != Family::Mma || storage_bytes(c.data) != 2))
    return "store_pad is for f16/bf16 mma tiles";
  if (c.family == Family::Mma) {
    if (!mma_supported(c.data)) return "no exact mma instruction for this type";
    if (c.vec != 1) return "mma kernels take vec 1";
    if (c.ms % 16 != 0 || c.ns % 8 != 0)
      return "warp tile is not a whole number of mma tiles";
    if (c.u % (mma_k(c.data) * c.kl) != 0) return "K-step is not a whole number of mma steps per kl group";
    if ((c.u / c.kl / mma_k(c.data)) % c.ks != 0) return "mma steps of a K-step do not split into ks sets";
  }
  const int threads = c.threads();
  if (threads % 32 != 0) return "threads per block not a multiple of 32";
  if (threads > lim.max_threads_per_block) return "too many threads per block";
  if (!load_splits_evenly(make_load_layout(c, Operand::A), threads) ||
      !load_splits_evenly(make_load_layout(c, Operand::B), threads))
    return "tile loads do not split evenly over the threads";
  const Resources r = predict_resources(c);
  // cp.async stages live in dynamic shared memory (dynamic_smem_bytes), the others are static.
  if (async_copy(c) ? r.smem_bytes > lim.max_dynamic_smem : r.smem_bytes > lim.max_static_smem)
    return async_copy(c) ? "shared memory exceeds the dynamic limit" : "shared memory exceeds the static limit";
  // ptxas caps a thread at max_regs_per_thread (spilling beyond), so a prediction above the cap
  // only rules a tile out when even its low end (prediction - margin) is above it.
  if (r.regs_predicted - register_margin(r) > lim.max_regs_per_thread) return "too many registers per thread";
  if (std::min(r.regs_predicted, lim.max_regs_per_thread) * threads > lim.regs_per_sm)
    return "block does not fit the register file";
  return nullptr;
}

std::string why_illegal(const KernelConfig& c, const Limits& lim) {
  const char* why = illegal_reason(c, lim);
  return why ? why : "";
}

}  // namespace ptxblas::gen
