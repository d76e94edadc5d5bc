// Where the wgmma family can serve a call, and with which plan. The model's space does not hold
// wgmma tiles yet (they are new), so where wgmma can run, the heuristic's rules pick among them.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "gemm_call.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {

// sm_90 exactly (the kernels are sm_90a code), f16 or bf16, no empty dimension, the whole of C
// (wgmma kernels have no triangular variant), A and B 16-byte
// aligned with leading dimensions a multiple of 8 elements (what a tensor map accepts), and a
// driver that encodes tensor maps and lets kernels opt into more than 48 KiB of shared memory.
// A batch's A and B strides must be whole 16-byte units and keep the entries apart (3-D maps).
bool wgmma_fits(const GemmCall& call, const DeviceInfo& dev);
// The same but for A's and B's alignment: what an aligned copy of the operands would let run
// (operand_pack.hpp).
bool wgmma_fits_when_aligned(const GemmCall& call, const DeviceInfo& dev);
// Whether a tensor map reads an operand as it lies: base 16-byte aligned, ld a multiple of 8.
bool tma_readable(const void* p, std::int64_t ld);

// Whether the epilogue writes C through a tensor map (kernel_abi.hpp's tmap_c): C 16-byte aligned,
// ldc a multiple of 8 and, batched, stride_c a multiple of 8 keeping the n-column entries apart.
// The kernel checks the same; the two must agree.
bool c_tma_writable(const void* c, std::int64_t ldc, bool batched, std::int64_t stride_c, std::int64_t n);

// Where a launch's operands start: A, the n columns of op(B) and of C from `b` and `c` on (the
// launcher's column chunks), and for a batched kernel its chunk's first entry.
struct WgmmaOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  std::int64_t n = 0;
};

// The kernel's tensor maps (generator/kernel_abi.hpp) of A, op(B) and C (zeros where
// c_tma_writable says no); for a batched kernel, 3-D maps of `entries` entries the call's strides
// apart (the launcher's chunks of the batch). False, with why, when the driver refuses them.
bool wgmma_tensor_maps(const GemmCall& call, const gen::KernelConfig& c, const WgmmaOperands& at, std::int64_t entries,
                       CUtensorMap (&maps)[3], std::string& why);

// The heuristic's plan for a call wgmma_fits: rules by width, depth and streamed size, the wave
// model (wgmma_waves.hpp) where they weigh several tiles, else the catalogue's plan over all tiles.
Plan plan_wgmma(const GemmCall& call, int multiprocessors);

}  // namespace ptxblas::dispatch
