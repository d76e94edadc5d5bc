// The main loop of a Wgmma kernel (KernelConfig::family == Family::Wgmma, f16/bf16, sm_90a):
// every thread copies its share of each K-step's A and B tiles into shared memory with 16-byte
// cp.async copies (zero-filled outside the matrix), `stages` K-steps in flight; each warpgroup
// then multiplies its ms x ns block of C with wgmma.mma_async reading both operands from shared
// memory through matrix descriptors. The rest of the kernel (parameters, epilogue) is the
// common emitter's (simt_gemm_ptx.cpp).
//
// Shared memory (no swizzle): each stage of an operand of extent E (ML or NL) x U is a grid of
// 8 x 8 core matrices of 128 contiguous bytes, core matrix (i, kc) (rows 8i.., k 8kc..) at
// (kc * E / 8 + i) * 128. Inside one, the 16-byte rows run along the operand's contiguous
// dimension in global memory: along K for a K-major operand (op(A) = A^T, op(B) = B), along M/N
// for an M/N-major one (wgmma's transpose flag), so every copy is one row of a core matrix.
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

// The loop, from the operands' set-up to the last K-step. Reads %thr, %m0, %n0, %m, %n, %k-range
// registers %kstart and %keff, %ga, %gb, %lda, %ldb; `acc(i, j)` names accumulator (i, j) in the
// epilogue's grid (rows 64 (i / 2) + 8 (i % 2), columns 8 (j / 2) + j % 2 from the bases).
void emit_wgmma_main_loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc);

}  // namespace ptxblas::gen
