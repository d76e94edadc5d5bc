#include "tile_catalog.hpp"

#include <utility>

namespace ptxblas::gen {

const std::vector<Tile>& tile_catalog(DataType t) {
  // SIMT tiles: wider elements get smaller thread tiles so accumulators stay well inside the
  // register file. Types with an exact tensor-core instruction (f64 and c64 through DMMA, f16
  // and bf16 through m16n8k16 with f32 accumulation) use mma tiles instead: {ml, nl, u, warp
  // tile ms x ns, vec 1}.
  // The tiles and their pipeline options (store_pad, two shared stages) are the oracle's winners
  // on the H100 (docs/perf-notes.md §8, §9): 64x64 blocks beat 128x64 for f64 from 2048 up, 64x32
  // for c64; deeper K-steps pay on skinny and deep-K shapes, and for f16 on large ones; two stages
  // pay everywhere they were measured (+3% S, +20-25% D, Z, H on 4096 squares); store_pad for f16.
  // With 16x8x8 f64 fragments (§10) the oracle moved D to 128x64 blocks of 64x32 warp tiles and
  // 64x64x16 below 2048, and Z to 32x16 warp tiles (144 registers for 16x16 ones left one
  // 256-thread block per SM). With three cp.async stages Z's oracle moved on to 64x64 blocks of
  // 64x16 warp tiles wherever they fill a wave (§35: 2048^2 +10%, K = 32 panels +20%), and D's to
  // 64x128 blocks of 32x64 warp tiles where K is deep (§37; first for every K, it cost LAPACK's
  // K <= 256 panels 10%, §29). c32's tiles took two stages only after they were measured (§46:
  // +3-9% on 64x64 blocks from 512x4096x512 to 4096^2, within ±2% on the narrower ones).
  constexpr Family M = Family::Mma;
  constexpr bool P = true;
  static const std::vector<Tile> f32 = {{128, 128, 8, 8, 8, 4, Family::Simt, false, 2},
                                        {64, 64, 8, 4, 4, 4, Family::Simt, false, 2},
                                        {32, 32, 8, 2, 2, 2, Family::Simt, false, 2}};
  static const std::vector<Tile> c32 = {{64, 64, 8, 4, 4, 2, Family::Simt, false, 2},
                                        {64, 32, 8, 4, 2, 2, Family::Simt, false, 2},
                                        {32, 32, 8, 2, 2, 2, Family::Simt, false, 2}};
  static const std::vector<Tile> f64 = {{64, 128, 8, 32, 64, 1, M, false, 3, 1024},
                                        {128, 64, 8, 64, 32, 1, M, false, 1},
                                        {64, 64, 16, 32, 32, 1, M, false, 1},
                                        {32, 32, 16, 16, 16, 1, M, false, 2}};
  static const std::vector<Tile> c64 = {{64, 64, 8, 64, 16, 1, M, false, 3},
                                        {64, 32, 8, 32, 16, 1, M, false, 2},
                                        {32, 32, 8, 16, 16, 1, M, false, 2},
                                        {32, 32, 16, 16, 16, 1, M, false, 2}};
  static const std::vector<Tile> half = {
      {128, 128, 32, 64, 32, 1, M, P, 2}, {64, 64, 32, 32, 32, 1, M, P, 1}, {32, 32, 16, 16, 16, 1, M, P, 1}};
  switch (t) {
    case DataType::F64: return f64;
    case DataType::C32: return c32;
    case DataType::C64: return c64;
    case DataType::F16:
    case DataType::BF16: return half;
    default: return f32;
  }
}

const std::vector<Tile>& wgmma_catalog() {
  // {ml, nl, u, warpgroup tile ms x ns, vec 1, Wgmma, no pad, stages}: two warpgroups of 64 rows
  // for the large tiles, one for the small. Stages: the oracle's best on the H100 (perf notes
  // §24, §24b: 128x256 with 3 or 4 stages ~715 TFLOP/s at 4096^2 through the tensor engine;
  // 64x64 with 6 stages beats 4 on the deep-K and skinny shapes).
  constexpr Family W = Family::Wgmma;
  static const std::vector<Tile> tiles = {{128, 256, 64, 64, 256, 1, W, false, 4},
                                          {128, 128, 64, 64, 128, 1, W, false, 4},
                                          {64, 128, 64, 64, 128, 1, W, false, 4},
                                          {64, 64, 64, 64, 64, 1, W, false, 6}};
  return tiles;
}

const Tile* narrow_tile(DataType t, bool k_contiguous, int width) {
  // The oracle's best narrow tiles on the H100 (perf notes §70; 2560x16x2560 and 8192x16x8192):
  // f32 staged by cp.async from an M-contiguous operand in 256x16x8 blocks (10.1 TFLOP/s against
  // 6.7 for the model's 128x32 pick; the best, 128x16x16, 5% faster, has ~35 registers more
  // than the legality model predicts) and through registers from a K-contiguous one, 32 deep (8.7
  // against 7.6 with cp.async); f64 in 64x16 blocks of 16x16 warp tiles, four stages (12.0 at
  // 8192, the memory floor); c64 in 32x16 blocks of 32x8 warp tiles (17.6 against 12.9). At
  // width 32 (2560x32x2560) f32 in 256x32x8 blocks, four cp.async stages from an M-contiguous
  // operand (15.9, as the model's pick), through registers from a K-contiguous one (13.9 against
  // 10.3); the other types' best were the catalogue's 32x32 tiles.
  constexpr Family M = Family::Mma;
  static const Tile f32_m32{256, 32, 8, 8, 8, 4, Family::Simt, false, 4};
  static const Tile f32_k32{256, 32, 8, 8, 8, 4, Family::Simt, false, 1};
  if (width > 16) return t == DataType::F32 ? (k_contiguous ? &f32_k32 : &f32_m32) : nullptr;
  static const Tile f32_m{256, 16, 8, 16, 4, 4, Family::Simt, false, 3};
  static const Tile f32_k{128, 16, 32, 4, 4, 4, Family::Simt, false, 1};
  static const Tile f64{64, 16, 32, 16, 16, 1, M, false, 4};
  static const Tile c64{32, 16, 16, 32, 8, 1, M, false, 3};
  switch (t) {
    case DataType::F32: return k_contiguous ? &f32_k : &f32_m;
    case DataType::F64: return &f64;
    case DataType::C64: return &c64;
    default: return nullptr;
  }
}

const Tile* skinny_tile(DataType t, int width) {
  // A forced sweep on the H100 (perf notes §77; 2560 x N x 2560, N = 32 / 64 / 128, kg 1-8): f64 at
  // N = 64 in 64x32x32 blocks of 32x16 warp tiles (22.8 / 23.5 TFLOP/s TN / NN against 19.8 / 21.8
  // for the dispatcher's 32x32x16; at N = 128 the catalogue's 128x128 stays ahead), c64 at N = 64
  // and 128 in 32x64x16 blocks of 16x32 warp tiles (41.1 / 38.4 and 42.0 / 40.8 against 33.2 / 34.4
  // and 38.6 / 40.7; at N = 32 it lost to 32x32, 21.0 against 29.2). Three stages each.
  // 32-deep K-steps where cuBLAS runs them (perf notes §94, sustained, 2560 x N x 2560, 3 slices
  // each): c64 at N = 32 in 32x32x32 blocks of 16x16 warp tiles (NN 30.2 -> 32.6 TFLOP/s, TN 30.0
  // -> 31.7 against 32x32x16 in 4), f64 at N = 128 in 128x64x32 blocks of 32x32 warp tiles (TN
  // 26.7 -> 31.7, NN 31.7 -> 31.8 against 64x64x8 in 6; at N = 96 it lost, 24.1 against 26.1).
  // c64 wider than 64 on the H200 (perf notes §148, forced bursts, 2560 / 1536 / 4096 x N x 2560 -
  // 8192): at N = 128 64x64x8 blocks of 64x16 warp tiles ran x1.04-1.28 over 32x64x16 in the same
  // K split (8 slices: 44.6 against 38.0 on NN 2560 x 128 x 2560), at N = 96 64x32x8 blocks of
  // 32x16, four stages, x1.24 (three 32-wide column tiles where 64-wide ones pad to 128). The
  // 64x64x8 in four cp.async stages: within 1% of three, which dispatch would run in two register
  // stages (with_register_stages, for the unsplit squares), and those lost 3-13% on four of five.
  // f64 81-96 wide (§150, forced bursts): 64x32x16 blocks of 16x32 warp tiles (three 32-wide column
  // tiles) in 2-4 slices ran x1.15-1.30 over the model's 32x32x16 on 2560 x 96 x 2560 in all four
  // layouts, x1.08-1.18 on 1024 x 96 x 1024 and 1536 x 96 x 3000; 65-80 wide the model picks this
  // tile itself, 97-112 it lost to 64x64x16.
  constexpr Family M = Family::Mma;
  static const Tile f64{64, 32, 32, 32, 16, 1, M, false, 3};
  static const Tile f64_128{128, 64, 32, 32, 32, 1, M, false, 3};
  static const Tile c64{32, 64, 16, 16, 32, 1, M, false, 3};
  static const Tile c64_32{32, 32, 32, 16, 16, 1, M, false, 3};
  static const Tile c64_96{64, 32, 8, 32, 16, 1, M, false, 4};
  static const Tile c64_128{64, 64, 8, 64, 16, 1, M, false, 4};
  static const Tile f64_96{64, 32, 16, 16, 32, 1, M, false, 3};
  if (width <= 16) return nullptr;
  if (width <= 32) return t == DataType::C64 ? &c64_32 : nullptr;
  if (t == DataType::F64 && width <= 64) return &f64;
  if (t == DataType::F64 && width > 80 && width <= 96) return &f64_96;
  if (t == DataType::F64 && width > 112 && width <= 128) return &f64_128;
  if (t == DataType::C64 && width <= 64) return &c64;
  if (t == DataType::C64 && width <= 96) return &c64_96;
  if (t == DataType::C64 && width <= 128) return &c64_128;
  return nullptr;
}

const Tile* skinny_nt_tile(DataType t, int width) {
  // f64 NT 97-112 wide on the H200 (perf notes §152, forced bursts): 64x64x16 blocks of 32x32 warp
  // tiles (two 64-wide column tiles) in 2-4 slices ran x1.13-1.25 over the model's 64x128x8 in 5-6
  // (4096 x 112 x 4096 42.6 against 34.5 TFLOP/s; 2560 x 104 x 2560 31.9 against 26.7); NN 2560 x
  // 112 x 2560 and TN 3000 x 104 x 1500 ran no faster on it than the model's plans.
  static const Tile f64_112{64, 64, 16, 32, 32, 1, Family::Mma, false, 3};
  return t == DataType::F64 && width > 96 && width <= 112 ? &f64_112 : nullptr;
}

const std::vector<RatedTile>& batched_tiles(DataType t) {
  // A forced sweep on the H200 (perf notes §139; 26 batches, 32-1024 square and not, K 32-256,
  // 16-2000 entries, beta 0): each tile's TFLOP/s over its share of useful work (m n over the
  // padded tiles) and its last wave's fill (blocks over slots, waves rounded up), geometric mean
  // over the batches. Where K is a multiple of 16, f32's 64 x 64 blocks ran x1.00-1.23 with
  // 16-deep K-steps against 8-deep ones, 32 x 32 blocks of 2 x 2 thread tiles x0.98-1.16, 128 x
  // 128 ones mostly x0.80-0.92 (rated apart); where it was not, 16-deep steps lost (dispatch offers
  // them where K is a multiple only). 32 x 32 blocks of 4 x 4 thread tiles (64 threads, nine or
  // ten blocks an SM) led on the smallest entries. 64 x 64 blocks of 8 x 8 thread tiles (64
  // threads; rates 27.7 and 23.5 at 8 and 16 deep) are not offered: picked on NN batches, they fell
  // to x0.78 of 64 x 64 x 16's 4 x 4 tiles on TN ones (64^3 x 512: 12.7 against 16.2). f64's 64 x 64
  // blocks one 8-deep slice a K-step (32 x 32 warp tiles, three blocks an SM) led on most. (128 x
  // 64 x 16, 22.8, best nowhere, spills in its batched form: not offered.) Deeper than 256, a
  // second sweep (12 f32 batches, K 320-2048) had f32's 64 x 64 x 16 blocks (in their cp.async
  // vector-stage form, as dispatch runs f32 where the call is aligned) best or within 3% on nine,
  // 128 x 128 x 8 best on three: weighed by their short-K rates (with 64 x 64 x 8 where K is no
  // multiple of 16), they picked the best or within 11% (§140). f64's 64 x 64 x 16 led there too,
  // 32 x 32 x 16 on small entries: their deep rates are fitted on 12 f64 batches of that sweep,
  // and picked the best or within 7% on 12 more (§141). f32's 64 x 64 x 8 blocks copy no vectors
  // (two elements a thread an operand) and run three element-wise cp.async stages: x1.06-1.13 over
  // two register-fed ones (geomean per layout) in the H200's stage sweep, x1.06-1.16 on the
  // batches it serves, at beta 0 and 1 (§142); 64 x 128 x 8 where neither operand copies vectors
  // (B not transposed: NN, TN) x0.99-1.24 on the ten batches it serves (§143). Where the entries read
  // C, f64's 64 x 64 x 16 blocks fell to 0.69 of their beta-0 rate in a beta-1 sweep of 42 D
  // batches, the others to 0.81-0.88: weighed at 0.69 / 0.85 of it, the six batches it served
  // there moved to 32 x 64 x 16, x1.04-1.28, and no other pick moved for any rate from 14 to 18.
  constexpr Family M = Family::Mma, S = Family::Simt;
  static const std::vector<RatedTile> f32 = {{{128, 128, 8, 8, 8, 4, S, false, 2}, 30.6, 30.6},
                                             {{128, 128, 16, 8, 8, 4, S, false, 2}, 23.5},
                                             {{64, 128, 8, 4, 8, 4, S, false, 2}, 23.6, 0, 0, true},
                                             {{64, 64, 16, 4, 4, 4, S, false, 2}, 23.4, 23.4},
                                             {{64, 64, 8, 4, 4, 4, S, false, 2}, 20.1, 20.1, 0, true},
                                             {{32, 32, 16, 4, 4, 4, S, false, 2}, 17.7},
                                             {{32, 32, 8, 2, 2, 2, S, false, 2}, 13.5}};
  static const std::vector<RatedTile> f64 = {{{128, 64, 8, 64, 32, 1, M, false, 3}, 25.6},
                                             {{64, 128, 8, 32, 64, 1, M, false, 3}, 24.9},
                                             {{64, 64, 8, 32, 32, 1, M, false, 3}, 26.5},
                                             {{64, 64, 16, 32, 32, 1, M, false, 3}, 19.9, 41.9, 16.2},
                                             {{64, 32, 16, 32, 16, 1, M, false, 3}, 18.7},
                                             {{32, 64, 16, 16, 32, 1, M, false, 3}, 19.2},
                                             {{32, 32, 8, 16, 16, 1, M, false, 3}, 18.5},
                                             {{32, 32, 16, 16, 16, 1, M, false, 3}, 17.8, 28.4}};
  static const std::vector<RatedTile> none;
  return t == DataType::F32 ? f32 : t == DataType::F64 ? f64 : none;
}

Tile mirrored(Tile t) {
  std::swap(t.ml, t.nl);
  std::swap(t.ms, t.ns);
  return t;
}

KernelConfig with_tile(KernelConfig c, const Tile& t) {
  c.ml = t.ml;
  c.nl = t.nl;
  c.u = t.u;
  c.ms = t.ms;
  c.ns = t.ns;
  c.vec = t.vec;
  c.family = t.family;
  c.store_pad = t.store_pad;
  c.stages = t.stages;
  c.kl = t.kl;
  c.ks = t.ks;
  return c;
}

}  // namespace ptxblas::gen
