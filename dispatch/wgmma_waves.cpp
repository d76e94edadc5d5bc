#include "wgmma_waves.hpp"

#include "gemm_call.hpp"

namespace ptxblas::dispatch {

const gen::Tile& fastest_in_waves(std::span<const WaveTile> candidates, std::int64_t m, std::int64_t n,
                                  int multiprocessors) {
  const WaveTile* best = nullptr;
  double best_time = 0;
  for (const WaveTile& c : candidates) {
    const std::int64_t blocks = ceil_div(m, c.tile.ml) * ceil_div(n, c.tile.nl);
    const double time = static_cast<double>(ceil_div(blocks, multiprocessors)) * c.tile.ml * c.tile.nl / c.rate;
    if (!best || time < best_time) {
      best = &c;
      best_time = time;
    }
  }
  return best->tile;
}

}  // namespace ptxblas::dispatch
