#include "wgmma_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "tile_catalog.hpp"
#include "wgmma_waves.hpp"

namespace ptxblas::dispatch {

// A wgmma slice pays a pipeline fill of several 64-deep K-steps before its first multiply, and
// a split pays the reduction's launch, which at a few microseconds is most of a skinny GEMM's
// time: the oracle ran H 2560 x N x 2560 (N = 16..128) fastest unsplit or in 2-4 slices, and the
// deep-K shapes in slices of ~2000-4000 (perf notes §24-25: ica-64 32 slices 30.8 TFLOP/s, 105
// slices 25.6; deepbench-f-128 unsplit 122.5, 3 slices 98.2).
constexpr std::int64_t kWgmmaMinSliceK = 2048;

// With one K-step per block (LAPACK's k = 32 updates) the epilogue is most of a block's time:
// 64x128 blocks with 2 stages, four per SM, overlap one block's stores with others' loads (H
// 4096 x 4096 x 32: 50.6 TFLOP/s against 43.1 for 128x256 with 4 stages; perf notes §27).
constexpr std::int64_t kWgmmaShallowK = 64;

// A C at most 16 wide on one side whose long operand holds at least 2^24 elements streams that
// operand (GEMV-like calls): blocks 64 wide on the narrow side (the least a wgmma tile covers)
// and 128 long on the other, K split as usual. The catalogue's first tile with a full wave
// (64x128 for a narrow N, 64x64 for a narrow M) ran these 0.62-0.88 of cuBLAS; 128x64 blocks of
// two warpgroups (narrow N) and 64x128 (narrow M) ran x1.07-1.50 faster in the probes,
// x1.06-1.66 in the A/B (perf notes §107). Below 2^24 the catalogue's 64x64 runs deepbench's
// 2560 x 16 x 2560 at 1.6x cuBLAS.
constexpr std::int64_t kWgmmaNarrow = 16;
constexpr std::int64_t kWgmmaNarrowStream = std::int64_t{1} << 24;

// 17-64 wide, unsplit where K is no longer than the long side (with 2^24 streamed, a long side
// of at least 4096): the blocks stream the operand near the memory's rate already, and a split's
// extra pass over C lost (kg = 2 x0.85-0.92 in the probe). From a long side of 8192 the narrow
// blocks above (A/B x1.03-1.53 on ten shapes; perf notes §109), and for a narrow N at any K: a
// grid of 64 or more 128x64 blocks streams A at ~3.8 TB/s (§124 A/B on the H200, x1.81-2.26 on
// five shapes over the catalogue's K split: NN 8192x64x16384 120 -> 240 TFLOP/s, NN
// 16384x64x65536 121 -> 274). A narrow M with deep K keeps the catalogue's plan (64x128 s4
// unsplit ran NN 64x8192x16384 x0.93 against its 64x64 s6 in four slices). Below a long side of
// 8192, 32-63 of those (128x64 gained x1.00-1.06 there), the catalogue's 64x64 s6, twice the
// blocks: A/B x1.05-1.32 on 21 shapes against its 2-slice plan (§111), and with deeper K its
// split (NN 4096x64x65536 in 8 slices 238, about the best).
constexpr std::int64_t kWgmmaNarrowUnsplit = 64;
constexpr std::int64_t kWgmmaNarrowUnsplitLong = 8192;

// 65-128 wide, likewise unsplit, in blocks 128 wide on the narrow side (64x128 s4 for a narrow
// N, 128x64 s6 for a narrow M: the narrow side in one block): the catalogue's plans, mostly K
// split in two, ran these 0.56-0.84 of cuBLAS; probe bursts x1.08-1.44 on eight (perf notes §112).
// Other blocks where the H200 ran them faster (§114): 128x128 s6 for a narrow N up to 96 wide of
// a long side of 8192 or more (half the re-reads of the narrow operand per row of 64x128's; A/B
// x1.16-1.59 over 64x128 s4 on ten shapes). With K of 8192 and more, 64x128 s6 (TN 8192x128x8192
// 426 TFLOP/s against 357 for s4; TN 96x8192x8192 296 against 222 for 128x64 s6), but 128x128 s6
// for a narrow N whose B is N-contiguous (x1.08-1.29) and from a long side of 12288, where
// 64x128 blocks leave the last of two waves part-empty (x1.21-1.34; TN 12288x100x12288 probe 338
// against 234). A narrow M of a long side of 8192 keeps 64x128 s6 (128x128 lost x0.90 there).
constexpr std::int64_t kWgmmaNarrowAcross = 128;
constexpr std::int64_t kWgmmaAcrossSquare = 96;
constexpr std::int64_t kWgmmaAcrossSquareLong = 8192;
constexpr std::int64_t kWgmmaAcrossDeepK = 8192;
constexpr std::int64_t kWgmmaAcrossDeepLong = 12288;

// 129-256 wide, likewise unsplit (§115-§116, H200 probes), in the largest block whose grid still
// has 0.7 of a block per SM. A narrow N up to 192 in one block 192 wide: 128x192 s5 (from a long
// side of ~12k), else 64x192 s6; 256-wide blocks left a third of a 160-wide C's tensor work as
// padding (TT 16384x160x8192 128x256 365 TFLOP/s, 128x192 476; NN 8192x160x8192 128x128 s6 263,
// 64x192 362). Wider, or a narrow M: 128x256 s4, 128x128 s6, then 128 across the narrow side in
// 64-deep blocks (128x64 s6 / 64x128 s6); 128x256 only while its grid is one wave, past it the
// catalogue's split of it (NT 20480x200x8192: 160 blocks unsplit 293, three slices 327).
constexpr std::int64_t kWgmmaWideNarrow = 256;
constexpr std::int64_t kWgmmaWide192 = 192;
constexpr std::int64_t kWgmmaWideBlocksPerTenSms = 7;

// A narrow M of 192 whole in one 192-row block of three warpgroups where its grid fills the SMs
// as above: 192x128 s5, else 192x64 s6 (§117 A/B x1.13-1.36 on five shapes: TN 192x8192x8192
// 394 -> 537 TFLOP/s; but NT 184x8192x8192 lost x0.78 and the probe's M = 136-176 x0.85-0.93, so
// a ragged M keeps §116's plan). A narrow N 257-384 in two 192-wide blocks, 128x192 s5, unsplit
// (A/B x1.24-1.61 on 13 shapes over the catalogue's 128x256, K mostly split).
constexpr std::int64_t kWgmmaWide384 = 384;

// 385-512 wide either way, in 128x256 s4 unsplit where that grid is 0.7-1 wave (§118 probe on
// the H200: NN 400x8192x8192 577 TFLOP/s against 426 for the catalogue's three slices, BF16 NN
// 8192x400x8192 580 against 398); a smaller or a longer grid keeps the catalogue's plan (NN
// 4096x480x4096: 128x256 351, the catalogue's 128x128 s4 537).
constexpr std::int64_t kWgmmaWide512 = 512;

// A narrow M 288-384 in two 192-row blocks, 192x128 s5, one slice, where that grid has 0.7 of a
// block per SM (§119 A/B x1.16-1.65 on seven shapes over the catalogue's 128x128 / 128x256: NN
// 384x8192x8192 470 -> 683 TFLOP/s, TN 288x6144x6144 260 -> 430). From 288 the second block is
// at least half full; TT 264x16384x8192 lost x0.87 in it, so 257-287 keeps the catalogue's plan.
constexpr std::int64_t kWgmmaRows192Min = 288;

// 513-768 wide either way, and a ragged narrow M 129-191: the tile whose grid finishes first
// counted in waves (wgmma_waves.hpp), unsplit, where that grid has 0.7 of a block per SM. The
// §121 probe on the H200 (33 shapes, K 4096-8192): the catalogue's split 128x256 and §116's
// 128x128 s6 ran 0.55-0.99 of the best spec, the model's pick the best or within 0.91 of it on
// all 18 shapes of those ranges (NN 8192x520x8192 329 -> 513 TFLOP/s in 128x192 s5; NN
// 6144x640x6144 362 -> 677 in 256x128 s4, one wave with no padding). Not for M 257-296 (it took
// 192x128 where 128x256 led, x0.86-0.99) nor for grids past one wave of 129-512. A/B against
// §116-§120's plans: x1.06-1.85, geomean x1.29, on the 32 shapes kept; a narrow M up to 152
// whose 128x256 s4 grid is one wave lost x0.84-0.95 (NN 136x16384x8192 370 -> 309 in 192x128):
// that block's second row holds at most 24 rows, mostly out of bounds, which costs less than
// the model counts. Those keep 128x256 s4. The rates were refitted over §121-§123's probes with
// a part-full last wave costing less than a whole one (§124).
constexpr std::int64_t kWgmmaWide768 = 768;
constexpr std::int64_t kWgmmaRowsLight = 152;

// 65-768 wide with K deeper than the long side (where the rules above stop): the wave model over
// the seven tiles that probe timed (not 64x256 nor 192x64) whose grids have 0.7 of a block per SM,
// unsplit; where none has, the catalogue's K split. The §122 probe on the H200 (ten
// shapes, K 1.3-2x the long side, none in the rates' sample): the catalogue's split plans ran
// 0.56-0.88 of the best spec; the model's pick ran 0.78-1.00 of it, x1.15-1.72 over the split (TN
// 6144x520x8192 327 -> 564 TFLOP/s in 256x128 s4; NN 4096x512x6144 432 -> 649 in 128x128 s6). With
// one block per SM and the grid filling the SMs, slices of K would only add waves and a pass over C.
// Since §124 the model weighs only the candidates that fill the SMs (before, a pick that did not
// fill went back to the catalogue): NN 10240x161x12288 218 -> 301 TFLOP/s in 192x128 s5, where
// the catalogue split 128x128 s4 in three; but where only 64x128 s6 fills, x0.95-1.02 against
// the split (BF16 TN 5120x256x8192 352 -> 336).

// A narrow N 129-191 with K deeper than the long side whose wave model pick is 64x192 s6, where
// two slices of 128x192's grid are 0.7-1 wave (47-66 blocks: a long side of 5889-8448 at 132
// SMs): 128x192 s5 in two slices. 64x192 s6 unsplit ran x0.74-0.89 of it in the §125 probe
// on the H200 (TN 8192x130x16384 243 -> 330 TFLOP/s, NN 8192x144x16384 325 -> 407, TN
// 6144x160x12288 337 -> 381); at 192 wide, with no padded columns, 64x192 s6 unsplit led (NN
// 6144x192x24576 545 against 487), and a model that weighs slices for every tile lost as often as
// it gained (perf notes §125).
constexpr int kWgmmaDeepSlices = 2;

Plan plan_wgmma(const GemmCall& call, int multiprocessors) {
  constexpr gen::Family W = gen::Family::Wgmma;
  static const std::vector<gen::Tile> shallow = {{64, 128, 64, 64, 128, 1, W, false, 2}};
  static const std::vector<gen::Tile> narrow_n = {{128, 64, 64, 64, 64, 1, W, false, 6}};
  static const std::vector<gen::Tile> narrow_m = {{64, 128, 64, 64, 128, 1, W, false, 4}};
  static const std::vector<gen::Tile> narrow_short = {{64, 64, 64, 64, 64, 1, W, false, 6}};
  static const std::vector<gen::Tile> square = {{128, 128, 64, 64, 128, 1, W, false, 6}};
  static const std::vector<gen::Tile> across_deep = {{64, 128, 64, 64, 128, 1, W, false, 6}};
  static const std::vector<gen::Tile> wide = {{128, 256, 64, 64, 256, 1, W, false, 4}};
  static const std::vector<gen::Tile> wide_192 = {{128, 192, 64, 64, 192, 1, W, false, 5}};
  static const std::vector<gen::Tile> narrow_192 = {{64, 192, 64, 64, 192, 1, W, false, 6}};
  static const std::vector<gen::Tile> rows_192 = {{192, 128, 64, 64, 128, 1, W, false, 5}};
  static const std::vector<gen::Tile> rows_192_short = {{192, 64, 64, 64, 64, 1, W, false, 6}};
  static const gen::Tile rows_256 = {256, 128, 64, 64, 128, 1, W, false, 4};
  static const gen::Tile narrow_256 = {64, 256, 64, 64, 256, 1, W, false, 4};
  // The wave model's candidates (their rates: wgmma_waves.cpp).
  static const gen::Tile wide_waves[] = {wide_192.front(), rows_192.front(), rows_256, square.front(), wide.front()};
  static const gen::Tile narrow_m_waves[] = {square.front(),          across_deep.front(), narrow_256,
                                             rows_192.front(),        rows_192_short.front(), narrow_192.front(),
                                             wide.front(),            wide_192.front()};
  // Not 64x256 nor 192x64: the §122 probe timed neither.
  static const gen::Tile deep_waves[] = {wide.front(),   wide_192.front(),   rows_256,           rows_192.front(),
                                         square.front(), narrow_192.front(), across_deep.front()};
  const int sms = std::max(multiprocessors, 1);
  std::span<const gen::Tile> tiles = gen::wgmma_catalog();
  std::int64_t min_slice_k = kWgmmaMinSliceK;
  const std::int64_t narrow = std::min(call.m, call.n), long_side = std::max(call.m, call.n);
  const bool streams = long_side * call.k >= kWgmmaNarrowStream;
  // The rules from 17 wide run K in a single slice, where the operand streams and K is no longer
  // than the long side.
  const bool streams_shallow = streams && call.k <= long_side;
  const bool narrow_is_n = call.n <= call.m;
  const auto& narrow_tiles = narrow_is_n ? narrow_n : narrow_m;  // 64 wide on the narrow side
  const auto& across_tiles = narrow_is_n ? narrow_m : narrow_n;  // 128 wide on it
  auto blocks = [&](const gen::Tile& t) { return ceil_div(call.m, t.ml) * ceil_div(call.n, t.nl); };
  auto fills = [&](const gen::Tile& t) { return blocks(t) * 10 >= kWgmmaWideBlocksPerTenSms * sms; };
  auto one_wave = [&](const gen::Tile& t) { return fills(t) && blocks(t) <= sms; };
  // The wave model's pick where one of its ranges holds the call, among the candidates whose grid
  // fills the SMs as above (a smaller grid keeps the catalogue's plan, which splits K).
  std::span<const gen::Tile> model;
  if (streams_shallow && !narrow_is_n && narrow > kWgmmaNarrowAcross && narrow < kWgmmaWide192 &&
      !(narrow <= kWgmmaRowsLight && one_wave(wide.front())))
    model = narrow_m_waves;
  else if (streams_shallow && narrow > kWgmmaWide512 && narrow <= kWgmmaWide768)
    model = wide_waves;
  else if (streams && call.k > long_side && narrow > kWgmmaNarrowUnsplit && narrow <= kWgmmaWide768)
    model = deep_waves;
  const gen::Tile* wave_pick =
      fastest_in_waves(model, call.m, call.n, sms, ceil_div(kWgmmaWideBlocksPerTenSms * sms, 10));
  if (call.k <= kWgmmaShallowK) {
    tiles = shallow;
  } else if (streams && narrow <= kWgmmaNarrow) {
    tiles = narrow_tiles;
  } else if (streams && narrow <= kWgmmaNarrowUnsplit && long_side >= kWgmmaNarrowUnsplitLong &&
             (streams_shallow || narrow_is_n)) {
    tiles = narrow_tiles;
    min_slice_k = call.k;
  } else if (streams_shallow && narrow <= kWgmmaNarrowAcross) {
    if (narrow <= kWgmmaNarrowUnsplit)
      tiles = narrow_short;
    else if (narrow_is_n && narrow <= kWgmmaAcrossSquare && long_side >= kWgmmaAcrossSquareLong)
      tiles = square;
    else if (call.k < kWgmmaAcrossDeepK)
      tiles = across_tiles;
    else
      tiles = (narrow_is_n && call.op_b != gen::Op::N) || long_side >= kWgmmaAcrossDeepLong ? square : across_deep;
    min_slice_k = call.k;
  } else if (wave_pick) {
    tiles = std::span<const gen::Tile>(wave_pick, 1);
    min_slice_k = call.k;
    const auto sliced_192 = kWgmmaDeepSlices * blocks(wide_192.front());  // two slices' blocks
    if (call.k > long_side && narrow_is_n && narrow < kWgmmaWide192 && wave_pick->ml == 64 && wave_pick->nl == 192 &&
        sliced_192 * 10 >= kWgmmaWideBlocksPerTenSms * sms && sliced_192 <= sms) {
      tiles = wide_192;
      min_slice_k = call.k / kWgmmaDeepSlices;  // two slices
    }
  } else if (streams_shallow && narrow <= kWgmmaWideNarrow) {
    min_slice_k = call.k;
    if (narrow_is_n && narrow <= kWgmmaWide192) {
      tiles = fills(wide_192.front()) ? wide_192 : narrow_192;
    } else if (!narrow_is_n && narrow == kWgmmaWide192 && fills(rows_192_short.front())) {
      tiles = fills(rows_192.front()) ? rows_192 : rows_192_short;
    } else if (fills(wide.front())) {
      tiles = wide;
      if (blocks(wide.front()) > sms) min_slice_k = kWgmmaMinSliceK;
    } else {
      tiles = fills(square.front()) ? square : narrow_is_n ? narrow_n : across_deep;
    }
  } else if (streams_shallow && narrow_is_n && narrow <= kWgmmaWide384) {
    tiles = wide_192;
    min_slice_k = call.k;
  } else if (streams_shallow && !narrow_is_n && narrow >= kWgmmaRows192Min && narrow <= kWgmmaWide384 &&
             fills(rows_192.front())) {
    tiles = rows_192;
    min_slice_k = call.k;
  } else if (streams_shallow && narrow > kWgmmaWide384 && narrow <= kWgmmaWide512 && one_wave(wide.front())) {
    tiles = wide;
    min_slice_k = call.k;
  }
  return plan_over_tiles(tiles, call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k,
                         multiprocessors, min_slice_k);
}

}  // namespace ptxblas::dispatch
