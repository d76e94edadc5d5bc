// The parameter list every generated GEMM kernel takes, in order. The generator writes it and
// dispatch/ fills it, so both include this one description.
//
//   u64 A, B, C        global pointers
//   s64 lda, ldb, ldc  leading dimensions in elements
//   s32 m, n, k
//   ct  alpha_re, alpha_im, beta_re, beta_im   ct = f32 (S, C, H, B) or f64 (D, Z); host values
//   u64 alpha_ptr, beta_ptr                    non-zero: read the scalars from device memory
//                                              instead (stored as f16 when scalar_f16)
//
// Grid: x over ceil(m / ML) row tiles, y over ceil(n / NL) column tiles; block: threads() x 1 x 1.
#pragma once

namespace ptxblas::gen {
inline constexpr int kKernelParamCount = 15;
}
