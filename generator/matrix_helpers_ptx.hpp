// The small helper kernels the level-3 adaptors need beside GEMM (dispatch/blas3), as PTX text.
// Pure functions, like the GEMM generator. S, D, C, Z data only.
//
// Element-wise helpers, one thread per element of the m x n destination:
//   params: u64 src, s64 lds, u64 dst, s64 ldd, s32 m, s32 n, ct s_re, ct s_im  (host scalar s)
//   grid:   x = ceil(m / kHelperThreads), y = min(n, 65535) (columns strided by gridDim.y)
//   Copy       dst = src
//   Scale      dst = s dst            (s == 0: dst = 0, not read)
//   Symmetrize dst = full symmetric / Hermitian matrix from src's `lower` or upper triangle
//   Triangle   dst = triangle of src (other triangle 0; unit: diagonal 1, src's never read)
// Triangular inverses of the diagonal blocks, one block of W threads each (W in kInverseWidths):
//   params: u64 src, s64 lds, u64 dst, s64 ldd, s32 n
//   grid:   x = ceil(n / W); dynamic shared memory: inverse_smem_bytes(data, W)
//   rows [W b, W b + w) of dst (an n x W strip), columns [0, w) = inverse of the triangle of
//   src's diagonal block at (W b, W b), w = min(W, n - W b) (zeros in its other triangle).
//   With n <= W and one block: dst (n x n) = inverse of src's triangle.
// Inverse doubling (inverse_doubling_ptx.cpp), the 2H-wide inverses from the H-wide ones (H in
// kInverseWidths), 256 threads:
//   params: u64 a, s64 lda, u64 half, s64 ldh, u64 dst, s64 ldd, s32 n
//   grid:   x = H / doubling_strip_width(data, H), y = ceil(n / 2H); dynamic shared memory:
//           doubling_smem_bytes(data, H) (32 KB at most)
//   half: the n x H strip the H-wide inverse wrote of a's triangle; rows [2H p, 2H p + w) of dst
//   (an n x 2H strip), columns [0, w), w = min(2H, n - 2H p) = the inverse of a's diagonal block
//   at (2H p, 2H p) (zeros in its other triangle). a is read in the stored off-diagonal blocks
//   only.
// Row interchanges (row_swaps_ptx.cpp; LAPACK's laswp with increment 1), kRowSwapThreads threads:
//   params: u64 a, s64 lda, u64 piv, s32 n, s32 count
//   grid:   x = ceil(n / kRowSwapThreads)
//   for r = 0 .. count - 1 in turn, rows r and piv[r] (s32, 0-based, >= r) of a's n columns are
//   swapped; piv is only read, a only inside rows [0, max piv] of its n columns.
// LU column steps (lu_columns_ptx.cpp; LAPACK's getf2 on an m x w block, m >= w), kLuThreads
// threads, launched for j = 0 .. w (j = w only when m > w), in order on one stream:
//   params: u64 a, s64 lda, s32 m, s32 w, s32 j, u64 piv, s32 offset, s32 left, s32 width, u64 work
//   grid:   x = ceil((m - j) / kLuThreads) (rows j .. m - 1); dynamic shared memory:
//           lu_columns_smem_bytes()
//   j > 0: column j - 1 below its pivot row divided by the pivot (not when the pivot is 0), then
//   rows j .. m - 1 of columns j .. w - 1 less that column times the pivot row. j < w: the pivot
//   of column j (rows j .. m - 1, the largest |re| + |im|, the first of equals, NaN never unless
//   nothing else) -> piv[j] = offset + its row, and rows j and the pivot swapped in columns
//   -left .. width - left - 1 (the whole panel around the block). work: lu_columns_work_bytes(grid
//   x) bytes whose first 4 (a counter) are 0 before the first launch; the launches leave them 0.
#pragma once

#include <string>

#include "kernel_config.hpp"
#include "simt_gemm_ptx.hpp"

namespace ptxblas::gen {

enum class HelperKind { Copy, Scale, Symmetrize, Triangle };

struct MatrixHelper {
  HelperKind kind = HelperKind::Copy;
  DataType data = DataType::F32;
  bool lower = true;       // Symmetrize, Triangle: which triangle is stored
  bool hermitian = false;  // Symmetrize
  bool unit = false;       // Triangle
};

inline constexpr int kHelperThreads = 256;
inline constexpr int kHelperParamCount = 8;
inline constexpr int kInverseWidths[] = {32, 64, 128};
inline constexpr int kInverseParamCount = 5;
inline constexpr int kDoublingThreads = 256;
inline constexpr int kDoublingParamCount = 7;
inline constexpr int kRowSwapThreads = 256;
inline constexpr int kRowSwapParamCount = 5;
inline constexpr int kLuThreads = 256;
inline constexpr int kLuParamCount = 10;

std::string helper_name(const MatrixHelper& h);
GeneratedKernel generate_matrix_helper(const MatrixHelper& h, int sm);

// Shared memory of the W-wide inverse, and the widest W whose tile fits smem_limit bytes.
int inverse_smem_bytes(DataType data, int width);
int max_inverse_width(DataType data, int smem_limit);
std::string inverse_name(DataType data, bool lower, bool unit, int width);
GeneratedKernel generate_triangular_inverse(DataType data, bool lower, bool unit, int width, int sm);

// Columns of the off-diagonal block one doubling block makes (its grid's x = half / this).
int doubling_strip_width(DataType data, int half);
int doubling_smem_bytes(DataType data, int half);
std::string doubling_name(DataType data, bool lower, int half);
GeneratedKernel generate_inverse_doubling(DataType data, bool lower, int half, int sm);

std::string row_swaps_name(DataType data);
GeneratedKernel generate_row_swaps(DataType data, int sm);

std::string lu_columns_name(DataType data);
GeneratedKernel generate_lu_columns(DataType data, int sm);
int lu_columns_smem_bytes();
int lu_columns_work_bytes(long long blocks);

}  // namespace ptxblas::gen
