#include "wgmma_waves.hpp"

#include <algorithm>

#include "gemm_call.hpp"

namespace ptxblas::dispatch {

namespace {

struct MeasuredRate {
  int ml, nl, stages;
  double rate;
};

// Fitted to the §121-§123 oracle logs on the H200 (docs/measurements/h200-oracle-logs/, 358
// unsplit rows) by `scripts/fit_wave_rates.py --partial 0.4`: per tile, the median over its rows
// of waves * ml * nl * K / time, relative to 128x256 s4 (perf notes §124). 128x192 s5 fitted 1.02
// but is set below 128x256: at 1.02 it took 593-768-wide grids past one wave from 128x256, which
// lost x0.92-0.98 on three shapes in the A/B (NN 16384x641x8192 586 -> 573 TFLOP/s).
constexpr MeasuredRate kRates[] = {
    {128, 256, 4, 1.00}, {128, 192, 5, 0.99}, {256, 128, 4, 0.94}, {192, 128, 5, 0.96}, {128, 128, 6, 0.86},
    {64, 256, 4, 0.82},  {64, 192, 6, 0.76},  {64, 128, 6, 0.64},  {192, 64, 6, 0.61},
};

double waves(std::int64_t blocks, std::int64_t sms) {
  const std::int64_t full = blocks / sms, part = blocks % sms;
  if (part == 0) return static_cast<double>(full);
  const double fill = static_cast<double>(part) / static_cast<double>(sms);
  return static_cast<double>(full) + kPartialWave + (1 - kPartialWave) * fill;
}

}  // namespace

double wave_rate(const gen::Tile& tile) {
  for (const MeasuredRate& r : kRates)
    if (tile.family == gen::Family::Wgmma && tile.ml == r.ml && tile.nl == r.nl && tile.stages == r.stages)
      return r.rate;
  return 0;
}

const gen::Tile* fastest_in_waves(std::span<const gen::Tile> candidates, std::int64_t m, std::int64_t n,
                                  int multiprocessors, std::int64_t min_blocks) {
  const std::int64_t sms = std::max(multiprocessors, 1);
  const gen::Tile* best = nullptr;
  double best_time = 0;
  for (const gen::Tile& c : candidates) {
    const double rate = wave_rate(c);
    const std::int64_t blocks = ceil_div(m, c.ml) * ceil_div(n, c.nl);
    if (rate <= 0 || blocks < min_blocks) continue;
    const double time = waves(blocks, sms) * c.ml * c.nl / rate;
    if (!best || time < best_time) {
      best = &c;
      best_time = time;
    }
  }
  return best;
}

}  // namespace ptxblas::dispatch
