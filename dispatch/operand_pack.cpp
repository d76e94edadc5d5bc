#include "operand_pack.hpp"

#include <algorithm>
#include <cstdint>

#include "operand_pack_ptx.hpp"
#include "wgmma_plan.hpp"
#include "workspace_pool.hpp"

namespace ptxblas::dispatch {
namespace {

using gen::kMaxGridY;
// When the copies pay, from the §126 probes on the H200 (perf notes): against the mma.sync
// path an A copied for N = 16 lost x0.78, N = 64 gained x1.11 (B for M = 16 / 64: x0.64 /
// x1.06), break-even near 85-110 flops a copied element; 257^3 (0.03 GFLOP) lost x0.75, 513 x
// 512 x 512 (0.27) gained x1.33-1.54, 411^3 with both operands copied (0.14) lost x0.88, 700^3
// (0.69) gained x1.47. Copies past what the pool keeps mapped are mapped again after each
// synchronisation of a caller that synchronises per call, at 2-3 ms a GiB (CuPy, synced against
// back to back): break-even near 550 flops an element, so those ask 1024.
constexpr double kPackMinFlopsPerElement = 112;
constexpr double kPackMinFlops = 1 << 28;
constexpr double kPackMinFlopsPerUnkeptElement = 1024;

// An operand as it is stored: rows x cols, ld apart.
struct Stored {
  const void* p;
  std::int64_t ld, rows, cols;
  std::int64_t packed_ld() const { return (rows + 7) / 8 * 8; }
  std::size_t packed_bytes() const { return static_cast<std::size_t>(packed_ld() * cols) * 2; }
};

Stored stored_a(const GemmCall& c) {
  return {c.a, c.lda, c.op_a == gen::Op::N ? c.m : c.k, c.op_a == gen::Op::N ? c.k : c.m};
}
Stored stored_b(const GemmCall& c) {
  return {c.b, c.ldb, c.op_b == gen::Op::N ? c.k : c.n, c.op_b == gen::Op::N ? c.n : c.k};
}

}  // namespace

const char* packed_note(int which) {
  return which == (kPackA | kPackB) ? " packed=AB" : which == kPackA ? " packed=A" : which == kPackB ? " packed=B" : "";
}

int misaligned_operands(const GemmCall& call) {
  return (tma_readable(call.a, call.lda) ? 0 : kPackA) | (tma_readable(call.b, call.ldb) ? 0 : kPackB);
}

std::size_t packed_bytes(const GemmCall& call, int which) {
  return ((which & kPackA) ? stored_a(call).packed_bytes() : 0) + ((which & kPackB) ? stored_b(call).packed_bytes() : 0);
}

bool packing_pays(const GemmCall& call, int which, std::size_t kept_bytes) {
  if (!which) return false;
  const std::size_t bytes = packed_bytes(call, which);
  const double flops = 2.0 * static_cast<double>(call.m) * static_cast<double>(call.n) * static_cast<double>(call.k);
  const double per_element = flops / static_cast<double>(bytes / 2);
  return flops >= kPackMinFlops && per_element >= kPackMinFlopsPerElement &&
         (bytes <= kept_bytes || per_element >= kPackMinFlopsPerUnkeptElement);
}

bool pack_operands(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, int which,
                   PackedOperands& out, std::string& why) {
  if (!d->cuMemAllocAsync || !d->cuMemFreeAsync) {
    why = "no stream-ordered allocation for the packed operands";
    return false;
  }
  const CUfunction pack = cached_operand_pack(ctx, dev.sm, why);
  if (!pack) return false;
  const auto stream = static_cast<CUstream>(call.stream);
  const CUmemoryPool pool = workspace_pool(d);
  CUdeviceptr ws = 0;
  if (const CUresult r = pool ? d->cuMemAllocFromPoolAsync(&ws, packed_bytes(call, which), pool, stream)
                              : d->cuMemAllocAsync(&ws, packed_bytes(call, which), stream);
      r != CUDA_SUCCESS) {
    why = "packed operands' workspace: " + cuda_error_text(r);
    return false;
  }
  out.call = call;
  out.workspace = ws;
  CUdeviceptr next = ws;  // each copy's bytes are a multiple of 16: the second stays aligned
  // One copy: `s` into the workspace at `next`; the call's pointer and ld to the copy's.
  auto copy = [&](const Stored& s, const void*& p, std::int64_t& ld) {
    std::uint64_t src = reinterpret_cast<std::uint64_t>(s.p), dst = next;
    std::int64_t lds = s.ld, ldd = s.packed_ld();
    std::int32_t rows = static_cast<std::int32_t>(s.rows), cols = static_cast<std::int32_t>(s.cols);
    void* params[gen::kPackParamCount] = {&src, &lds, &dst, &ldd, &rows, &cols};
    const std::int64_t per_block = std::int64_t{gen::kPackThreads} * gen::kPackRowsPerThread;
    const CUresult r = d->cuLaunchKernel(pack, static_cast<unsigned>((ldd + per_block - 1) / per_block),
                                         static_cast<unsigned>(std::min(s.cols, kMaxGridY)), 1, gen::kPackThreads, 1,
                                         1, 0, stream, params, nullptr);
    if (r != CUDA_SUCCESS) {
      why = "operand packing launch failed: " + cuda_error_text(r);
      return false;
    }
    p = reinterpret_cast<const void*>(dst);
    ld = ldd;
    next += s.packed_bytes();
    return true;
  };
  // A failed copy wrote only the workspace: freeing it leaves nothing the caller must undo.
  if (((which & kPackA) && !copy(stored_a(call), out.call.a, out.call.lda)) ||
      ((which & kPackB) && !copy(stored_b(call), out.call.b, out.call.ldb))) {
    d->cuMemFreeAsync(ws, stream);
    return false;
  }
  return true;
}

void release_packed(const CudaDriver* d, const PackedOperands& p) {
  d->cuMemFreeAsync(p.workspace, static_cast<CUstream>(p.call.stream));
}

}  // namespace ptxblas::dispatch
