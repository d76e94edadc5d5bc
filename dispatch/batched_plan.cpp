#include "batched_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "async_stages.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {
namespace {

// wgmma batches of entries at most this deep: a block is mostly its prologue and its write of C
// (K = 64: one K-step), so an SM's blocks overlap those only when it holds several (perf notes
// §127: 128x256 blocks, one an SM, ran 512 x 512 x 64 entries at 0.6 of cuBLAS).
constexpr std::int64_t kShortBatchK = 256;
constexpr int kWgmmaMinStages = 2;  // generator legality
// Several entries a block (KernelConfig::batch_tiles) on the cost model's tile (or 64x128 in its
// place: wide_entries_plan) for wgmma batches at most this deep (two K-steps; on two stages
// K = 256 gained nothing at beta 0 and lost 8-13% at beta 1 in the sweep, perf notes §134; deeper
// ones: mid_k_plan); where the batch holds at least kMinEntryWaves waves of tiles, from kMinEntries
// to kMaxEntries entries a block.
constexpr std::int64_t kEntriesMaxK = 128;
constexpr double kMinEntryWaves = 2.0;
constexpr int kMinEntries = 3, kMaxEntries = 8;
// Deeper wgmma batches, up to kMidBatchK: 64x128 blocks of four stages running kMidEntries
// entries each, where the entries' 64x128 tiles fill kMinEntryWaves waves of slots (half a wave
// of four-entry blocks) and 128-wide blocks pad N at most kMidPadding times as much as 64-wide
// ones (the sweep had no narrow N). The H200 sweep (perf notes §135) had it best or within 4% of
// best on nine batches 192-512 deep at beta 0 (x1.08-1.47 over the cost model's 64x64 / 128x256
// plans) and ahead of those plans at beta 1 (x1.02-1.26); at K = 1024 the 128x256 plan stayed
// best.
// Since §137 kMidEntries is the fewest: up to kMaxEntries where fewer blocks fill no more waves
// (entries_by_waves). The H200 sweep had 8 entries x1.04-1.12 over 4 on the eight batches where
// the rule picks 7 or 8, and 8 entries in under a wave of blocks x0.68-0.70; the same-call A/B
// x1.04-1.15 on 12 of 13 batches whose count moved, x0.95 on one (perf notes §137).
constexpr std::int64_t kMidBatchK = 512;
constexpr int kMidEntries = 4, kMidStages = 4;
constexpr double kMidPadding = 1.15;
// Where the entries read C (beta != 0) and are at most kMidReadCK deep, one entry a block on two
// stages instead: twice the blocks an SM, which overlap their reads of C (the same sweep at beta
// 1: best on 6 of 7 batches 192-384 deep, x1.02-1.10 over four entries on four stages; at K = 512
// four entries stayed ahead).
constexpr std::int64_t kMidReadCK = 384;
constexpr int kMidReadCStages = 2;

// The catalogue's 64x128 wgmma tile, or null where N is narrow for it: 128-wide blocks pad N more
// than kMidPadding times as much as 64-wide ones.
const gen::Tile* wide_tile(const GemmCall& call) {
  if (ceil_div(call.n, 128) * 128 > kMidPadding * ceil_div(call.n, 64) * 64) return nullptr;
  const std::vector<gen::Tile>& tiles = gen::wgmma_catalog();
  const auto t = std::find_if(tiles.begin(), tiles.end(), [](const gen::Tile& x) { return x.ml == 64 && x.nl == 128; });
  return t == tiles.end() ? nullptr : &*t;
}

// Rated tiles (gen::batched_tiles) this deep a K-step or less run any K; deeper ones only a K they
// divide (a masked last K-step cost the sweep's 16-deep f32 and f64 tiles their lead on K = 40 and
// 50, perf notes §139; a held-out f64 200^3 x 50 ran 6% slower for the rule).
// The rates hold for batches up to kRatedMaxK deep (the sweep's), their last wave's fill counted
// in slots (blocks_per_sm a multiprocessor: short blocks overlap); deeper, the tiles with a deep
// rate are weighed by it, the fill counted in blocks a multiprocessor (a long block's time is its
// own K loop, however many share the SM).
constexpr int kRatedAnyK = 8;
constexpr std::int64_t kRatedMaxK = 256;

// The tile's plan for every entry: K unsplit; the cp.async and register stages a plain call's
// plan gets at launch (untimed_plan, run_gemm); a short-K wgmma batch no more shared stages than
// its K-steps (at least the generator's two), which lets an SM hold more blocks.
Plan tile_plan(const GemmCall& call, const gen::Tile& t, bool wgmma) {
  Plan p = plan_from_tile(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, t, 1);
  p.config.batched = true;
  if (!wgmma) return with_register_stages(with_async_stages(p));
  if (call.k <= kShortBatchK)
    p.config.stages = static_cast<int>(std::clamp<std::int64_t>(ceil_div(call.k, t.u), kWgmmaMinStages, t.stages));
  return p;
}

// A plan's time over the batch, up to a constant: rounds of blocks on the busiest SM times the
// tile's area (its padded work), over an efficiency that grows with the tile's narrower side (a
// small tile re-reads A and B more per flop). A round is one block, or for a short-K wgmma batch
// as many as an SM holds (they overlap their prologues and writes of C). A batch filling many
// waves takes the largest tile with the least padding; one filling less than a wave, the smallest.
double batch_cost(const Plan& p, const GemmCall& call, int multiprocessors, bool wgmma) {
  const gen::KernelConfig& c = p.config;
  const std::int64_t blocks = ceil_div(call.m, c.ml) * ceil_div(call.n, c.nl) * call.batch;
  const std::int64_t per_round = wgmma && call.k <= kShortBatchK ? blocks_per_sm(c) : 1;
  const std::int64_t rounds = ceil_div(ceil_div(blocks, multiprocessors), per_round);
  return static_cast<double>(rounds) * c.ml * c.nl * (1.0 + 32.0 / std::min(c.ml, c.nl));
}

// A rated tile's plan on three element-wise cp.async stages where neither operand copies vectors
// (gen::RatedTile::element_stages; where one does, run_batched's vector-stage form serves aligned
// calls). Its slots stay the two-stage form's, as the rates were fitted (counting the three-stage
// form's moved four batches onto tiles that ran x0.87-0.95, perf notes §142).
Plan with_element_stages(Plan p) {
  gen::KernelConfig c = p.config;
  c.stages = 3;
  if (const auto [va, vb] = copy_vectors(c); va > 1 || vb > 1) return p;
  if (gen::why_illegal(c).empty()) p.config = c;
  return p;
}

// For f32 and f64: the rated tile (gen::batched_tiles) whose TFLOP/s times the share of its
// padded work that is the batch's times its last wave's fill (blocks over the slots of
// blocks_per_sm, waves rounded up; deeper than kRatedMaxK, deep rates and blocks an SM) is
// highest; nullopt for types without rated tiles, or none K suits. On the sweep it was fitted on,
// each batch left out of the fit in turn, its picks ran within 3% (f64) and 4% (f32) of the best
// tile on average, x1.04 and x1.10 of the cost model's (perf notes §139; deeper: §140-§141).
std::optional<Plan> rated_plan(const GemmCall& call, int multiprocessors) {
  std::optional<Plan> best;
  const bool deep = call.k > kRatedMaxK;
  const bool reads_c = batch_reads_c(call);
  double best_rate = 0;
  for (const gen::RatedTile& r : gen::batched_tiles(call.data)) {
    const gen::Tile& t = r.tile;
    const double tflops = deep ? r.deep_tflops : reads_c && r.read_c_tflops > 0 ? r.read_c_tflops : r.tflops;
    if (tflops <= 0 || call.k < t.min_k || (t.u > kRatedAnyK && call.k % t.u != 0)) continue;
    Plan p = tile_plan(call, t, false);
    if (!gen::why_illegal(p.config).empty()) continue;
    const std::int64_t rows = ceil_div(call.m, t.ml), cols = ceil_div(call.n, t.nl);
    const double useful = static_cast<double>(call.m) * call.n / (static_cast<double>(rows * t.ml) * (cols * t.nl));
    const std::int64_t slots = deep ? 1 : std::max<std::int64_t>(blocks_per_sm(p.config), 1);
    const double waves = static_cast<double>(rows * cols * call.batch) / (static_cast<double>(multiprocessors) * slots);
    if (const double rate = tflops * useful * waves / std::ceil(waves); rate > best_rate) {
      best_rate = rate;
      best = r.element_stages ? with_element_stages(std::move(p)) : std::move(p);
    }
  }
  return best;
}

// The count of entries a block from `fewest` to kMaxEntries (and at most the batch's; the batch's
// where it has fewer) whose waves of blocks over `slots` times entries (the busiest slot's tiles)
// is least, the larger on a tie.
int entries_by_waves(std::int64_t tiles, std::int64_t batch, std::int64_t slots, int fewest) {
  int best = static_cast<int>(std::min<std::int64_t>(fewest, batch));
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
  for (int t = fewest; t <= kMaxEntries && t <= batch; ++t) {
    const std::int64_t cost = ceil_div(tiles * ceil_div(batch, t), slots) * t;
    if (cost <= best_cost) {
      best_cost = cost;
      best = t;
    }
  }
  return best;
}

// Entries a block for the wgmma plan p: 1, or where the batch is short-K and fills at least
// kMinEntryWaves waves, the count from kMinEntries to kMaxEntries whose waves of blocks times
// entries (the busiest slot's tiles) is least, the larger on a tie. The H200 sweep (§134): a
// block's entries beyond the first cost ~0.75 of a lone block's time, whatever their number,
// while a last wave only partly full costs a whole one; 2 entries gained half what 3 did.
int batch_tiles_for(const Plan& p, const GemmCall& call, int multiprocessors) {
  gen::KernelConfig c = p.config;
  if (c.family != gen::Family::Wgmma || call.k > kEntriesMaxK) return 1;
  const std::int64_t tiles = ceil_div(call.m, c.ml) * ceil_div(call.n, c.nl);
  c.batch_tiles = kMinEntries;
  const std::int64_t slots = multiprocessors * blocks_per_sm(c);
  if (!gen::why_illegal(c).empty() || tiles * call.batch < kMinEntryWaves * slots) return 1;
  return call.batch < kMinEntries ? 1 : entries_by_waves(tiles, call.batch, slots, kMinEntries);
}

// The plan for a wgmma batch deeper than kEntriesMaxK and at most kMidBatchK: 64x128 on four
// stages, kMidEntries to kMaxEntries entries a block by waves, or where C is read and K is at most
// kMidReadCK one entry on two stages; nullopt where its tiles fill fewer than kMinEntryWaves waves
// (of four-entry blocks' slots) or N is narrow for 128-wide blocks.
std::optional<Plan> mid_k_plan(const GemmCall& call, int multiprocessors) {
  if (call.k <= kEntriesMaxK || call.k > kMidBatchK) return std::nullopt;
  const gen::Tile* t = wide_tile(call);
  if (!t) return std::nullopt;
  Plan p = tile_plan(call, *t, true);
  p.config.stages = kMidStages;
  p.config.batch_tiles = kMidEntries;
  const std::int64_t slots = multiprocessors * blocks_per_sm(p.config);
  const std::int64_t tiles = ceil_div(call.m, p.config.ml) * ceil_div(call.n, p.config.nl);
  if (tiles * call.batch < kMinEntryWaves * slots) return std::nullopt;
  p.config.batch_tiles = entries_by_waves(tiles, call.batch, slots, kMidEntries);
  if (batch_reads_c(call) && call.k <= kMidReadCK) {
    p.config.stages = kMidReadCStages;
    p.config.batch_tiles = 1;
  }
  if (!gen::why_illegal(p.config).empty()) return std::nullopt;
  return p;
}

// 64x128 blocks of several entries in place of the cost model's 64x64 ones, where the cost model
// chose several 64x64 entries a block, C is not read, N suits 128-wide blocks and 64x128 tiles also
// fill the waves that several entries need (batch_tiles_for). The cost model weighs one entry a
// block, where the two tiles cost the same; with several, the wider block (one wgmma of N = 128 a
// K-slice, half the entry switches) ran x0.99-1.06 at beta 0 on 13 batches 32-128 deep (perf notes
// §136); at beta 1 x0.97-1.05, where 64x64's five blocks an SM against three overlap more reads of C.
std::optional<Plan> wide_entries_plan(const GemmCall& call, const Plan& chosen, int multiprocessors) {
  if (batch_reads_c(call) || chosen.config.batch_tiles == 1 || chosen.config.ml != 64 || chosen.config.nl != 64)
    return std::nullopt;
  const gen::Tile* t = wide_tile(call);
  if (!t) return std::nullopt;
  Plan p = tile_plan(call, *t, true);
  p.config.batch_tiles = batch_tiles_for(p, call, multiprocessors);
  if (p.config.batch_tiles == 1) return std::nullopt;
  return p;
}

}  // namespace

bool batch_reads_c(const GemmCall& call) { return call.device_scalars || call.beta[0] != 0 || call.beta[1] != 0; }

Plan plan_batched(const GemmCall& call, bool wgmma, int multiprocessors) {
  const int sms = std::max(multiprocessors, 1);
  if (wgmma) {
    if (std::optional<Plan> mid = mid_k_plan(call, sms)) return *mid;
  } else if (std::optional<Plan> rated = rated_plan(call, sms)) {
    return *rated;
  }
  const std::span<const gen::Tile> tiles = wgmma ? gen::wgmma_catalog() : gen::tile_catalog(call.data);
  Plan best = tile_plan(call, tiles.back(), wgmma);
  double best_cost = std::numeric_limits<double>::infinity();
  for (const gen::Tile& t : tiles) {  // largest first: a tie keeps the larger tile
    if (call.k < t.min_k) continue;
    const Plan p = tile_plan(call, t, wgmma);
    if (const double cost = batch_cost(p, call, sms, wgmma); cost < best_cost) {
      best_cost = cost;
      best = p;
    }
  }
  if (!wgmma) return best;
  best.config.batch_tiles = batch_tiles_for(best, call, sms);
  if (std::optional<Plan> wide = wide_entries_plan(call, best, sms)) return *wide;
  return best;
}

}  // namespace ptxblas::dispatch
