// How the threads of a block copy one operand's K-step tile from global to shared memory.
// Consecutive threads walk the stored matrix's row index (the "fast" dimension) so global reads
// coalesce; each thread owns `slots` elements at compile-time offsets from its base position.
#pragma once

#include <utility>
#include <vector>

#include "kernel_config.hpp"

namespace ptxblas::gen {

enum class Operand { A, B };

struct LoadPlan {
  int copy_vec = 1;          // elements per copy (copy_vector): slots and offsets count elements
  int mn_extent = 0;         // ML for A, NL for B
  bool mn_is_row = false;    // the stored row index is M (A) or N (B); otherwise it is K
  int fast_extent = 0;       // extent of the stored row index within the tile
  int slow_extent = 0;
  bool tid_wraps = false;    // threads % fast == 0: base = (tid % fast, tid / fast); else (tid, 0)
  // Shared-memory layout: SIMT kernels keep [k][mn + pad] (a thread reads runs along mn); mma
  // kernels keep [mn][k + pad] (a fragment register holds consecutive k), except f64/c64
  // operands copied along M/N, which stay [k][mn + pad]; padded so that the fragment loads of a
  // warp fall in distinct banks.
  bool k_contiguous = false;
  int smem_pad = 0;          // elements of padding per shared-memory row
  int smem_stride = 0;       // elements per shared-memory row
  int smem_rows = 0;
  std::vector<std::pair<int, int>> offsets;  // per slot: (fast offset, slow offset), elements

  int smem_elem(int k, int mn) const { return k_contiguous ? mn * smem_stride + k : k * smem_stride + mn; }
};

// Elements per global -> shared copy of an operand: 16 / element bytes when c.vec_copy_a (_b) asks
// for it and the operand allows it (cp.async stages, 4- or 8-byte elements, stored M/N-contiguous or
// an mma kernel's f64 operand stored K-contiguous, the tile's rows whole vectors, the vectors
// split evenly over the threads), else 1. The launcher checks alignment (dispatch); K vectors
// also need every block's K range to start on a vector, which split-K chunks and band ranges
// do (whole K-steps).
int copy_vector(const KernelConfig& c, Operand which);

// Empty plan (no offsets) when the tile cannot be split evenly over the block's threads.
LoadPlan make_load_plan(const KernelConfig& c, Operand which);

// The plan without its offsets (no allocation: the legality checks of the whole tuning space
// call this hundreds of thousands of times), and whether its tile splits evenly over `threads`,
// i.e. whether make_load_plan's offsets are non-empty.
LoadPlan make_load_layout(const KernelConfig& c, Operand which);
bool load_splits_evenly(const LoadPlan& layout, int threads);

// Bytes of one shared-memory stage of an operand's tile (16-byte aligned); c.stages of them.
int smem_stage_bytes(const KernelConfig& c, Operand which);

}  // namespace ptxblas::gen
