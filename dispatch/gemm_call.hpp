// One GEMM as the shim hands it to dispatch: C = alpha * op(A) * op(B) + beta * C, column-major,
// arguments already validated.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kernel_abi.hpp"
#include "kernel_config.hpp"
#include "tile_catalog.hpp"
#include "param_space.hpp"

namespace ptxblas::dispatch {

struct GemmCall {
  gen::DataType data = gen::DataType::F32;
  bool scalar_f16 = false;  // alpha/beta stored as f16 (COMPUTE_16F); host values arrive widened
  gen::Op op_a = gen::Op::N, op_b = gen::Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 1;
  const void* b = nullptr;
  std::int64_t ldb = 1;
  void* c = nullptr;
  std::int64_t ldc = 1;
  // Host pointer mode: values in alpha/beta ({re, im}); device mode: the pointers.
  bool device_scalars = false;
  double alpha[2] = {0, 0}, beta[2] = {0, 0};
  const void* alpha_ptr = nullptr;
  const void* beta_ptr = nullptr;
  void* stream = nullptr;  // CUstream == cudaStream_t
  // gen::kFillWhole, or (m == n) only C's lower or upper triangle exists (kernel_abi.hpp; SYRK-type
  // output): the other triangle is neither read nor written, and its blocks do no work.
  int fill = gen::kFillWhole;
  // gen::kBandNone, or op(A) / op(B) is triangular with explicit zeros in its other triangle
  // (kernel_abi.hpp kBand*; TRMM): the kernel sums each block's K range only where it meets the
  // triangle. Not for wgmma plans (wgmma_fits refuses it).
  int band = gen::kBandNone;
  // Null, or where the result goes instead of over C (same shape and ldc, not overlapping C):
  // D = alpha op(A) op(B) + beta C with C only read (TRSM's updates into its scratch). Never
  // served by wgmma plans (KernelConfig::out_of_place).
  void* d = nullptr;
  // Planned by the heuristic (microseconds) instead of the model (milliseconds for a shape seen
  // for the first time), and not kept: for steps whose shapes are new on every call, such as a
  // factorization's (perf notes §72).
  bool quick_plan = false;
  // The caller allows results that depend on the order of additions (cuBLAS's
  // CUBLAS_ATOMICS_ALLOWED): a split of K may add its slices into C atomically instead of
  // through a workspace and a reduction kernel (KernelConfig::atomic_add).
  bool atomics = false;
  // Strided batch (cuBLAS's ?gemmStridedBatched): `batch` GEMMs of this shape, entry i's A, B and C
  // i times stride_a, stride_b, stride_c elements past the pointers above (a stride of A or B may
  // be 0: one operand for every entry; C's entries must not overlap: the shim forwards those).
  // Only for plain calls (no fill, band or d); each entry runs in block z of one launch, K unsplit.
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // a, b and c are device arrays of the entries' pointers (cuBLAS's ?gemmBatched, any batch count;
  // the strides unused). The entries' alignment is unknown on the host: no 16-byte vector copies,
  // no wgmma, and the element alignment the kernels need is the caller's (as cuBLAS requires).
  bool pointer_arrays = false;
};

// Whole C and no triangular operand: the calls plain-call rules (narrow, skinny, balanced and
// one-wave splits, c64's two slices for a part-empty round, K sets, wide tiles) are for; banded
// and triangular steps' blocks do unequal work.
inline bool is_plain(const GemmCall& call) { return call.band == gen::kBandNone && call.fill == gen::kFillWhole; }

struct Outcome {
  bool served = false;  // false: the caller forwards to the real cuBLAS (nothing was queued)
  bool failed = false;  // work was partly queued and then failed: report, never forward
  std::string detail;   // why not served (empty when served)
  // Served: the kernel's name (the kernel cache's, valid for the process) and its K slices. Kept
  // as a pointer so that a served call builds no string (a repeated shape's host budget is 1 us).
  const std::string* kernel = nullptr;
  int kg = 1;
  int packed = 0;  // served on aligned copies of these operands (operand_pack.hpp kPackA | kPackB)
  // Served: "name", "name kg=N" for a split, then " packed=A" (B, AB) where operands were copied;
  // else detail.
  std::string describe() const;
};

// Runs the GEMM with a generated kernel on the call's stream, or says why it cannot.
Outcome run_gemm(const GemmCall& call);

// How a problem runs: the kernel configuration and the split of K over blocks (kg slices of
// kchunk, summed by the reduction kernel; kg == 1: no split).
struct Plan {
  gen::KernelConfig config;
  int kg = 1;
  std::int64_t kchunk = 0;
};

// What the heuristic picks for this problem on a device with `multiprocessors` SMs.
Plan plan_gemm(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m, std::int64_t n,
               std::int64_t k, int multiprocessors);

// plan_gemm's plan for a C at most 16 (f32: 32) wide on one side (a long operand to stream), if
// the type has a narrow tile and the problem is large enough to be worth one; else none.
std::optional<Plan> plan_narrow(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                                std::int64_t n, std::int64_t k, int multiprocessors);

// plan_gemm's plan for f64 / c64 with C a little wider than that on one side (skinny_tile's
// widths), the other side and K at least 1024: the type's skinny tile, K split by whole rounds
// (c64 wider than 64: by how full the last round of blocks is, §148; 97-128 wide, the 33-64 tile
// and its split where its blocks fill their waves already).
std::optional<Plan> plan_skinny(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                                std::int64_t n, std::int64_t k, int multiprocessors);

// Blocks of a kernel one SM holds at once (H100 limits; registers from the generator's
// prediction, allocated per warp in units of 256).
std::int64_t blocks_per_sm(const gen::KernelConfig& c);

// How full `blocks` leave their waves of `slots` (the last one part-empty or not): blocks over the
// slots of the waves they take, in (0, 1].
double wave_fill(std::int64_t blocks, std::int64_t slots);

// Whole blocks of `b` that cover `a` (a, b > 0).
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The same rules over a given tile list, largest first, no K slice shallower than min_slice_k
// (plan_gemm: the type's catalog and 128).
Plan plan_over_tiles(std::span<const gen::Tile> tiles, gen::DataType data, bool scalar_f16, gen::Op op_a,
                     gen::Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors,
                     std::int64_t min_slice_k);

// The plan with its K split moved where big blocks (at most two per SM) would overrun the SMs by a
// part-round: kg from 2 to twice the plan's, fewest rounds x (K-steps per slice + fill) (§76).
// Other plans come back as they are.
Plan balanced_split(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors);

// An f32 SIMT plan, or an f64 mma plan on 64 x 128 blocks either way, splitting a deep
// reduction (K at least 16 times M and N) past one wave of slots, with the most slices that fit
// that wave, where they fill at least 0.93 of it (perf notes §145, §147). Other plans come back
// as they are.
Plan deep_split_waves(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors);

// A c64 plan on 64x64x8 blocks of 64x16 warp tiles, unsplit, in two slices where its last round
// of blocks over the SMs is part-empty enough that cheapest_split ranks two first (perf notes
// §149); blocks of one to two rounds in up to four slices, ranked with a shorter fill (§158);
// other plans come back as they are.
Plan split_part_round(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors);

// An f64 NN / NT plan, unsplit on 64x128x8 blocks of 32x64 warp tiles or 128x64x8 of 64x32, of a
// call 1024 to 4096 on a side and K 640 to 4096: 64x64x16 blocks of 32x32 warp tiles in three
// stages (perf notes §159); other plans come back as they are.
Plan mid_square_f64_tile(Plan p, std::int64_t m, std::int64_t n, std::int64_t k);

// f64's 32x32 blocks of 16x16 warp tiles split in 4 or more slices: a 32-deep K-step in four
// accumulator sets (KernelConfig::ks) and half the slices; other plans as they are. Applied to
// a plain call's chosen plan, whichever chose it (the model does not know ks, so it weighs the
// plan before), not to first-sight, banded or triangular steps' plans.
Plan with_k_sets(Plan p, std::int64_t m, std::int64_t n, std::int64_t k);

// The plan for a configuration the model chose (kg slices rounded to whole K-steps).
Plan plan_from_tuning(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                      std::int64_t n, std::int64_t k, const gen::Tuning& t);

// The configuration a plan runs, as a point of the tuning space's parameters (kg as planned, which
// need not be one of the space's listed values).
gen::Tuning tuning_of(const Plan& p);

// The plan for a tile (either family) and kg chosen by the caller (ptxblas_force_tile).
Plan plan_from_tile(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b, std::int64_t m,
                    std::int64_t n, std::int64_t k, const gen::Tile& tile, int kg);

// A tile this thread's GEMMs must use instead of the dispatcher's pick (benchmarks: the oracle
// search of ptxblas-bench); empty clears. Illegal for a call's type: that call is not served.
struct ForcedTile {
  gen::Tile tile;
  int kg = 1;
  std::optional<int> raster;  // KernelConfig::raster; none: the launcher's rule (raster_for)
  int batch_tiles = 1;        // KernelConfig::batch_tiles, strided batches only
  bool unbounded = false;     // KernelConfig::unbounded (SIMT cp.async stages only)
};
void force_tile(const std::optional<ForcedTile>& t);

// The same with a plan chosen by the caller (the tuner's benchmark); refuses an illegal one.
Outcome run_gemm_with_plan(const GemmCall& call, const Plan& plan);

// "kernel name" or "kernel name kg=N" for logs.
std::string describe(const Plan& p);

}  // namespace ptxblas::dispatch
