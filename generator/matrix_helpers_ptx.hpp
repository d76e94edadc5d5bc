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

std::string helper_name(const MatrixHelper& h);
GeneratedKernel generate_matrix_helper(const MatrixHelper& h, int sm);

// Shared memory of the W-wide inverse, and the widest W whose tile fits smem_limit bytes.
int inverse_smem_bytes(DataType data, int width);
int max_inverse_width(DataType data, int smem_limit);
std::string inverse_name(DataType data, bool lower, bool unit, int width);
GeneratedKernel generate_triangular_inverse(DataType data, bool lower, bool unit, int width, int sm);

}  // namespace ptxblas::gen
