// GemmCall -> generated kernel launched on the caller's stream.
#include <algorithm>
#include <climits>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_abi.hpp"
#include "kernel_cache.hpp"

namespace ptxblas::dispatch {
namespace {

constexpr std::int64_t kMaxGridY = 65535;
// Row/column indices are 32-bit inside the kernel, with a tile of headroom.
constexpr std::int64_t kMaxDim = INT_MAX - 1024;

bool is_f64(gen::DataType t) { return t == gen::DataType::F64 || t == gen::DataType::C64; }

}  // namespace

Outcome run_gemm(const GemmCall& call) {
  Outcome out;
  const CudaDriver* d = cuda_driver();
  if (!d) {
    out.detail = driver_unavailable_reason();
    return out;
  }
  if (call.m > kMaxDim || call.n > kMaxDim || call.k > kMaxDim) {
    out.detail = "dimension beyond 32-bit kernel indexing";
    return out;
  }
  CUcontext ctx = nullptr;
  if (d->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    out.detail = "no current CUDA context";
    return out;
  }
  DeviceInfo dev;
  if (!device_info(ctx, dev, out.detail)) return out;
  if (dev.sm < 80) {
    out.detail = "device older than sm_80";
    return out;
  }
  const gen::KernelConfig cfg =
      choose_config(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, dev.multiprocessors);
  CUfunction fn = cached_kernel(ctx, cfg, dev.sm, out.detail);
  if (!fn) return out;

  // Launch arguments in the order of kernel_abi.hpp. Scalars travel in compute precision.
  std::uint64_t a = reinterpret_cast<std::uint64_t>(call.a), b = reinterpret_cast<std::uint64_t>(call.b);
  std::uint64_t c = reinterpret_cast<std::uint64_t>(call.c);
  std::int64_t lda = call.lda, ldb = call.ldb, ldc = call.ldc;
  std::int32_t m = static_cast<std::int32_t>(call.m), k = static_cast<std::int32_t>(call.k);
  double sd[4] = {call.alpha[0], call.alpha[1], call.beta[0], call.beta[1]};
  float sf[4] = {static_cast<float>(sd[0]), static_cast<float>(sd[1]), static_cast<float>(sd[2]),
                 static_cast<float>(sd[3])};
  std::uint64_t ap = call.device_scalars ? reinterpret_cast<std::uint64_t>(call.alpha_ptr) : 0;
  std::uint64_t bp = call.device_scalars ? reinterpret_cast<std::uint64_t>(call.beta_ptr) : 0;
  void* scalars = is_f64(call.data) ? static_cast<void*>(sd) : static_cast<void*>(sf);
  const std::size_t sbytes = is_f64(call.data) ? 8 : 4;
  auto scalar = [&](int i) { return static_cast<char*>(scalars) + i * sbytes; };

  // Grid y is limited to 65535 blocks: wide problems go in column chunks, each a launch with
  // B and C advanced to the chunk's first column.
  const std::int64_t chunk_cols = kMaxGridY * cfg.nl;
  const std::int64_t es = gen::storage_bytes(call.data);
  const unsigned grid_x = static_cast<unsigned>((call.m + cfg.ml - 1) / cfg.ml);
  for (std::int64_t n0 = 0; n0 < call.n; n0 += chunk_cols) {
    std::int32_t n = static_cast<std::int32_t>(std::min(chunk_cols, call.n - n0));
    std::uint64_t bc = b + static_cast<std::uint64_t>(n0 * (call.op_b == gen::Op::N ? ldb : 1) * es);
    std::uint64_t cc = c + static_cast<std::uint64_t>(n0 * ldc * es);
    void* params[gen::kKernelParamCount] = {&a, &bc, &cc, &lda, &ldb, &ldc, &m, &n, &k,
                                            scalar(0), scalar(1), scalar(2), scalar(3), &ap, &bp};
    const unsigned grid_y = static_cast<unsigned>((n + cfg.nl - 1) / cfg.nl);
    const CUresult r = d->cuLaunchKernel(fn, grid_x, grid_y, 1, static_cast<unsigned>(cfg.threads()), 1, 1, 0,
                                         static_cast<CUstream>(call.stream), params, nullptr);
    if (r != CUDA_SUCCESS) {
      // A failure after the first chunk leaves part of C updated: forwarding would apply beta
      // twice there, so that case is reported as an execution failure instead.
      out.detail = "launch failed: " + cuda_error_text(r);
      out.failed = n0 != 0;
      return out;
    }
  }
  out.served = true;
  out.detail = gen::kernel_name(cfg);
  return out;
}

}  // namespace ptxblas::dispatch
