// Lowering a chosen plan to the cp.async pipeline (perf notes §28). The model and the heuristic
// choose among register-staged pipelines (stages 1 and 2: the tuning space the bundled model was
// trained on); for the types where three cp.async stages measured faster for the same tile, the
// plan runs them instead.
#pragma once

#include <cstdint>
#include <utility>

#include "gemm_call.hpp"

namespace ptxblas::dispatch {

// `p` with three cp.async stages where they pay: f64 and c64 always, f32 when K is split (its
// large unsplit squares ran 5% slower); never for wgmma plans or f16/bf16 (cp.async has no 2-byte
// copies). Triangular output (SYRK-type) included: the fill variant's early return comes before
// any copy. The lowered configuration must be
// legal (almost always: its stages move to dynamic shared memory, 3 x 48 KiB at most, under the
// 227 KiB limit; only blocks at the register file's edge can tip over), else `p` stays.
Plan with_async_stages(Plan p);

// `p` with a c64 mma tile whose warp tiles are 64 rows deep and take one 8-deep slice a K-step
// (Z's 64x64x8 of 64x16) back in two register stages where it was lowered to three cp.async
// stages: that kernel ran 11-14% faster on 1024^2 and 2048^2 (perf notes §97). Applied after the
// model's pick, which weighs the tile as it was measured (three stages): a model asked to weigh
// the two-stage kernel preferred K-split plans that ran 9% slower (§98). Other plans stay.
Plan with_register_stages(Plan p);

// Elements per copy of A and B (gen::copy_vector) were the configuration launched with vector
// copies; memoised per configuration, for the per-call checks of dispatch.
std::pair<int, int> copy_vectors(const gen::KernelConfig& c);

// Which operands a launch of `c` copies in 16-byte vectors: those its layout lets copy them
// (copy_vectors) that start 16-byte aligned with a leading dimension of whole vectors. Per
// operand: a misaligned B does not cost an aligned A its vectors.
struct VectorCopies {
  bool a = false, b = false;
  bool any() const { return a || b; }
};
VectorCopies vector_copies_fit(const gen::KernelConfig& c, gen::DataType data, bool a_aligned, std::int64_t lda,
                               bool b_aligned, std::int64_t ldb);

// An unsplit register-staged f32 SIMT plan as three cp.async stages copying 16-byte vectors
// (vec_copy_a/_b): such stages ran 5% slower than register staging on S's large squares with
// element-wise copies (§28), 2-4% faster with both operands in vectors (NT, §42), and as fast
// or up to 16% faster with one (NN, TT: M = 512 TRSM/TRMM steps, §45), so they pay where the
// caller has checked that the call's alignment lets the vectors run (per call). Plans whose
// operands copy no vectors (TN, narrow tiles), and illegal lowerings, keep `p` as it is.
// A split plan keeps its cp.async stages (with_async_stages lowers the heuristic's, the model
// picks its own); on tiles kUnboundedWideTile wide on one side and kUnboundedSplitSide on the
// other, of thread tiles at most kUnboundedSplitThreadTile a side, its copies go unbounded inside
// the matrix where an operand copies vectors: the H200's S splits on such tiles ran x1.01-1.08
// faster so, a ragged 1000 x 3000 x 2000 x1.34 (perf notes §145), as unsplit plans did (§55; the
// model's narrower split picks lost then; a 128 x 128 tile of 16 x 8 thread tiles lost 3%;
// narrow 256 x 16 / 32 tiles were not measured). Banded, triangular and out-of-place steps'
// splits too, as their unsplit plans (measured on plain calls only).
inline constexpr int kUnboundedSplitSide = 64, kUnboundedSplitThreadTile = 8;
Plan with_f32_vector_stages(Plan p);

// A plain f32 call's vector-stage form (with_f32_vector_stages: unsplit, unbounded copies) of the
// catalogue's 128 x 128 tile of 8 x 8 thread tiles (runs of 4, no KL / KS) on wider blocks of one per SM where they divide C and fill their waves at least
// kWideTileFill (waves over whole waves), K at least kWideTileMinK: NT on 128 x 256 of 8 x 16
// thread tiles, NN on 256 x 128 of 16 x 8. On the H200's large S calls (perf notes §146) those ran
// x1.02-1.045 over 128 x 128 where they divided C (NT 8192^3 50.1 -> 51.6 TFLOP/s), x0.70-0.94 where
// they did not, x0.98 at K = 512; TT gained 0.5% on 128 x 256 and lost 6.5% on 256 x 128, TN lost
// on both (no vectors there). Other plans come back as they are.
inline constexpr double kWideTileFill = 0.95;
inline constexpr std::int64_t kWideTileMinK = 1024;
Plan with_f32_wide_tile(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors);

// A batched f32 plan's vector-stage form for m x n x k entries: with_f32_vector_stages, its
// unbounded copies kept on tiles kUnboundedWideTile wide and on kUnboundedWholeTile-wide ones
// whose entries they fill whole at least kUnboundedWholeMinK deep. On the H200's batches (perf
// notes §142) 32-wide tiles ran x1.01-1.05 without them, 64-wide ones x1.03-1.07 on ragged
// entries and x0.97-0.99 on whole ones 1024-4096 deep, but x1.01-1.05 on whole ones 64 deep
// (§144); the 128 x 128 tile ran 1-3% faster with them, ragged entries too.
inline constexpr int kUnboundedWideTile = 128, kUnboundedWholeTile = 64;
inline constexpr std::int64_t kUnboundedWholeMinK = 1024;
Plan with_f32_batch_vector_stages(Plan p, std::int64_t m, std::int64_t n, std::int64_t k);

// Whether `call` launches `c` (its vector copies and fused split set) with clamped edges
// (KernelConfig::clamp_edges: edge blocks refill whole K-steps unchecked, perf notes §151): plain
// calls (whole C, no band, in place) on f64 mma blocks of 64 x 32 x 16 in 16 x 32 warp tiles in
// cp.async stages where C ends mid-tile in N, NN, and TN where A copies vectors and the split is
// fused. On the H200 their checked edge blocks had set the time of one-wave splits: 2560 x 88 x
// 4096 in 2 slices ran 25.5 TFLOP/s checked, 31.7 clamped (96 wide: 34.2); NN 2560 x 72 / 80 (plans
// unchanged) x1.09, TN 2560 x 90 x 6000 x1.13. Not elsewhere: ptxas allocates the copy pointers
// otherwise with the clamp, which lengthened TN's other forms' loops by 10-12 instructions
// (`docs/measurements/sass-edge-clamp-loops.txt`), cost 64 x 64 x 16's loop 14 and D 1000^3 x0.92;
// NT gained nothing (its edge copies are vectors).
bool clamp_edges_fit(const GemmCall& call, const gen::KernelConfig& c);

// Whether `call` launches `c` (as with_register_stages leaves Z's 64x64x8 of 64x16) with the main
// loop fetching the tile after next at the end of a K-step (KernelConfig::late_fetch, perf notes
// §156-§157): single calls whose K, or K slice, is at least kLateFetchMinK deep, no conjugated
// operand. On the H200 NN / TN / TT 1024-2048^2 ran x1.02-1.04 with it, TN 4096^3 x1.03-1.05, NN
// 4096^3 x0.99-1.01, ZHEMM x1.02-1.05, NT x0.95-1.07 (its 3072^3 and 4096^3 swung between calls);
// K = 32-64 lost (NN 4096 x 4096 x 32 / 64 x0.955, TN x0.92; NT x1.00-1.02), K = 256 ran even;
// conjugated operands lost (CN x0.975, CC x0.94). Batches keep the start-of-step fetch (not
// measured).
inline constexpr std::int64_t kLateFetchMinK = 256;
bool late_fetch_fits(const GemmCall& call, const Plan& plan);

}  // namespace ptxblas::dispatch
