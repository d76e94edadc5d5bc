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
// Triangular inverses of the diagonal blocks, blocks of kInverseMax threads:
//   params: u64 src, s64 lds, u64 dst, s64 ldd, s32 n
//   grid:   x = ceil(n / kInverseMax)
//   rows [32 b, 32 b + w) of dst (an n x kInverseMax strip), columns [0, w) = inverse of the
//   triangle of src's diagonal block at (32 b, 32 b), w = min(32, n - 32 b) (zeros in its other
//   triangle). With n <= 32 and one block: dst (n x n) = inverse of src's triangle.
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
inline constexpr int kInverseMax = 32;
inline constexpr int kInverseParamCount = 5;

std::string helper_name(const MatrixHelper& h);
GeneratedKernel generate_matrix_helper(const MatrixHelper& h, int sm);

std::string inverse_name(DataType data, bool lower, bool unit);
GeneratedKernel generate_triangular_inverse(DataType data, bool lower, bool unit, int sm);

}  // namespace ptxblas::gen
