// What a generated GEMM kernel is specialised on. Shapes, leading dimensions, pointers and scalars
// are launch arguments, so one compiled kernel serves every problem of its family.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ptxblas::gen {

// Storage type of A, B and C.
enum class DataType : std::uint8_t { F16, BF16, F32, F64, C32, C64 };
// op(X): as stored, transposed, conjugate-transposed (C is T for real types).
enum class Op : std::uint8_t { N, T, C };
// Instruction family of the inner product: SIMT fma, or warp-wide mma.sync (DMMA m16n8k8 for f64
// and, as four real products, c64 — four m8n8k4 each before sm_90; m16n8k16 with f32
// accumulation for f16 and bf16); or, for f16 and bf16 on sm_90a only, warpgroup-wide
// wgmma.mma_async reading both operands from shared memory that the tensor engine fills
// (wgmma_ptx.hpp).
enum class Family : std::uint8_t { Simt, Mma, Wgmma };

struct KernelConfig {
  DataType data = DataType::F32;
  bool scalar_f16 = false;  // alpha/beta live as f16 when read through a device pointer
  Op op_a = Op::N;
  Op op_b = Op::N;
  int ml = 64, nl = 64, u = 8;  // block tile: rows of C, columns of C, K-step
  int ms = 4, ns = 4;           // SIMT: thread tile, spread over the block tile in runs of `vec`;
                                // Mma: warp tile (each warp owns one ms x ns block of C);
                                // Wgmma: warpgroup tile (ms a multiple of 64 rows)
  int vec = 1;                  // contiguous rows/columns per run: one shared-memory vector load
  Family family = Family::Simt;
  // Shared-memory pipeline: 1 = one buffer, two barriers per K-step; 2 = double buffer, one,
  // both staging the next tile in registers; 3 to kMaxAsyncStages = that many buffers filled by
  // cp.async straight from global memory, stages - 1 tiles in flight (async_copy()).
  // Wgmma: the number of shared-memory stages, all in flight (2 to 8).
  int stages = 1;
  // f16/bf16 mma only: pad the rows of an operand copied along M/N for conflict-free shared
  // stores (at the price of some 2-way conflicts in the fragment loads) instead of the reverse.
  // (f64/c64 keep such operands [k][mn], conflict-free both ways, so need no choice.)
  bool store_pad = false;
  // Triangular output (SYRK-type): the kernel reads the fill parameters (kernel_abi.hpp), skips
  // blocks outside the triangle and tests each store. Not a tuning choice: a variant the launcher
  // asks for, so that plain GEMM kernels carry none of it (its code cost the S 128x128 TT kernel
  // 7 registers and half its occupancy).
  bool fill = false;
  // Triangular operand (TRMM): kBand* (kernel_abi.hpp); the kernel narrows each block's K range to
  // where the triangle is not zero. Like fill, a variant the launcher asks for.
  int band = 0;
  // cp.async stages only: copy A (B), where its layout allows (load_plan.hpp copy_vector), in
  // 16-byte vectors (a partial vector at the matrix's edge zero-fills its tail) instead of one
  // element per copy. Like fill, a variant the launcher asks for, per operand: when that
  // operand's address and leading dimension keep every vector 16-byte aligned.
  bool vec_copy_a = false;
  bool vec_copy_b = false;
  // cp.async stages of a SIMT kernel: a block whose tile lies inside M and N refills whole K-steps
  // without bounds checks (mma kernels always do, perf notes §51/§55). A variant, not a tuning
  // parameter: S's squares gained 5-7% with it, the model's narrow-tile splits (ica-64) and K = 32
  // plans lost up to 9%, splits on 128-wide tiles gained 1-8% (§145), so only dispatch's f32
  // lowerings (dispatch/async_stages.cpp), on the plans that gained, ask for it.
  bool unbounded = false;
  // Kernels that copy unchecked (cp.async stages of mma, or of SIMT with `unbounded`; the flag is
  // dropped elsewhere): an edge block's slots past M (N) point at the last whole copy inside
  // instead, so that it too refills whole K-steps unchecked, where M (N) ends on a whole copy
  // (perf notes §151). A variant the launcher asks for (dispatch's clamp_edges_fit): ptxas
  // allocates the copy pointers otherwise with it, which cost up to 29 more instructions in some D
  // tiles' loops, so only on the plans whose edge blocks gained.
  bool clamp_edges = false;
  // c64 in planes (c64_planes) in two register stages, no conjugated operand: the main loop fetches
  // the tile after next at the end of a K-step, after the stores of the next one, instead of at
  // its start; there ptxas had a DMMA each K-step wait on a scoreboard it shared with a global load
  // (perf notes §156). A variant the launcher asks for (dispatch's late_fetch_fits, which says what
  // the H200 measured): it gained on deep K and lost on K of 32-64, and conjugated layouts lost
  // with it (§157). Dropped elsewhere (canonical).
  bool late_fetch = false;
  // The result goes to C's address plus p_d_offset bytes (same leading dimension) instead of over
  // C, which is only read (beta != 0): an out-of-place GEMM, D = alpha op(A) op(B) + beta C. Like
  // fill, a variant the launcher asks for (TRSM's updates of rows not yet in its scratch write
  // them there, so that no final copy of the solution is needed).
  bool out_of_place = false;
  // Split-K through atomics: every K slice adds alpha times its sum into C with red.global.add
  // (C already scaled by beta, once, by the launcher), so no workspace and no reduction kernel.
  // Like fill, a variant the launcher asks for: only where the caller allows results that depend
  // on the order of the additions (cuBLAS's CUBLAS_ATOMICS_ALLOWED), for f32, f64, c32 and c64
  // (C stored in the compute type), SIMT and mma.sync, plain GEMM (no fill, band, out of place).
  bool atomic_add = false;
  // ISAAC's KL: each K-step tile is split over kl groups of threads (SIMT) or warps (mma), each
  // group computing the whole block tile over its own u / kl rows of K; after the main loop
  // groups 1..kl-1 leave their sums in shared memory and group 0 adds them in group order (the
  // result does not depend on timing) and alone runs the epilogue. More warps per block tile
  // without slicing K across blocks (no workspace, no reduction launch). 1, 2 or 4.
  int kl = 1;
  // ISAAC's KS: each thread keeps ks sets of accumulators and sends the K-step's successive rows
  // (SIMT) or mma K-slices round robin to them, so that consecutive products of one accumulator
  // do not wait on each other; after the main loop set 0 adds sets 1..ks-1 in set order (the
  // result does not depend on timing). More independent chains per thread for small thread or
  // warp tiles, at ks - 1 more accumulator tiles of registers. 1, 2 or 4; SIMT and mma.
  int ks = 1;
  // Split-K finished in the GEMM (kernel_abi.hpp tile_counts): each slice writes its part of the
  // workspace and counts itself in; the last slice of a tile sums the tile's parts in slice order
  // and finishes C. No reduction launch. Like fill, a variant the launcher asks for (a kernel of
  // its own: its tail costs 0-6 registers, perf notes §90), for SIMT and mma kernels without KL or
  // atomics, where the tail is short (fused_split_rounds).
  bool fused_split = false;
  // Block rasterization for L2 reuse: 0 = tiles in launch order (row tiles fastest, so one wave
  // spans every row tile of a few column tiles); G (a power of two, 2 to kMaxRaster) = the launch
  // order walks groups of G row tiles, every column tile of a group before the next group, so a
  // wave's blocks share fewer, squarer panels of A and B. Not with band (its own order). Like
  // fill, a variant the launcher asks for (dispatch's raster_for).
  int raster = 0;
  // Strided batch (cuBLAS's ?gemmStridedBatched): block z runs entry z of the batch, its A, B and
  // C at z times the strides (kernel_abi.hpp p_stride_*; wgmma reads A and B through 3-D tensor
  // maps). Grid z is then the batch, so K is never split: not with fused_split, atomic_add, fill,
  // band or out_of_place. Like fill, a variant the launcher asks for.
  bool batched = false;
  // With batched: p_a, p_b and p_c are device arrays of the entries' pointers (cuBLAS's
  // ?gemmBatched) instead of the first entry's, and there are no stride parameters. Not wgmma
  // (its tensor maps are made per operand on the host).
  bool batch_pointers = false;
  // Strided wgmma batches only: each block runs `batch_tiles` consecutive entries of its (x, y)
  // tile (grid z over ceil(entries / batch_tiles), the launch's entry count p_entries,
  // kernel_abi.hpp), its producer loading the next entry's tiles while the consumers store the
  // last's, so no block waits a whole load before its first K-step (perf notes §134). The
  // epilogue's staging then has shared memory of its own. 1 = one entry a block.
  int batch_tiles = 1;

  // Wgmma: a warpgroup (128) per warpgroup tile, plus the producer warp (wgmma_ptx.hpp).
  int threads() const {
    if (family == Family::Wgmma) return (ml / ms) * (nl / ns) * 128 + 32;
    return (ml / ms) * (nl / ns) * (family == Family::Mma ? 32 : 1) * kl;
  }
  bool operator==(const KernelConfig&) const = default;
};

// SIMT / mma with 3 or more stages: the tiles go global -> shared through cp.async.
constexpr int kMaxAsyncStages = 6;
constexpr int kMaxRaster = 64;
constexpr int kMaxBatchTiles = 63;  // KernelConfig::batch_tiles (six bits of config_key)
inline bool async_copy(const KernelConfig& c) { return c.family != Family::Wgmma && c.stages > 2; }

bool is_complex(DataType t);
// Bytes of one stored element of A/B/C.
int storage_bytes(DataType t);
// Bytes of one element as the kernel computes with it (f16/bf16 widen to f32).
int compute_bytes(DataType t);
// Bytes of one element in shared memory: the compute form, except that mma kernels keep f16
// and bf16 as stored (the tensor cores read them directly).
int shared_bytes(const KernelConfig& c);
// c64 mma tiles of 64-row warp tiles keep each shared stage as two f64 planes, real then
// imaginary (simt_gemm_ptx.cpp; perf notes §69: their {re, im} pairs cost ~330 register moves
// per K-step; smaller warp tiles, with fewer moves to save, lost up to 12% to the extra copies).
bool c64_planes(const KernelConfig& c);
// K of one mma fragment step (the warp tile is built of 16 x 8 x mma_k fragments), Family::Mma.
int mma_k(DataType t);
bool mma_supported(DataType t);
char type_letter(DataType t);  // s d c z h b
char op_letter(Op op);         // n t c

// Real types have no conjugate: C is folded into T so equal kernels get equal names.
KernelConfig canonical(KernelConfig c);

// KernelConfig::fused_split's tail: the last slice of a tile sums the kg parts of its thread's
// elements in rounds of at most kFusedSplitWords loads in flight per thread (a few slices of a
// group of columns at a time). The rounds one tile's tail takes for kg slices.
inline constexpr int kFusedSplitWords = 16;
int fused_split_rounds(const KernelConfig& c, int kg);
struct FusedSplitShape {
  int columns = 1;  // accumulator columns per group
  int groups = 1;   // groups of columns, one after another
  int slices = 1;   // slices loaded per round
};
FusedSplitShape fused_split_shape(const KernelConfig& c);

// Bytes of shared memory in which KL groups 1..kl-1 leave their accumulators: (kl - 1) block
// tiles in compute precision (0 for kl = 1).
int kl_reduce_bytes(const KernelConfig& c);

// Bytes of dynamic shared memory the kernel is launched with (Wgmma and cp.async stages, which
// may exceed the 48 KiB a kernel can declare statically); 0 for the others.
int dynamic_smem_bytes(const KernelConfig& c);
// Wgmma's shared memory (wgmma_ptx.hpp): the column stride of a warp's staging of C in the
// epilogue, the bytes between a staged column's 8-row chunks, and where the mbarriers lie (after
// the stages or the staging, whichever is larger).
int wgmma_staging_column_bytes(const KernelConfig& c);
int wgmma_staging_chunk_bytes(const KernelConfig& c);
int wgmma_barrier_offset(const KernelConfig& c);
// Where the tensor-map epilogue stages its boxes of C: over the stages (0), or with batch_tiles > 1
// after them (the producer is already filling them with the next entry's tiles).
int wgmma_tma_staging_offset(const KernelConfig& c);

// Unique, readable kernel name, e.g. "simt_s_nt_64x64x8_4x4".
std::string kernel_name(const KernelConfig& c);

// Every field of canonical(c) packed in two words, for the caches dispatch consults on every
// call, where building kernel_name costs ~170 ns. Equal keys mean equal kernels. nullopt when a
// field does not fit its 16 bits (no legal configuration comes near).
struct ConfigKey {
  std::uint64_t tile = 0, kind = 0;
  bool operator==(const ConfigKey&) const = default;
};
struct ConfigKeyHash {
  std::size_t operator()(const ConfigKey& k) const;
};
std::optional<ConfigKey> config_key(const KernelConfig& c);

}  // namespace ptxblas::gen
