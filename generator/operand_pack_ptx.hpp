// The operand packing kernel: a column-major matrix of 16-bit elements (f16 / bf16, moved as raw
// bits) copied to a destination whose columns start 16 bytes apart, so that the wgmma kernels'
// tensor maps can read an A or B whose own leading dimension or base address they cannot
// (dispatch/operand_pack.hpp).
//   params: u64 src, s64 lds, u64 dst, s64 ldd, s32 rows, s32 cols
//           (dst 16-byte aligned, ldd a multiple of 8 and at least rows; src 2-byte aligned)
//   grid:   x = ceil(ldd / (8 * kPackThreads)), y = min(cols, 65535) (columns strided by gridDim.y)
//   each thread writes 8 consecutive rows of a column with one 16-byte store: src's elements in
//   rows < rows, zeros in the padding rows rows .. ldd - 1 (never read outside rows x cols).
#pragma once

#include <string>

#include "simt_gemm_ptx.hpp"

namespace ptxblas::gen {

inline constexpr int kPackThreads = 256;
inline constexpr int kPackRowsPerThread = 8;
inline constexpr int kPackParamCount = 6;

std::string operand_pack_name();
GeneratedKernel generate_operand_pack(int sm);

}  // namespace ptxblas::gen
