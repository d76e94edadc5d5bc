// Which of several wgmma tiles finishes an unsplit call first, counted in waves (perf notes
// §121, §124). Every tile here holds an SM's shared memory alone, so a grid of B blocks takes
// B / SMs waves of one block per SM, a part-full last wave costing kPartialWave plus the rest in
// proportion to its blocks, and a block of ml x nl takes ml * nl / rate, its rate measured on the
// H200 over the unsplit streaming calls of the §121-§123 probes. Padding counts as work: a
// ragged edge block costs a whole one.
#pragma once

#include <cstdint>
#include <span>

#include "tile_catalog.hpp"

namespace ptxblas::dispatch {

// The cost of a last wave holding a fraction f of the SMs' blocks: kPartialWave + (1 -
// kPartialWave) * f of a whole one (its blocks stream the operands faster than a full wave's).
inline constexpr double kPartialWave = 0.4;

// The tile's measured rate relative to 128x256 s4 (elements of C per unit time in one block), or
// 0 for a tile the rates were not measured on.
double wave_rate(const gen::Tile& tile);

// Of the candidates whose grid for an m x n C has at least min_blocks blocks, the one with the
// least waves(blocks) * ml * nl / rate; the first of equals; null when none has. Candidates
// without a rate are passed over; multiprocessors counts as at least 1.
const gen::Tile* fastest_in_waves(std::span<const gen::Tile> candidates, std::int64_t m, std::int64_t n,
                                  int multiprocessors, std::int64_t min_blocks);

}  // namespace ptxblas::dispatch
