// Where wgmma can serve a call, and its TMA descriptors (declared in wgmma_plan.hpp).
#include "wgmma_plan.hpp"

#include <cstdint>
#include <string>

#include "cuda_driver.hpp"
#include "tensor_map_cache.hpp"

namespace ptxblas::dispatch {

bool tma_readable(const void* p, std::int64_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0;
}

bool wgmma_fits_when_aligned(const GemmCall& call, const DeviceInfo& dev) {
  if (dev.sm != 90) return false;
  if (call.data != gen::DataType::F16 && call.data != gen::DataType::BF16) return false;
  const CudaDriver* d = cuda_driver();
  if (!d || !d->cuFuncSetAttribute || !d->cuTensorMapEncodeTiled) return false;
  return call.m > 0 && call.n > 0 && call.k > 0 && call.fill == gen::kFillWhole && call.band == gen::kBandNone &&
         !call.d;
}

namespace {
// A batch's entries of one operand as a tensor map's third dimension: a stride of whole 16-byte
// units, at least one entry's extent (ld x columns as stored), so that entries never overlap.
bool batch_stride_readable(std::int64_t stride, std::int64_t ld, std::int64_t cols) {
  return stride % 8 == 0 && stride >= ld * cols;
}
}  // namespace

bool wgmma_fits(const GemmCall& call, const DeviceInfo& dev) {
  if (call.batch > 1 &&
      (!batch_stride_readable(call.stride_a, call.lda, call.op_a == gen::Op::N ? call.k : call.m) ||
       !batch_stride_readable(call.stride_b, call.ldb, call.op_b == gen::Op::N ? call.n : call.k)))
    return false;
  return wgmma_fits_when_aligned(call, dev) && tma_readable(call.a, call.lda) && tma_readable(call.b, call.ldb);
}

namespace {

// A column-major matrix of `inner` x `outer` elements, `ld` apart, read in boxes of 64 x
// `box_outer`, swizzled as the kernel's shared memory expects; zeros outside. entries > 0: that
// many such matrices `stride` elements apart, a third dimension read one entry a box.
CUresult encode_tiled(const CudaDriver* d, CUtensorMap& map, gen::DataType t, const void* base, std::int64_t inner,
                      std::int64_t outer, std::int64_t ld, int box_outer, std::int64_t entries, std::int64_t stride) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer),
                              static_cast<cuuint64_t>(entries)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * 2, static_cast<cuuint64_t>(stride) * 2};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_outer), 1};
  const cuuint32_t unit[3] = {1, 1, 1};
  return d->cuTensorMapEncodeTiled(
      &map, t == gen::DataType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      entries > 0 ? 3 : 2, const_cast<void*>(base), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

// Repeated calls copy their maps from this thread's cache (tensor_map_cache.hpp).
CUresult encode(const CudaDriver* d, CUtensorMap& map, gen::DataType t, const void* base, std::int64_t inner,
                std::int64_t outer, std::int64_t ld, int box_outer, std::int64_t entries, std::int64_t stride) {
  thread_local TensorMapCache cache;
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  const TensorMapKey key{{reinterpret_cast<std::uint64_t>(base), u(inner), u(outer), u(ld), u(box_outer), u(entries),
                          u(entries > 0 ? stride : 0), static_cast<std::uint64_t>(t)}};
  return cache.find_or_encode(key, map, [&](CUtensorMap& out) {
    return encode_tiled(d, out, t, base, inner, outer, ld, box_outer, entries, stride);
  });
}

}  // namespace

bool c_tma_writable(const void* c, std::int64_t ldc, bool batched, std::int64_t stride_c, std::int64_t n) {
  return tma_readable(c, ldc) && (!batched || (stride_c % 8 == 0 && stride_c >= ldc * n));
}

bool wgmma_tensor_maps(const GemmCall& call, const gen::KernelConfig& c, const WgmmaOperands& at, std::int64_t entries,
                       CUtensorMap (&maps)[3], std::string& why) {
  const CudaDriver* d = cuda_driver();
  const std::int64_t e = c.batched ? entries : 0;
  // K-major operands (op(A) = A^T, op(B) = B) are stored K x M/N: a box of 64 K x the tile's rows.
  const std::int64_t n = at.n;
  CUresult r = c.op_a != gen::Op::N
                   ? encode(d, maps[0], call.data, at.a, call.k, call.m, call.lda, c.ml, e, call.stride_a)
                   : encode(d, maps[0], call.data, at.a, call.m, call.k, call.lda, 64, e, call.stride_a);
  if (r == CUDA_SUCCESS)
    r = c.op_b == gen::Op::N ? encode(d, maps[1], call.data, at.b, call.k, n, call.ldb, c.nl, e, call.stride_b)
                             : encode(d, maps[1], call.data, at.b, n, call.k, call.ldb, 64, e, call.stride_b);
  // C's, written in boxes of 64 rows x a warpgroup's columns; zeros where the kernel will not read it.
  maps[2] = CUtensorMap{};
  if (r == CUDA_SUCCESS && c_tma_writable(at.c, call.ldc, c.batched, call.stride_c, n))
    r = encode(d, maps[2], call.data, at.c, call.m, n, call.ldc, c.ns, e, call.stride_c);
  if (r != CUDA_SUCCESS) why = "tensor map: " + cuda_error_text(r);
  return r == CUDA_SUCCESS;
}

}  // namespace ptxblas::dispatch
