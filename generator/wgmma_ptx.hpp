// The main loop of a Wgmma kernel (KernelConfig::family == Family::Wgmma, f16/bf16, sm_90a),
// warp-specialised: one producer warp (the block's last) copies each K-step's A and B tiles into
// one of `stages` shared-memory stages with the tensor engine (cp.async.bulk.tensor through the
// kernel's two tensor maps, kernel_abi.hpp; zeros outside the matrix), and each consumer
// warpgroup multiplies its ms x ns block of C with wgmma.mma_async reading both operands from
// shared memory through matrix descriptors. Per stage, a "full" mbarrier (the copies' bytes
// landed) and an "empty" one (every consumer warp retired the wgmma that read it) hand the stage
// back and forth, so all stages are in flight. The rest of the kernel (parameters, epilogue) is
// the common emitter's (simt_gemm_ptx.cpp); the producer warp leaves before the epilogue (with
// KernelConfig::batch_tiles > 1, once it has loaded the block's last entry).
//
// Shared memory, 128-byte swizzle (16-byte chunk c of a 128-byte row r at (c ^ r % 8) * 16,
// rows in 1 KiB atoms of 8): a K-major operand (op(A) = A^T, op(B) = B) keeps one 128-byte row
// of K per row of M/N; an M/N-major one keeps 64 M/N elements per row, K rows in boxes of 64
// (8 KiB), one box per 64 of M/N.
#pragma once

#include <functional>
#include <string>

#include "kernel_config.hpp"
#include "ptx_writer.hpp"

namespace ptxblas::gen {

// Module-scope declaration of the dynamic shared memory the loop uses.
std::string wgmma_shared_decl();

// %rowbase / %colbase of the thread's first accumulator (the layout of wgmma's f32 D fragment:
// warp w of a warpgroup owns rows 16w.. of each 64-row tile, lane 4g + q rows g, g + 8 and
// column pairs 2q.. of every 8 columns). Reads %thr, %m0, %n0.
void emit_wgmma_thread_indices(PtxWriter& w, const KernelConfig& c);

// The loop, from the barriers' set-up to the last K-step. Reads %thr, %lane, %m0, %n0, %p_skip,
// the K-range registers %kstart and %keff and the parameters p_tmap_a, p_tmap_b; `acc(i, j)`
// names accumulator (i, j) in the epilogue's grid (rows 64 (i / 2) + 8 (i % 2), columns
// 8 (j / 2) + j % 2 from the bases). `after_copies`, if set, is emitted for the whole producer
// warp, lane 0 running it once its last copy is issued (the warp then leaves).
void emit_wgmma_main_loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                          const std::function<void()>& after_copies);

// The producer warp's C prefetch: unless `skip` (beta == 0, or the block writes a split-K
// partial), a tile wholly inside an aligned C (the epilogue reads all of it: the tensor-map load
// or the staged store below) whose K range fits in the stages is asked into L2 column by column,
// so the epilogue's reads of C find it there. Reads %lane, %m0,
// %n0, %m, %n, %gc, %ldc, %ksteps.
void emit_wgmma_c_prefetch(PtxWriter& w, const KernelConfig& c, const std::string& skip);

// The epilogue where C is tensor-map writable (C 16-byte aligned, ldc a multiple of 8; batched:
// stride_c a multiple of 8 and at least ldc x n, kernel_abi.hpp): at beta != 0 each warpgroup's
// leader first loads its boxes of C through p_tmap_c into the staging (the epilogue's mbarrier,
// after the stages' ones) and the warps read their fragments back with ldmatrix; then each
// consumer warp writes alpha * acc (+ beta * C), rounded to f16 / bf16, into its warpgroup's
// 128-byte-swizzled boxes of 64 rows x ns columns with stmatrix, and one thread a warpgroup
// stores the boxes to C through p_tmap_c. The engine leaves out the columns past n and the rows
// past m, but writes whole 16-byte pieces of a column, so where m is not a multiple of 8 only
// blocks wholly above row m take this path. `beta` is the f32 scalar, `beta_zero` the predicate
// beta == 0 (C then never read). Reads %gc, %ldc, %m, %n, %m0 and the thread indices;
// `block_tile(bx, by)` emits the block's row and column tile (after the launch order's
// remapping) into two u32 registers. Ends the thread with ret (batch_tiles > 1: goes on to
// L_wg_next_entry, the staging then after the stages, wgmma_tma_staging_offset); else falls through.
void emit_wgmma_tma_store(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                          const std::string& alpha, const std::string& beta, const std::string& beta_zero,
                          const std::function<void(const std::string&, const std::string&)>& block_tile);

// batch_tiles > 1: where every consumer goes once it has written its entry's C (the tensor-map
// store's leaders with their stores in flight): on to the block's next entry (C's pointer %gc
// one stride_c on, back into the main loop, or for a block without a product straight to
// L_epilogue with the accumulators `acc(i, j)` zeroed again), or, after the last, wait for the
// stores' reads of the staging and end.
void emit_wgmma_next_entry(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc);

// The epilogue's path for a block whose tile lies wholly inside C with C 16-byte aligned and ldc a
// multiple of 8 but which the tensor-map path above does not take (a batch whose stride_c the map
// cannot hold); else it falls through to the common epilogue: each consumer warp
// stages its accumulators in shared memory as f32 columns, then reads them back 8 rows at a time
// and writes C with 16-byte stores, whole 32-byte sectors, computing alpha * acc + beta * C
// exactly as the common epilogue does (C read only when beta != 0). `alpha`, `beta` are the f32
// scalars, `beta_zero` the predicate beta == 0; reads %m0, %n0, %m, %n, %gc, %ldc and the thread
// indices. Ends the thread with ret.
void emit_wgmma_staged_store(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                             const std::string& alpha, const std::string& beta, const std::string& beta_zero);

}  // namespace ptxblas::gen
