// The oracle column: a brute-force search over candidate tiles (both instruction families, several
// K-steps, pipeline variants) and K splits, each forced through ptxblas_force_tile and timed,
// within a time budget.
#pragma once

#include <string>
#include <vector>

#include "suite.hpp"

namespace bench {

// ptxblas_force_tile specs for the shape, most promising first (narrow tiles first where C is at
// most 16 wide on one side, f32's also up to 32): each tile unsplit, then with kg = 2, 4, ... up
// to about two blocks per SM when the tile alone leaves SMs idle, and the split that gives every SM
// one block.
std::vector<std::string> oracle_candidates(const Shape& s, int multiprocessors);

}  // namespace bench
