// Simple choices until the model lands: the largest catalogued tile that still gives every SM a
// block, and K split over blocks (ISAAC's KG) while the tiles leave fewer than four blocks per SM;
// deep reductions onto a small C take a large tile and more slices instead. Two refinements fit
// to every oracle candidate's time on the public suite (docs/perf-notes.md §14): SIMT types take
// a larger tile that K can fill the SMs with, and mma types do not split a full wave of big
// blocks; nor do SIMT types split their largest tiles past one wave, or into shallow slices (§33).
// A C 16 wide or less on one side (f32: 32) takes a narrow tile of its own (§70, §71).
#include <algorithm>
#include <cmath>
#include <optional>

#include "async_stages.hpp"
#include "gemm_call.hpp"
#include "resources.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {
namespace {

constexpr std::int64_t kMinSliceK = 128;  // no slice shallower than this
constexpr std::int64_t kMinSliceFullWave = 768;  // nor than this where the tiles fill the SMs alone
constexpr int kMaxSlices = 256;
constexpr std::int64_t kDeepReduction = 16;  // K at least this many times M and N: a deep reduction
// wgmma's slices on a deep reduction whose blocks leave SMs idle even in 2048-deep slices (§49).
constexpr std::int64_t kWgmmaFillSliceK = 512;
constexpr std::int64_t kMaxWorkspaceBytes = std::int64_t{512} << 20;
constexpr std::int64_t kSetsMinSliceK = 256;  // with_k_sets: no slice shallower than this

}  // namespace

double wave_fill(std::int64_t blocks, std::int64_t slots) {
  if (blocks <= 0 || slots <= 0) return 1.0;
  return static_cast<double>(blocks) / static_cast<double>(ceil_div(blocks, slots) * slots);
}

std::int64_t blocks_per_sm(const gen::KernelConfig& c) {
  const gen::Resources r = gen::predict_resources(c);
  const int warps = std::max(1, (r.threads + 31) / 32);
  const int regs_per_warp = (std::min(std::max(r.regs_predicted, 1), 255) * 32 + 255) / 256 * 256;
  const std::int64_t by_regs = 65536 / (regs_per_warp * warps);
  const std::int64_t by_smem = (228 * 1024) / (r.smem_bytes + 1024);
  const std::int64_t by_threads = 2048 / std::max(r.threads, 1);
  return std::max<std::int64_t>(1, std::min({by_regs, by_smem, by_threads, std::int64_t{32}}));
}

namespace {

// Blocks of this tile's kernel one SM holds: as catalogued, or as it runs split kg ways
// (`lowered`: with the cp.async stages with_async_stages gives it at launch, whose shared memory
// and registers differ; Z 32x32x16: two blocks per SM as catalogued, three lowered).
std::int64_t resident_per_sm(gen::DataType data, bool scalar_f16, const gen::Tile& tile, int kg = 1,
                             bool lowered = false) {
  Plan p;
  p.config.data = data;
  p.config.scalar_f16 = scalar_f16;
  p.config = gen::canonical(gen::with_tile(p.config, tile));
  p.kg = kg;
  return blocks_per_sm(lowered ? with_async_stages(p).config : p.config);
}

// Narrow plans: C at most kNarrow wide on one side, the other side at least kNarrowLong long, K
// at least kNarrowK deep, the long operand at least kNarrowElements: streaming that operand is the
// work. K is split until each SM has about kNarrowInFlight bytes of it in flight (Little's law:
// ~23 GB/s per SM times ~2 us; the oracle's best splits put 40-48 KiB there, perf notes §70), in
// slices of at least kMinSliceK, f32's of kNarrowMinSliceF32 (its 256-long blocks wanted 32
// slices of 2560; c64's 1024x16x1024 lost 4% in 11 slices of 96 against 8 of 128, §71).
constexpr std::int64_t kNarrow = 32;
constexpr std::int64_t kNarrowMinSliceF32 = 64;
constexpr std::int64_t kNarrowLong = 512;
constexpr std::int64_t kNarrowK = 256;
constexpr std::int64_t kNarrowElements = std::int64_t{1} << 20;
constexpr std::int64_t kNarrowInFlight = 48 << 10;

}  // namespace

std::optional<Plan> plan_narrow(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                                std::int64_t n, std::int64_t k, int multiprocessors) {
  const bool narrow_n = n <= m;
  const std::int64_t narrow = std::min(m, n), wide = std::max(m, n);
  if (narrow > kNarrow || wide < kNarrowLong || k < kNarrowK || wide * k < kNarrowElements) return std::nullopt;
  // The long operand is op(A) (M x K) for a narrow N, op(B) (K x N) for a narrow M.
  const bool k_contiguous = narrow_n ? op_a != gen::Op::N : op_b == gen::Op::N;
  const gen::Tile* tile = gen::narrow_tile(data, k_contiguous, narrow <= 16 ? 16 : 32);
  if (!tile) return std::nullopt;
  const gen::Tile t = narrow_n ? *tile : gen::mirrored(*tile);
  const std::int64_t long_side = narrow_n ? t.ml : t.nl;
  const std::int64_t stage_bytes = long_side * t.u * gen::compute_bytes(data);
  const std::int64_t in_flight = (t.stages >= 3 ? t.stages - 1 : 1) * stage_bytes;
  const std::int64_t per_sm =
      std::min(ceil_div(kNarrowInFlight, in_flight), resident_per_sm(data, scalar_f16, t));
  const std::int64_t blocks = ceil_div(m, t.ml) * ceil_div(n, t.nl);
  const std::int64_t min_slice = data == gen::DataType::F32 ? kNarrowMinSliceF32 : kMinSliceK;
  const std::int64_t most_slices = std::max<std::int64_t>(1, std::min<std::int64_t>(k / min_slice, kMaxSlices));
  // Long blocks that K cannot split to give every SM one: the catalogue's smaller tiles fill
  // them better (S 4096x8x512: 16 blocks of 256x16 in 4 slices ran 0.86 of the catalogue's plan).
  if (blocks * most_slices < multiprocessors) return std::nullopt;
  const std::int64_t kg = std::clamp<std::int64_t>(multiprocessors * per_sm / blocks, 1, most_slices);
  Plan p = plan_from_tile(data, scalar_f16, op_a, op_b, m, n, k, t, static_cast<int>(kg));
  if (!gen::why_illegal(p.config).empty()) return std::nullopt;
  return p;
}

Plan plan_gemm(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m, std::int64_t n,
               std::int64_t k, int multiprocessors) {
  if (std::optional<Plan> p = plan_narrow(data, scalar_f16, op_a, op_b, m, n, k, multiprocessors)) return *p;
  if (std::optional<Plan> p = plan_skinny(data, scalar_f16, op_a, op_b, m, n, k, multiprocessors)) return *p;
  return plan_over_tiles(gen::tile_catalog(data), data, scalar_f16, op_a, op_b, m, n, k, multiprocessors,
                         kMinSliceK);
}

Plan plan_over_tiles(std::span<const gen::Tile> tiles, gen::DataType data, bool scalar_f16, gen::Op op_a,
                     gen::Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors,
                     std::int64_t min_slice_k) {
  auto blocks_of = [&](const gen::Tile& t) { return ceil_div(m, t.ml) * ceil_div(n, t.nl); };
  const std::int64_t sms = multiprocessors;
  const std::int64_t most_slices = std::min<std::int64_t>(k / min_slice_k, kMaxSlices);
  gen::Tile pick = tiles.back();
  // wgmma's large tiles run one block per SM, so a wave 15/16 full is nearly a full one (H
  // 2048^2: 128x256 in 128 blocks 469 TFLOP/s, 128x128 in 256 blocks 14% slower; perf notes §24).
  const bool wgmma = tiles.front().family == gen::Family::Wgmma;
  const std::int64_t full_wave = wgmma ? (15 * sms + 15) / 16 : sms;
  for (const gen::Tile& t : tiles) {
    if (k < t.min_k) continue;
    if (blocks_of(t) >= full_wave) {
      pick = t;
      break;
    }
  }
  // Four blocks per SM are wanted (the oracle's K splits on skinny and deep-K shapes of the public
  // suite land there); slices come from K when the tiles alone are too few.
  std::int64_t want = 4 * sms;
  // A deep reduction onto a C too small for the SMs (K at least 16 times M and N): the largest
  // tile that C still holds four times over (if larger than the fallback), split to two blocks
  // per SM, re-reads A and B far less than small tiles do (oracle, docs/perf-notes.md §11:
  // 256x256x60000 1.4-3x faster).
  // Not for wgmma: its smallest tile with 16 slices beat 128x128 with 63 (H 256x256x60000: 237
  // TFLOP/s against 174, perf notes §25).
  bool deep = false;
  if (!wgmma && blocks_of(pick) < sms && k >= kDeepReduction * std::max(m, n)) {
    for (const gen::Tile& t : tiles)
      if (t.ml * t.nl > pick.ml * pick.nl && t.ml <= m && t.nl <= n && blocks_of(t) >= 4) {
        pick = t;
        want = 2 * sms;
        deep = true;
        break;
      }
  }
  // SIMT: a larger thread tile does several times the FMAs per shared-memory load, so a larger
  // block tile that C fills (three quarters of it at least) and K can split to two blocks per SM
  // beats a smaller tile's own wave (S linpack-1024: 128x128 in 4 slices 29 TFLOP/s, 64x64 in 3
  // slices 22; deepbench 2560x64x2560: 64x64 in 8 slices 1.4x 32x32 in 4).
  const bool simt = tiles.front().family == gen::Family::Simt;
  if (simt && !deep) {
    for (const gen::Tile& t : tiles) {
      const double filled = static_cast<double>(m) * static_cast<double>(n) /
                            static_cast<double>(ceil_div(m, t.ml) * t.ml * ceil_div(n, t.nl) * t.nl);
      if (t.ml * t.nl > pick.ml * pick.nl && filled >= 0.75 && blocks_of(t) < sms &&
          blocks_of(t) * most_slices >= 2 * sms) {
        pick = t;
        break;
      }
    }
  }
  const std::int64_t blocks = blocks_of(pick);
  // SIMT tiles so large that an SM holds at most two, whose blocks already come in (nearly) whole
  // rounds of one per SM: slices only up to the slots of one wave, each at least
  // kMinSliceFullWave deep; more waves or shallow slices cost more than they fill (S on 128x128
  // blocks, perf notes §33: 512x4096x512 unsplit 31.4 TFLOP/s, in 2 slices 27.2; 1024x4096x1024
  // unsplit 43.2, in 2 slices 34.2; 512x4096x4096 in 2 slices 40.0, in 4 39.3; 2048^3 unsplit 44.0,
  // in 2 slices 38.3). Not where a round is part-empty: 1536^3's 144 blocks ran unsplit at 24.5,
  // in 3 slices at 29.9.
  std::int64_t slices = most_slices;
  const std::int64_t rounds = ceil_div(blocks, sms);
  if (simt && !deep && blocks * 16 >= rounds * sms * 15) {
    const std::int64_t resident = resident_per_sm(data, scalar_f16, pick);
    if (resident <= 2) {
      want = std::min(want, sms * resident);
      slices = std::min(slices, k / kMinSliceFullWave);
    }
  }
  std::int64_t kg = 1;
  if (blocks > 0 && k > 0) kg = std::min(ceil_div(want, blocks), slices);
  // Whole waves: a split that leaves a last wave nearly empty costs almost a wave (Z 256x256x60000:
  // 9 slices of 32 blocks = 288, one wave of 264 plus 24, 28 TFLOP/s; 8 slices 44). Round the
  // slices down to the waves the blocks fill (at least one), under both residencies, the
  // catalogued and the lowered one, keeping the fewer slices (perf notes §36: Z 2560x32x2560's
  // 80 blocks of 32x32x16 run three per SM lowered: 4 slices, one wave, x1.25 against 6; where the
  // lowered kernel holds more blocks, D's deepbench shapes lost up to 20% to the extra slices).
  if (kg > 1) {
    auto whole_waves = [&](std::int64_t resident) {
      const std::int64_t wave = sms * resident;
      const std::int64_t waves = std::max<std::int64_t>(1, blocks * kg / wave);
      return blocks * kg > waves * wave ? std::max<std::int64_t>(1, waves * wave / blocks) : kg;
    };
    kg = std::min(whole_waves(resident_per_sm(data, scalar_f16, pick)),
                  whole_waves(resident_per_sm(data, scalar_f16, pick, static_cast<int>(kg), true)));
  }
  // wgmma on a deep reduction onto a C of a few tiles (K at least 16 times M and N), split in 8 or
  // more 2048-deep slices already, whose blocks leave SMs idle: shallower slices, down to
  // kWgmmaFillSliceK, until the blocks give every SM one (oracle and A/B, perf notes §49: H
  // 32x32x60000 in 29 slices 8.1 TFLOP/s, in 105 9.7; 64x64x20000 in 9 slices 11.3, in 35 14.0;
  // 256x256x60000's 16 tiles keep their 16 slices, a wave of two per SM; 64x64x4096 lost 7% going
  // from 2 slices to 8, hence the 8).
  if (wgmma && kg >= 8 && blocks > 0 && k >= kDeepReduction * std::max(m, n) && blocks * kg < sms)
    kg = std::max(kg, std::min({sms / blocks, k / kWgmmaFillSliceK, std::int64_t{kMaxSlices}}));
  // mma: once the blocks fill a wave, the split's extra pass over C costs more than the slices
  // gain, unless K is deep next to C (D, H linpack-1024 and -2048: 10-35% faster unsplit). Small
  // blocks no longer split either since their copies run cp.async (D linpack-512: 32x32 blocks
  // in 2 slices 14.1 TFLOP/s, unsplit 18.2 in report 7be43719's oracle; perf notes §52).
  if (!simt && blocks >= full_wave &&
      static_cast<double>(k) < 4 * std::sqrt(static_cast<double>(m) * static_cast<double>(n)))
    kg = 1;
  return plan_from_tile(data, scalar_f16, op_a, op_b, m, n, k, pick, static_cast<int>(std::max<std::int64_t>(kg, 1)));
}

namespace {

// kg slices of whole K-steps, within the limits the heuristic's own split respects (a plan that
// does not meet them runs unsplit).
void split_k(Plan& p, std::int64_t m, std::int64_t n, std::int64_t k, int kg) {
  const gen::KernelConfig& c = p.config;
  p.kchunk = k;
  const bool split_fits = m <= ((std::int64_t{1} << 31) - 1) / std::max<std::int64_t>(n, 1) &&
                          n <= 65535 * static_cast<std::int64_t>(c.nl) &&
                          kg * m * n * gen::compute_bytes(c.data) <= kMaxWorkspaceBytes;
  if (kg > 1 && k > 0 && split_fits) {
    p.kchunk = ceil_div(ceil_div(k, kg), c.u) * c.u;
    p.kg = static_cast<int>(ceil_div(k, p.kchunk));
    if (p.kg < 2) {
      p.kg = 1;
      p.kchunk = k;
    }
  }
}

}  // namespace

Plan plan_from_tuning(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m, std::int64_t n,
                      std::int64_t k, const gen::Tuning& t) {
  Plan p;
  p.config.data = data;
  p.config.scalar_f16 = scalar_f16;
  p.config.op_a = op_a;
  p.config.op_b = op_b;
  p.config = gen::apply_tuning(p.config, t);
  split_k(p, m, n, k, t.kg);
  return p;
}

Plan plan_from_tile(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m, std::int64_t n,
                    std::int64_t k, const gen::Tile& tile, int kg) {
  Plan p;
  p.config.data = data;
  p.config.scalar_f16 = scalar_f16;
  p.config.op_a = op_a;
  p.config.op_b = op_b;
  p.config = gen::canonical(gen::with_tile(p.config, tile));
  split_k(p, m, n, k, kg);
  return p;
}

// Big blocks (an SM holds at most kBalancedResident) run one after another on an SM more than
// beside each other, so a split whose blocks overrun the SMs by a part-round leaves most SMs idle
// while some run a second block: S and D 2560x128x2560 on 128x128 blocks (20 tiles), kg sweep on
// the H100 (perf notes §76): 6 slices (120 blocks) 27.8 / 31.2 TFLOP/s, 7 (140) 19.2 / 20.5,
// 8 (160) 20.4 / 21.8, 13 (260) 27.0 / 25.7. The time goes as rounds x (K-steps per slice + a
// fixed kBalancedFillSteps of pipeline fill and epilogue), which ranks those sweeps as measured (16
// steps: 8 ranked c64's skinny kg 4 above 3 on 2560x128x2560, measured 37.3 against 42.0, §77).
// Only a split whose last round is less than kBalancedFull full moves, to the cheapest kg from 2
// to twice its own.
constexpr std::int64_t kBalancedResident = 2;
constexpr std::int64_t kBalancedFillSteps = 16;
constexpr double kBalancedFull = 0.85;

// The kg in [lo, hi] with the fewest rounds x (K-steps per slice + fill) for `blocks` tiles of
// K-step u on `sms` SMs (the smaller kg on a tie).
std::int64_t cheapest_split(std::int64_t blocks, std::int64_t sms, std::int64_t k, std::int64_t u, std::int64_t lo,
                            std::int64_t hi, std::int64_t fill = kBalancedFillSteps) {
  auto cost = [&](std::int64_t kg) { return ceil_div(blocks * kg, sms) * (ceil_div(k, kg * u) + fill); };
  std::int64_t best = lo;
  for (std::int64_t kg = lo + 1; kg <= hi && kg * u <= k; ++kg)
    if (cost(kg) < cost(best)) best = kg;
  return best;
}

Plan balanced_split(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors) {
  const gen::KernelConfig& c = p.config;
  if (p.kg <= 1 || multiprocessors <= 0 || c.ml <= 0 || c.nl <= 0 || c.u <= 0) return p;
  if (blocks_per_sm(c) > kBalancedResident) return p;
  const std::int64_t blocks = ceil_div(m, c.ml) * ceil_div(n, c.nl), sms = multiprocessors;
  if (static_cast<double>(blocks * p.kg) >= kBalancedFull * static_cast<double>(ceil_div(blocks * p.kg, sms) * sms))
    return p;
  const std::int64_t best = cheapest_split(blocks, sms, k, c.u, 2, std::min<std::int64_t>(2 * p.kg, kMaxSlices));
  if (best != p.kg) split_k(p, m, n, k, static_cast<int>(best));
  return p;
}

// f32 SIMT splits of a deep reduction (K at least kDeepReduction times M and N) whose blocks
// overrun one wave of slots (blocks_per_sm on every SM): the most slices within that wave, where
// they fill at least kDeepSplitFill of its slots. Every slice past one wave writes and re-reads
// another partial C and fills another pipeline: on the H200's deep S calls (perf notes §145) one
// wave ran x1.01-1.10 over the model's and the heuristic's splits of two or more waves (256 x 256 x
// 60000: 128x64 blocks in 128 slices 39.9 TFLOP/s, in 49 44.6; 384^2 x 30000: 128x128 in 58 slices
// 39.0, in 29 44.4, both with unbounded copies); waves 0.95 full ran as fast as two or more, one
// 0.89 full 8% slower than seven (1000 x 700 x 25000: SMs holding two blocks where three fit).
// f64's mma tiles of 64 x 128 either way too (the fifty-seventh session's call 8, forced bursts,
// `h200-deep-f64-c64-split-sweep.txt`): NT / NN 384^2 x 24000-30000 in 14 slices x1.12-1.13 over
// the model's 32, 640^2 x 16384 in 5 x1.10 over 16, 512^2 x 20000 in 8 x1.03 over 24, 1024^2 x
// 16384 in 2 equal to 12. c64's 64 x 64 gained nothing there (x0.98-1.00), so it keeps its split.
constexpr double kDeepSplitFill = 0.93;

namespace {
bool splits_deep_in_one_wave(const gen::KernelConfig& c) {
  if (c.data == gen::DataType::F32) return c.family == gen::Family::Simt;
  return c.data == gen::DataType::F64 && c.family == gen::Family::Mma && std::min(c.ml, c.nl) == 64 &&
         std::max(c.ml, c.nl) == 128;
}
}  // namespace

Plan deep_split_waves(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors) {
  const gen::KernelConfig& c = p.config;
  if (!splits_deep_in_one_wave(c) || p.kg <= 1 || multiprocessors <= 0 || c.ml <= 0 || c.nl <= 0 ||
      k < kDeepReduction * std::max(m, n))
    return p;
  const std::int64_t tiles = ceil_div(m, c.ml) * ceil_div(n, c.nl);
  if (tiles <= 0) return p;
  const std::int64_t slots = multiprocessors * std::max<std::int64_t>(blocks_per_sm(c), 1);
  const std::int64_t kg = slots / tiles;
  if (tiles * p.kg <= slots || kg < 2 || static_cast<double>(tiles * kg) < kDeepSplitFill * static_cast<double>(slots))
    return p;
  split_k(p, m, n, k, static_cast<int>(kg));
  return p;
}

// c64's 64x64x8 blocks of 64x16 warp tiles unsplit, in the catalogue's three cp.async stages (the
// model's pick on mid-size squares, which run_gemm runs in two register stages) whose last round
// over the SMs is part-empty: two slices where cheapest_split ranks them first. H200 forced bursts
// (perf notes §149): 768^2 (144 blocks) 28.9 -> 33.9 TFLOP/s, 896^2 (196) 39.9 -> 46.3, 1280^2
// (400) 42.8 -> 46.0, TN 1536^2 (576) 46.2 -> 50.8, 1024 x 768 x 2048 (192) 39.2 -> 49.7; 1024^2
// (256 blocks, two full rounds) lost in two slices (51.9 -> 47.8) and stays, as cheapest_split
// ranks it.
// Blocks of more than one round and at most two take up to kPartRoundMostSlices slices (of at least
// kMinSliceK), ranked with a fill of kPartRoundFillSteps K-steps: on the sixty-second session's
// forced bursts of kg 1-4 (§158, `h200-z-part-round-split-sweep.txt`, 14 shapes of 144-256 blocks,
// K 736-4096, five layouts) that cost ranked the fastest kg first on 13 and a tie on the 14th (TT
// 768^2: 4 slices 36.9, 3 36.8), where the fill of 16 ranks 2 first on all but 1024^2: 144 blocks
// (736^2-768^2, K to 4096) 3-4 slices x1.08-1.31 over 2, 169 (800^2, 832^2) 3 x1.06-1.08, 160 (1024
// x 640) 4 x1.11; 896^2 keeps 2, 1024^2 one. Past two rounds it stays as it was (not measured).
constexpr std::int64_t kPartRoundMostSlices = 4;
constexpr std::int64_t kPartRoundFillSteps = 8;

Plan split_part_round(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors) {
  const gen::KernelConfig& c = p.config;
  if (c.data != gen::DataType::C64 || c.family != gen::Family::Mma || c.ml != 64 || c.nl != 64 || c.ms != 64 ||
      c.ns != 16 || c.u != 8 || c.stages != 3 || c.kl != 1 || c.ks != 1 || p.kg != 1 || multiprocessors <= 0 ||
      k < 2 * kMinSliceK)
    return p;
  const std::int64_t blocks = ceil_div(m, c.ml) * ceil_div(n, c.nl), sms = multiprocessors;
  const bool second_round = blocks > sms && blocks <= 2 * sms;
  const std::int64_t kg =
      second_round
          ? cheapest_split(blocks, sms, k, c.u, 1, std::min(kPartRoundMostSlices, k / kMinSliceK), kPartRoundFillSteps)
          : cheapest_split(blocks, sms, k, c.u, 1, 2);
  if (kg > 1) split_k(p, m, n, k, static_cast<int>(kg));
  return p;
}

// f64 NN / NT calls from 1024 to 4096 on a side (K 640-4096) that the model or the heuristic plans
// unsplit on 64x128x8 or 128x64x8 blocks run 64x64x16 blocks of 32x32 warp tiles in three cp.async
// stages instead (the model's own pick at 1024^2). Forced bursts on the H200 (perf notes §159,
// `h200-f64-mid-square-tile-sweep.txt`): NT 1280^2-1792^2 41.5-55.3 TFLOP/s against those tiles'
// 38.5-51.3, NT 2048^2-4096^2 x1.04-1.11 over the model's 64x128 (NT 8192^2 even: not taken), NN
// 2048^2-4096^2 x1.03-1.09 over its 128x64, NN 1280 x 2560 x 640 x1.18, NT 1024 x 4096 x1.03; TN
// ran x0.96-1.02 against 128x64 and keeps its plan (TT not measured). Only those blocks' 32x64 /
// 64x32 warp tiles: the model's 64x128 of 64x32 warp tiles in four stages ran NN 3584^2 and 4096 x
// 4096 x 2048 faster than 64x64x16 (x0.95 / 0.97 after the move, `h200-f64-mid-square-tile-ab.txt`).
constexpr std::int64_t kMidSquareF64Least = 1024;
constexpr std::int64_t kMidSquareF64Most = 4096;
constexpr std::int64_t kMidSquareF64LeastK = 640;

Plan mid_square_f64_tile(Plan p, std::int64_t m, std::int64_t n, std::int64_t k) {
  const gen::KernelConfig& c = p.config;
  const bool big_tile = (c.ml == 64 && c.nl == 128 && c.ms == 32 && c.ns == 64) ||
                        (c.ml == 128 && c.nl == 64 && c.ms == 64 && c.ns == 32);
  if (c.data != gen::DataType::F64 || c.family != gen::Family::Mma || !big_tile || c.u != 8 || p.kg != 1 ||
      c.op_a != gen::Op::N || c.op_b == gen::Op::C || std::min(m, n) < kMidSquareF64Least ||
      std::max({m, n, k}) > kMidSquareF64Most || k < kMidSquareF64LeastK)
    return p;
  const gen::Tile square{64, 64, 16, 32, 32, 1, gen::Family::Mma, false, 3};
  Plan q = plan_from_tile(c.data, false, c.op_a, c.op_b, m, n, k, square, 1);
  return gen::why_illegal(q.config).empty() ? q : p;
}

// f64's 32x32 blocks of 16x16 warp tiles hold two accumulator fragments a warp, so a K-step's mma
// steps wait on each other. Where such a plan splits K in 4 slices or more, half the slices with
// a 32-deep K-step in four accumulator sets (KernelConfig::ks) ran faster (perf notes §92,
// sustained A/B: D 2560 x 32 x 2560 TN 12.8 -> 14.5 TFLOP/s, NN 14.3 -> 15.6, 32 x 32 x 60000
// 5.65 -> 5.97), slices at least kSetsMinSliceK deep.
Plan with_k_sets(Plan p, std::int64_t m, std::int64_t n, std::int64_t k) {
  const gen::KernelConfig& c = p.config;
  if (c.data != gen::DataType::F64 || c.family != gen::Family::Mma || c.ml != 32 || c.nl != 32 || c.ms != 16 ||
      c.ns != 16 || c.u != 16 || c.kl != 1 || c.ks != 1 || p.kg < 4 || k / (p.kg / 2) < kSetsMinSliceK)
    return p;
  Plan sets = p;
  sets.config.u = 32;
  sets.config.ks = 4;
  if (!gen::why_illegal(sets.config).empty()) return p;
  split_k(sets, m, n, k, p.kg / 2);
  return sets;
}

// f64 / c64 with C a little wider than the narrow plans' (skinny_tile's widths) on one side, the
// other side and K at least kSkinnyLong: skinny_tile's blocks (two per SM), K split by whole
// rounds as balanced_split's (§77, §94: 3 slices on 2560 x 32..128 x 2560, the sweeps' best); c64
// wider than 64 by fullest_split below (§148).
constexpr std::int64_t kSkinnyLong = 1024;

// c64's blocks for C wider than 64 (§148): the K split that fills the last round of blocks best
// (kg / rounds), at most kWaveSplitMost slices of at least kWaveSplitSliceK. On the H200's forced
// sweeps the time went as rounds x slice depth, without cheapest_split's fill cost at these
// depths, with rounds of one 64x64x8 block (64x16 warp tiles) an SM but of two 64x32x8 blocks
// (32x16) an SM side by side:
// - 64x64x8, rounds of 132, more slices on a tie: 1536 x 128 x 3000, 48 blocks: 8 slices 43.5
//   TFLOP/s, 6 34.7, 4 35.1, 3 27.0, as 2.67 : 2 : 2 : 1.5 slices a round; 2560 x 128 x 8192, 80
//   blocks: 8 slices 49.0, 3 43.4 (cheapest_split ranked 3 first).
// - 64x32x8, rounds of 264, fewer slices on a tie: 2560 x 96 x 2560, 120 blocks: 2 slices 41.7, 4
//   39.8, 8 37.2, 3 35.7 (two rounds, the second part-empty), 1 30.8; 8192 x 96 x 1024, 384 blocks:
//   2 slices 42.3, 4 38.6, 8 33.0, 1 34.3; 4096 x 72 x 4096, 192: 4 31.1, 8 30.9, 2 24.9. f64's
//   64x32x16 (16x32) as c64's 64x32x8 (§150): 2560 x 96, 120 blocks: 2 slices 29.1-30.6 TFLOP/s in
//   the four layouts, 4 28.8-29.7, 8 26.7-27.3, 1 21.4-22.7; 4096 x 96 x 4096, 192: 4 33.1, 2 32.7.
constexpr std::int64_t kWaveSplitMost = 8;
constexpr std::int64_t kWaveSplitSliceK = 256;
constexpr std::int64_t kWaveSplitSideBySide64x32 = 2;

// c64 97-128 wide (§148): where the 33-64 tile's blocks fill at least kSkinnyWaveFull of their
// waves of resident blocks, that tile and its split stay: its 32x64 blocks unsplit ran x1.10-1.11
// over the 64x64 ones' split on 4096 x 128 x 4096 (256 blocks, 0.97 of 264 slots) and 8192 x 128 x
// 1024 (512), and lost by x1.06-1.37 where their waves were part-empty (2560 x 128: 160 blocks,
// 0.61; 6000 x 128 x 6000: 376, 0.71; 3000 x 112 x 1500: 188, 0.71).
constexpr double kSkinnyWaveFull = 0.9;

namespace {
// The kg in [1, most] with the most slices a round of `slots` blocks (kg / rounds), the most or
// the fewest slices on a tie.
std::int64_t fullest_split(std::int64_t blocks, std::int64_t slots, std::int64_t k, bool most_on_tie) {
  const std::int64_t most = std::max<std::int64_t>(1, std::min(kWaveSplitMost, k / kWaveSplitSliceK));
  std::int64_t best = 1;
  for (std::int64_t kg = 2; kg <= most; ++kg) {  // kg / rounds(kg) against best / rounds(best), cross-multiplied
    const std::int64_t here = kg * ceil_div(blocks * best, slots), there = best * ceil_div(blocks * kg, slots);
    if (here > there || (most_on_tie && here == there)) best = kg;
  }
  return best;
}
}  // namespace

std::optional<Plan> plan_skinny(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                                std::int64_t n, std::int64_t k, int multiprocessors) {
  const bool narrow_n = n <= m;
  const std::int64_t narrow = std::min(m, n), wide = std::max(m, n);
  if (wide < kSkinnyLong || k < kSkinnyLong || multiprocessors <= 0) return std::nullopt;
  // f64 NT 97-112 wide with N narrow (§152; measured in that layout only).
  const gen::Tile* nt_tile = narrow_n && op_a == gen::Op::N && op_b == gen::Op::T
                                 ? gen::skinny_nt_tile(data, static_cast<int>(narrow))
                                 : nullptr;
  const gen::Tile* tile = nt_tile ? nt_tile : gen::skinny_tile(data, static_cast<int>(narrow));
  if (!tile) return std::nullopt;
  auto oriented = [&](const gen::Tile& x) { return narrow_n ? x : gen::mirrored(x); };
  // c64 wider than 64, f64 81-96 wide and the NT tile: their wide blocks, K split by the last
  // round's fill (§148, §150, §152); c64 97-128 wide, the 33-64 tile as before where its blocks
  // fill their waves already.
  bool wave_split = (data == gen::DataType::C64 && narrow > 64) ||
                    (data == gen::DataType::F64 && narrow > 80 && narrow <= 96) || nt_tile;
  if (data == gen::DataType::C64 && narrow > 96) {
    const gen::Tile narrower = oriented(*gen::skinny_tile(data, 64));
    const std::int64_t slots = std::max<std::int64_t>(resident_per_sm(data, scalar_f16, narrower), 1) * multiprocessors;
    if (wave_fill(ceil_div(m, narrower.ml) * ceil_div(n, narrower.nl), slots) >= kSkinnyWaveFull) {
      tile = gen::skinny_tile(data, 64);
      wave_split = false;
    }
  }
  const gen::Tile t = oriented(*tile);
  const std::int64_t blocks = ceil_div(m, t.ml) * ceil_div(n, t.nl);
  const std::int64_t most = std::min<std::int64_t>(k / kMinSliceK, kMaxSlices);
  // c64's 64x64x8: rounds of one block an SM, more slices on a tie; the 64x32 tiles: two side by
  // side; f64's 64x64x16 (NT): the two its registers leave resident, fewer slices on a tie (§152:
  // 4096 x 112 x 4096, 128 blocks, 2 slices 42.6 TFLOP/s, 4 40.9; 2560 x 104 x 2560, 80 blocks, 3
  // slices 31.9, 4 28.1).
  const bool one_a_round = data == gen::DataType::C64 && t.ml == 64 && t.nl == 64;
  const std::int64_t resident = nt_tile ? std::max<std::int64_t>(resident_per_sm(data, scalar_f16, t), 1) : 0;
  const std::int64_t slots = one_a_round ? multiprocessors
                             : nt_tile   ? resident * multiprocessors
                                         : kWaveSplitSideBySide64x32 * multiprocessors;
  const std::int64_t kg = wave_split ? fullest_split(blocks, slots, k, one_a_round)
                                     : cheapest_split(blocks, multiprocessors, k, t.u, 1, most);
  Plan p = plan_from_tile(data, scalar_f16, op_a, op_b, m, n, k, t, static_cast<int>(kg));
  if (!gen::why_illegal(p.config).empty()) return std::nullopt;
  return p;
}

gen::Tuning tuning_of(const Plan& p) {
  const gen::KernelConfig& c = p.config;
  gen::Tuning t;
  t.ml = c.ml;
  t.nl = c.nl;
  t.u = c.u;
  t.ms = c.ms;
  t.ns = c.ns;
  t.vec = c.vec;
  t.kg = std::max(p.kg, 1);
  t.family = c.family == gen::Family::Wgmma ? 2 : c.family == gen::Family::Mma ? 1 : 0;
  t.stages = c.stages;
  t.pad = c.store_pad ? 1 : 0;
  return t;
}

std::string describe(const Plan& p) {
  std::string s = gen::kernel_name(p.config);
  if (p.kg > 1) s += " kg=" + std::to_string(p.kg);
  return s;
}

}  // namespace ptxblas::dispatch
