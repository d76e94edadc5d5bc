// The tensor-core configurations beyond the tuning space: every legal mma tile of a grid of block,
// warp and K-step sizes, with store_pad and one or two stages. ptxblas_force_tile (the oracle
// column) can run them; the tuner's space does not hold them yet.
#pragma once

#include <vector>

#include "kernel_config.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::tuner {

// The grid's tiles legal for data type t with these ops (empty for types without mma).
std::vector<gen::Tile> legal_mma_tiles(gen::DataType t, gen::Op op_a, gen::Op op_b);

// Those legal for every layout (padding depends on how each operand is copied).
std::vector<gen::Tile> mma_tiles_legal_for_all_layouts(gen::DataType t);

}  // namespace ptxblas::tuner
