// F16 / BF16 calls the wgmma kernels could serve but for an operand TMA cannot read (a leading
// dimension not a multiple of 8 elements, or a base not 16-byte aligned): that operand is copied
// by the packing kernel (generator/operand_pack_ptx.hpp) into a stream-ordered workspace whose
// leading dimension is its rows rounded up to 8, and the GEMM runs wgmma on the copy. Without it
// these calls ran the mma.sync family at a fifth of the wgmma kernels' speed (perf notes §126).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {

inline constexpr int kPackA = 1, kPackB = 2;

// What a call record adds for the operands in `which` (" packed=A", " packed=B", " packed=AB"),
// or "" for none.
const char* packed_note(int which);

// Which of A and B TMA cannot read as they lie (kPackA | kPackB; 0: neither).
int misaligned_operands(const GemmCall& call);

// Whether copying the operands in `which` pays for this call: the GEMM's flops are many in all
// and against the copied elements, more so where the copies outgrow `kept_bytes`, what the
// workspace pool keeps mapped across synchronisations (0 for the default pool) (perf notes §126).
bool packing_pays(const GemmCall& call, int which, std::size_t kept_bytes);

// The workspace bytes the copies of `which` take.
std::size_t packed_bytes(const GemmCall& call, int which);

struct PackedOperands {
  GemmCall call;  // the caller's, with the copied operands' pointers and leading dimensions
  CUdeviceptr workspace = 0;
};

// Queues the copies of `which` on the call's stream. False with why when the workspace or the
// kernel is not to be had; then nothing is left queued that the caller must wait for, and C is
// untouched.
bool pack_operands(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, int which,
                   PackedOperands& out, std::string& why);

// Frees the copies' workspace once the work queued on the call's stream is done with it.
void release_packed(const CudaDriver* d, const PackedOperands& p);

}  // namespace ptxblas::dispatch
