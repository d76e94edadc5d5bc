// Which of several wgmma tiles finishes an unsplit call first, counted in waves (perf notes
// §121). Every tile here holds an SM's shared memory alone, so a grid of B blocks takes
// ceil(B / SMs) block times, and a block of ml x nl takes ml * nl / rate, its rate measured on
// the H200 over K 4096-8192 streaming calls. Padding counts as work: a ragged edge block costs a
// whole one.
#pragma once

#include <cstdint>
#include <span>

#include "tile_catalog.hpp"

namespace ptxblas::dispatch {

struct WaveTile {
  gen::Tile tile;
  double rate;  // elements of C per unit time in one block, relative to 128x256 s4
};

// The candidate with the least ceil(blocks / multiprocessors) * ml * nl / rate for an m x n C;
// the first of equals.
const gen::Tile& fastest_in_waves(std::span<const WaveTile> candidates, std::int64_t m, std::int64_t n,
                                  int multiprocessors);

}  // namespace ptxblas::dispatch
