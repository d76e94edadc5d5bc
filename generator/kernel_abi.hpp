// The parameter lists of generated kernels, in order. The generator writes them and dispatch/
// fills them, so both include this one description.
//
// GEMM kernel (generate_simt_gemm):
//   u64 A, B, C        global pointers
//   s64 lda, ldb, ldc  leading dimensions in elements
//   s32 m, n, k
//   ct  alpha_re, alpha_im, beta_re, beta_im   ct = f32 (S, C, H, B) or f64 (D, Z); host values
//   u64 alpha_ptr, beta_ptr                    non-zero: read the scalars from device memory
//                                              instead (stored as f16 when scalar_f16)
//   u64 ws             0: finish C here. Else split-K: block z sums K range
//   s32 kchunk            [z*kchunk, min(k, (z+1)*kchunk)) into ws[z][n][m] (compute precision),
//                         alpha/beta unused; kchunk is a multiple of the tile's K-step.
//   s32 fill, fill_diag   read only by kernels generated with KernelConfig::fill (others ignore
//                         them): which elements of C exist (kFill* below; SYRK-type output): with
//                         kFillLower only (i, j) with i - j >= fill_diag, with kFillUpper only
//                         i - j <= fill_diag are read or written; blocks whose tile holds none
//                         return at once. kFillHermitian: imaginary parts on i - j == fill_diag
//                         become 0. Kernels generated with KernelConfig::band (kBand* below)
//                         read fill_diag as the column of C (and of op(B)) their column 0 is.
//   s64 d_offset          read only by kernels generated with KernelConfig::out_of_place: element
//                         (i, j) of the result goes to C's address of (i, j) plus d_offset bytes
//                         (C itself is only read). Split-K slices pass it to the reduction.
//   u64 tile_counts       split-K only, read by kernels generated with KernelConfig::fused_split
//                         (others ignore it): 0, the slices end after writing ws and the reduction kernel
//                         sums them. Else the address of one u32 per (x, y) tile, zero at launch:
//                         each slice adds 1 to its tile's count after writing its part of ws, and
//                         the slice that brings it to kg (gridDim.z) sums the tile's kg parts in
//                         slice order, finishes C as an unsplit kernel would (alpha, beta, fill,
//                         d_offset), and sets the count back to 0 for the next launch.
//   Wgmma kernels only (kWgmmaParamCount), after these:
//   .b8[128] tmap_a, tmap_b   CUtensorMaps (cuTensorMapEncodeTiled) of A and B as stored, f16 or
//                         bf16, 128-byte swizzle, zero fill outside: box 64 (K) x ML / NL rows for
//                         an operand stored K-contiguous, else 64 (M/N) x 64 (K)
//                         (dispatch/wgmma_plan.hpp makes them).
//   .b8[128] tmap_c       C's CUtensorMap for the epilogue's loads and stores, box 64 (M) x NS,
//                         128-byte swizzle; made (and read) only where C is 16-byte aligned, ldc
//                         is a multiple of 8 and, batched, stride_c is a multiple of 8 and at
//                         least ldc x n (a 3-D map, the entries its third dimension); else zeros.
//                         (Blocks reaching past row m take another store where m is not a
//                         multiple of 8: the engine writes whole 16-byte pieces.)
//   Batched kernels only (KernelConfig::batched), last (after the tensor maps of wgmma kernels):
//   s64 stride_a, stride_b, stride_c   elements from one batch entry's A (B, C) to the next's;
//                         block z runs entry z (wgmma: A's and B's tensor maps are 3-D, the
//                         entries their third dimension), kchunk = k and ws = 0 (no split).
//                         With KernelConfig::batch_pointers (not wgmma) no strides: A, B and C are
//                         device arrays of the entries' pointers, entry z's at element z.
//   KernelConfig::batch_tiles > 1 only (strided wgmma batches), last:
//   s32 entries           the launch's entries: block z runs entries z * batch_tiles up to
//                         min(entries, (z + 1) * batch_tiles), grid z ceil(entries / batch_tiles).
// Grid: x over ceil(m / ML) row tiles, y over ceil(n / NL) column tiles, z over K slices (batched:
// over the batch's entries); block: threads() x 1 x 1.
//
// Split-K reduction kernel (generate_splitk_reduce):
//   u64 ws, C; s64 ldc; s32 m, n, kg; ct alpha_re, alpha_im, beta_re, beta_im;
//   u64 alpha_ptr, beta_ptr; s32 fill, fill_diag (as above, but read always: one reduction
//                         kernel serves plain and triangular launches); s64 d_offset (as
//                         above, read always: 0 writes over C)
// Grid: ceil(m*n / E) blocks of E x G threads, G = reduce_groups(m*n, kg), E = kReduceThreads / G
// (simt_gemm_ptx.hpp).
#pragma once

#include <cstdint>

namespace ptxblas::gen {
// CUDA's limit on gridDim.y: launches wider than this many blocks take their columns in chunks
// (GEMM) or stride over them (helpers, operand packing).
inline constexpr std::int64_t kMaxGridY = 65535;
inline constexpr int kKernelParamCount = 21;
inline constexpr int kWgmmaParamCount = 24;
inline constexpr int kBatchParamCount = 3;  // batched kernels' strides, after the others
inline constexpr int kBatchTilesParamCount = 1;  // batch_tiles > 1: the entry count, last
// CUDA's limit on gridDim.z: batches of more entries go in launches of this many.
inline constexpr std::int64_t kMaxGridZ = 65535;
inline constexpr int kReduceParamCount = 15;
inline constexpr int kFillWhole = 0;
inline constexpr int kFillLower = 1;
inline constexpr int kFillUpper = 2;
inline constexpr int kFillHermitian = 4;  // or-ed with kFillLower / kFillUpper
// KernelConfig::band: op(A) (M x K) or op(B) (K x N) is triangular, its other triangle explicit
// zeros (TRMM's materialised triangle), so a block sums only the part of K that meets its rows of
// op(A) or columns of op(B), widened to whole K-steps: block rows [m0, m0 + ML), columns
// [n0, n0 + NL) (n0 counted from fill_diag), then
inline constexpr int kBandNone = 0;
inline constexpr int kBandALower = 1;  // op(A)(i, k) = 0 for k > i: K below m0 + ML
inline constexpr int kBandAUpper = 2;  // op(A)(i, k) = 0 for k < i: K from m0
inline constexpr int kBandBLower = 3;  // op(B)(k, j) = 0 for k < j: K from n0
inline constexpr int kBandBUpper = 4;  // op(B)(k, j) = 0 for k > j: K below n0 + NL
}  // namespace ptxblas::gen
