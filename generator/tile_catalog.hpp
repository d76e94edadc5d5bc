// The tile shapes offered per data type, largest first. Until the tuner's pruned space lands this
// short list is the whole search space: dispatch picks from it and CI assembles every entry.
#pragma once

#include <vector>

#include "kernel_config.hpp"

namespace ptxblas::gen {

struct Tile {
  int ml, nl, u, ms, ns, vec;
  Family family = Family::Simt;
  bool store_pad = false;
  int stages = 1;
  int min_k = 0;  // the heuristic offers this tile only where K is at least this deep
  int kl = 1;     // KernelConfig::kl
  int ks = 1;     // KernelConfig::ks
};

const std::vector<Tile>& tile_catalog(DataType t);

// The wgmma tiles for f16/bf16 (sm_90a), largest first: what dispatch uses where wgmma can run
// (dispatch/wgmma_plan.hpp), beside the mma catalog for every other call.
const std::vector<Tile>& wgmma_catalog();

// The tile for a C at most `width` (16 or 32) wide in N (dispatch's plan_narrow), whose work is
// streaming the long operand (op(A), M x K): by how that operand is stored, M-contiguous or
// K-contiguous. Null for types without one (f16/bf16 run wgmma's tiles; c32 was not measured; at
// width 32 only f32 beat the catalogue's tiles).
const Tile* narrow_tile(DataType t, bool k_contiguous, int width);

// The tile for a C a little wider than that in N (f64: 33-64, 81-96 and 113-128, c64: 17-128, in four
// tiles by width; dispatch's plan_skinny), whose long side (M) and deep K the catalogue's tiles
// split too thinly; null for other types and widths.
const Tile* skinny_tile(DataType t, int width);

// The tile for such a C whose narrow operand is copied along its narrow side (NT with N narrow:
// op(B) = B^T, B stored N x K), where skinny_tile has none for that width (f64 97-112); null
// elsewhere.
const Tile* skinny_nt_tile(DataType t, int width);

// A tile a strided batch of f32 or f64 GEMMs may run on (dispatch's plan_batched, outside wgmma),
// with the TFLOP/s it reached on the H200 with every block's work the batch's and its last wave
// full (fitted over a sweep of 26 batches up to 256 deep, perf notes §139), and the rate it is
// weighed by for deeper batches (blocks an SM full; §140-§141), 0 where it is not offered there;
// where the entries read C (beta != 0) up to 256 deep, the rate it is weighed by instead (0: its
// rate; §143). Element stages: an f32 tile that runs three element-wise cp.async stages where no
// operand copies vectors (§142-§143), its rate still the two-stage form's.
struct RatedTile {
  Tile tile;
  double tflops;
  double deep_tflops = 0;
  double read_c_tflops = 0;
  bool element_stages = false;
};

// The rated tiles of f32 and f64 (largest first); empty for the other types, whose batches the
// catalogue's tiles serve.
const std::vector<RatedTile>& batched_tiles(DataType t);

// The same tile for a C narrow in M: rows and columns (block and thread or warp tile) swapped.
Tile mirrored(Tile t);

KernelConfig with_tile(KernelConfig c, const Tile& t);

}  // namespace ptxblas::gen
