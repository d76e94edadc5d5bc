// GemmCall -> generated kernel(s) launched on the caller's stream.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_abi.hpp"
#include "kernel_cache.hpp"
#include "load_plan.hpp"
#include "matrix_helpers_ptx.hpp"
#include "resources.hpp"
#include "decision_store.hpp"
#include "first_sight.hpp"
#include "async_stages.hpp"
#include "batched_plan.hpp"
#include "model_registry.hpp"
#include "operand_pack.hpp"
#include "plan_cache.hpp"
#include "plan_launch.hpp"
#include "tile_counts.hpp"
#include "untimed_plan.hpp"
#include "workspace_pool.hpp"
#include "simt_gemm_ptx.hpp"
#include "wgmma_plan.hpp"

namespace ptxblas::dispatch {

std::string Outcome::describe() const {
  if (!served || !kernel) return detail;
  return (kg > 1 ? *kernel + " kg=" + std::to_string(kg) : *kernel) + packed_note(packed);
}

namespace {

using gen::kMaxGridY;
// Row/column indices are 32-bit inside the kernel, with a tile of headroom.
constexpr std::int64_t kMaxDim = INT_MAX - 1024;

bool is_f64(gen::DataType t) { return t == gen::DataType::F64 || t == gen::DataType::C64; }

// alpha/beta as the kernels take them: compute precision, host values or device pointers.
struct Scalars {
  double d[4];
  float f[4];
  std::uint64_t alpha_ptr, beta_ptr;
  bool wide;
  void* at(int i) { return wide ? static_cast<void*>(&d[i]) : static_cast<void*>(&f[i]); }
};

Scalars scalars_of(const GemmCall& call) {
  Scalars s{{call.alpha[0], call.alpha[1], call.beta[0], call.beta[1]}, {}, 0, 0, is_f64(call.data)};
  for (int i = 0; i < 4; ++i) s.f[i] = static_cast<float>(s.d[i]);
  if (call.device_scalars) {
    s.alpha_ptr = reinterpret_cast<std::uint64_t>(call.alpha_ptr);
    s.beta_ptr = reinterpret_cast<std::uint64_t>(call.beta_ptr);
  }
  return s;
}

CUresult launch(const CudaDriver* d, CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned threads,
                const GemmCall& call, void** params, unsigned shared = 0) {
  return d->cuLaunchKernel(fn, gx, gy, gz, threads, 1, 1, shared, static_cast<CUstream>(call.stream), params,
                           nullptr);
}

// Out of place (GemmCall::d): the result's bytes from C's, the same in every column (same ldc).
std::int64_t out_offset(const GemmCall& call) {
  if (!call.d) return 0;
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(call.d) - reinterpret_cast<std::uintptr_t>(call.c));
}

// kg > 1: slices into a stream-ordered workspace, then C is written by the last slice of each
// tile (fused, where the kernel can and the stream has tile counts: no second launch) or by the
// reduction kernel. Either way C is written by one launch, so a failure to launch leaves C
// untouched and the call can still be forwarded.
Outcome run_split(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, const Plan& plan,
                  const GemmKernel& gemm) {
  Outcome out;
  const auto& cfg = plan.config;
  const unsigned grid_x = static_cast<unsigned>((call.m + cfg.ml - 1) / cfg.ml),
                 grid_y = static_cast<unsigned>((call.n + cfg.nl - 1) / cfg.nl);
  // Held until the GEMM is queued (TileCounts::hold).
  const TileCounts tc = cfg.fused_split ? tile_counts(d, ctx, static_cast<CUstream>(call.stream),
                                                      static_cast<std::int64_t>(grid_x) * grid_y)
                                        : TileCounts{};
  std::uint64_t counts = tc.ptr;
  CUfunction reduce = counts ? nullptr : cached_reduce_kernel(ctx, call.data, cfg.scalar_f16, dev.sm, out.detail);
  if (!counts && !reduce) return out;
  CUtensorMap maps[3];
  if (plan.config.family == gen::Family::Wgmma &&
      !wgmma_tensor_maps(call, plan.config, {call.a, call.b, call.c, call.n}, 0, maps, out.detail))
    return out;
  const auto stream = static_cast<CUstream>(call.stream);
  const std::size_t bytes =
      static_cast<std::size_t>(plan.kg) * call.m * call.n * gen::compute_bytes(call.data);
  CUdeviceptr ws = 0;
  const CUmemoryPool pool = workspace_pool(d);
  if (const CUresult r = pool ? d->cuMemAllocFromPoolAsync(&ws, bytes, pool, stream)
                              : d->cuMemAllocAsync(&ws, bytes, stream);
      r != CUDA_SUCCESS) {
    out.detail = "split-K workspace: " + cuda_error_text(r);
    return out;
  }
  Scalars s = scalars_of(call);
  std::uint64_t a = reinterpret_cast<std::uint64_t>(call.a), b = reinterpret_cast<std::uint64_t>(call.b);
  std::uint64_t c = reinterpret_cast<std::uint64_t>(call.c), wsp = ws;
  std::int64_t lda = call.lda, ldb = call.ldb, ldc = call.ldc;
  std::int32_t m = static_cast<std::int32_t>(call.m), n = static_cast<std::int32_t>(call.n);
  std::int32_t k = static_cast<std::int32_t>(call.k), kchunk = static_cast<std::int32_t>(plan.kchunk), kg = plan.kg;
  std::int32_t fill = call.fill, fill_diag = 0;
  std::int64_t d_offset = out_offset(call);  // the reduction's; the slices write only the workspace
  // The tensor maps are read by wgmma kernels only; the others take the first kKernelParamCount.
  void* gp[gen::kWgmmaParamCount] = {&a, &b, &c, &lda, &ldb, &ldc, &m, &n, &k, s.at(0), s.at(1),
                                     s.at(2), s.at(3), &s.alpha_ptr, &s.beta_ptr, &wsp, &kchunk, &fill, &fill_diag,
                                     &d_offset, &counts, &maps[0], &maps[1], &maps[2]};
  void* rp[gen::kReduceParamCount] = {&wsp, &c, &ldc, &m, &n, &kg, s.at(0), s.at(1), s.at(2), s.at(3),
                                      &s.alpha_ptr, &s.beta_ptr, &fill, &fill_diag, &d_offset};
  CUresult r = launch(d, gemm.fn, grid_x, grid_y, static_cast<unsigned>(plan.kg), static_cast<unsigned>(cfg.threads()),
                      call, gp, gemm.dynamic_smem);
  if (r == CUDA_SUCCESS && !counts) {
    const int groups = gen::reduce_groups(call.m * call.n, plan.kg), elems = gen::kReduceThreads / groups;
    r = d->cuLaunchKernel(reduce, static_cast<unsigned>((call.m * call.n + elems - 1) / elems), 1, 1,
                          static_cast<unsigned>(elems), static_cast<unsigned>(groups), 1, 0, stream, rp, nullptr);
  }
  d->cuMemFreeAsync(ws, stream);
  if (r != CUDA_SUCCESS) {
    out.detail = "launch failed: " + cuda_error_text(r);
    return out;
  }
  out.served = true;
  out.kernel = &gemm.name;
  out.kg = plan.kg;
  return out;
}

// kg > 1 through atomics (GemmCall::atomics, KernelConfig::atomic_add): C = beta C by the Scale
// helper (none when beta == 1; beta == 0 writes zeros without reading C), then the slices add
// alpha times their sums into C. No workspace and no reduction; a failure after the scaling was
// queued leaves C changed, so it is reported rather than forwarded.
Outcome run_atomic(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, const Plan& plan,
                   const GemmKernel& gemm) {
  Outcome out;
  Scalars s = scalars_of(call);
  std::uint64_t a = reinterpret_cast<std::uint64_t>(call.a), b = reinterpret_cast<std::uint64_t>(call.b);
  std::uint64_t c = reinterpret_cast<std::uint64_t>(call.c), ws = 0;
  std::int64_t lda = call.lda, ldb = call.ldb, ldc = call.ldc;
  std::int32_t m = static_cast<std::int32_t>(call.m), n = static_cast<std::int32_t>(call.n);
  std::int32_t k = static_cast<std::int32_t>(call.k), kchunk = static_cast<std::int32_t>(plan.kchunk);
  std::int32_t fill = gen::kFillWhole, fill_diag = 0;
  std::int64_t d_offset = 0;
  std::uint64_t counts = 0;
  if (call.beta[0] != 1 || call.beta[1] != 0) {
    CUfunction scale = cached_helper(ctx, {gen::HelperKind::Scale, call.data}, dev.sm, out.detail);
    if (!scale) return out;
    void* hp[gen::kHelperParamCount] = {&c, &ldc, &c, &ldc, &m, &n, s.at(2), s.at(3)};
    if (const CUresult r = launch(d, scale, static_cast<unsigned>((call.m + gen::kHelperThreads - 1) / gen::kHelperThreads),
                                  static_cast<unsigned>(std::min(call.n, kMaxGridY)), 1, gen::kHelperThreads, call, hp);
        r != CUDA_SUCCESS) {
      out.detail = "launch failed: " + cuda_error_text(r);
      return out;
    }
    out.failed = true;  // C is being scaled: from here a failure is an execution failure
  }
  void* gp[gen::kKernelParamCount] = {&a, &b, &c, &lda, &ldb, &ldc, &m, &n, &k, s.at(0), s.at(1), s.at(2),
                                      s.at(3), &s.alpha_ptr, &s.beta_ptr, &ws, &kchunk, &fill, &fill_diag,
                                      &d_offset, &counts};
  const auto& cfg = plan.config;
  if (const CUresult r = launch(d, gemm.fn, static_cast<unsigned>((call.m + cfg.ml - 1) / cfg.ml),
                                static_cast<unsigned>((call.n + cfg.nl - 1) / cfg.nl), static_cast<unsigned>(plan.kg),
                                static_cast<unsigned>(cfg.threads()), call, gp, gemm.dynamic_smem);
      r != CUDA_SUCCESS) {
    out.detail = "launch failed: " + cuda_error_text(r);
    return out;
  }
  out.failed = false;
  out.served = true;
  out.kernel = &gemm.name;
  out.kg = plan.kg;
  return out;
}

// Atomic adds a thread issues at the end of a slice: its accumulators, complex ones twice.
int reds_per_thread(const gen::KernelConfig& c) {
  const int acc = c.family == gen::Family::Mma ? c.ms * c.ns / 32 : c.ms * c.ns;
  return acc * (gen::is_complex(c.data) ? 2 : 1);
}

// Whether a split plan adds its slices atomically: the caller allows it, host scalars (the
// scaling of C by beta reads beta on the host), a plain GEMM, a type whose C holds what the
// slices sum (f32, f64, c32, c64; not wgmma), and at most 16 adds per thread: against the
// workspace and reduction, tiles of up to 16 gained 2-15% (D and Z, S's ica-64) or lost at most
// 3% (S), those of 32 to 128 lost up to 29% (S's 256x32 8x8 thread tiles) on the H100 (perf
// notes §79).
constexpr int kMaxRedsPerThread = 16;
bool atomic_split_fits(const GemmCall& call, const Plan& plan) {
  return call.atomics && plan.kg > 1 && !call.device_scalars && call.fill == gen::kFillWhole &&
         call.band == gen::kBandNone && !call.d && plan.config.family != gen::Family::Wgmma &&
         gen::storage_bytes(call.data) == gen::compute_bytes(call.data) &&
         reds_per_thread(plan.config) <= kMaxRedsPerThread;
}

// Whether a split plan's slices finish C themselves (KernelConfig::fused_split, no reduction
// launch): SIMT and mma kernels without KL whose tail, the last slice of a tile summing all kg
// parts, takes at most kMaxFusedRounds rounds of loads (perf notes §90).
constexpr int kMaxFusedRounds = 4;
bool fused_split_fits(const Plan& plan) {
  const gen::KernelConfig& c = plan.config;
  return plan.kg > 1 && c.family != gen::Family::Wgmma && c.kl == 1 && !c.atomic_add &&
         gen::fused_split_rounds(c, plan.kg) <= kMaxFusedRounds;
}

// Block rasterization (KernelConfig::raster, perf notes §91): a grid of several waves whose
// wave would span every row tile of a few column tiles walks groups of kRasterGroup row tiles
// instead, so that the blocks in flight share squarer panels of A and B in L2. Measured (A/B,
// sustained): tall C with a deep K +2-7% for f64, c64 and f16 (mma, wgmma), squares from 4096 on
// within 1.5% (D 2048 NT -3.6%, perf notes §91's open finding); SIMT (f32, c32) -1-2% on squares,
// and every type lost up to 4.5% at K = 32 (C's traffic, not A's and B's): hence tensor-core
// families and K at least kRasterMinK only.
constexpr int kRasterGroup = 8;
constexpr int kRasterMinWaves = 2;
constexpr std::int64_t kRasterMinK = 256;
int raster_for(const GemmCall& call, const Plan& plan, const DeviceInfo& dev) {
  const gen::KernelConfig& c = plan.config;
  if (c.band || c.family == gen::Family::Simt || call.k < kRasterMinK) return 0;
  const std::int64_t gx = (call.m + c.ml - 1) / c.ml, gy = (call.n + c.nl - 1) / c.nl;
  return gx >= 2 * kRasterGroup && gy >= 2 && gx * gy >= kRasterMinWaves * std::int64_t{dev.multiprocessors}
             ? kRasterGroup
             : 0;
}

// One launch per chunk: grid y is limited to 65535 blocks, so wide problems go in column chunks,
// each with B and C advanced to the chunk's first column; a batch (grid z) in chunks of 65535
// entries, each with A, B and C advanced to the chunk's first entry.
Outcome run_whole(const CudaDriver* d, const GemmCall& call, const Plan& plan, const GemmKernel& kernel) {
  Outcome out;
  Scalars s = scalars_of(call);
  std::uint64_t ws = 0;
  std::int64_t lda = call.lda, ldb = call.ldb, ldc = call.ldc;
  std::int64_t stride_a = call.stride_a, stride_b = call.stride_b, stride_c = call.stride_c;
  std::int32_t m = static_cast<std::int32_t>(call.m), k = static_cast<std::int32_t>(call.k), kchunk = k;
  std::int64_t d_offset = out_offset(call);
  std::uint64_t counts = 0;
  const auto& cfg = plan.config;
  const std::int64_t chunk_cols = kMaxGridY * cfg.nl;
  const std::int64_t es = gen::storage_bytes(call.data);
  const std::int64_t batch = cfg.batched ? std::max<std::int64_t>(call.batch, 1) : 1;
  const unsigned grid_x = static_cast<unsigned>((call.m + cfg.ml - 1) / cfg.ml);
  bool queued = false;  // a failure after the first launch leaves part of C updated
  for (std::int64_t e0 = 0; e0 < batch; e0 += gen::kMaxGridZ) {
    const std::int64_t entries = std::min(gen::kMaxGridZ, batch - e0);
    // The chunk's first entry: its operands, or with pointer arrays its elements of them.
    const auto at = [&](const void* p, std::int64_t stride) {
      const std::int64_t step = cfg.batch_pointers ? 8 : stride * es;
      return reinterpret_cast<std::uint64_t>(p) + static_cast<std::uint64_t>(e0 * step);
    };
    std::uint64_t a = at(call.a, stride_a), b = at(call.b, stride_b), c = at(call.c, stride_c);
    for (std::int64_t n0 = 0; n0 < call.n; n0 += chunk_cols) {
      std::int32_t n = static_cast<std::int32_t>(std::min(chunk_cols, call.n - n0));
      std::uint64_t bc = b + static_cast<std::uint64_t>(n0 * (call.op_b == gen::Op::N ? ldb : 1) * es);
      std::uint64_t cc = c + static_cast<std::uint64_t>(n0 * ldc * es);
      // The chunk's column j is C's column n0 + j: the fill's diagonal moves by n0.
      std::int32_t fill = call.fill, fill_diag = static_cast<std::int32_t>(n0);
      CUtensorMap maps[3];
      if (cfg.family == gen::Family::Wgmma &&
          !wgmma_tensor_maps(call, cfg,
                             {reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(bc),
                              reinterpret_cast<const void*>(cc), n},
                             entries, maps, out.detail)) {
        out.failed = queued;
        return out;
      }
      // kernel_abi.hpp: the common parameters, then the tensor maps (wgmma), then the strides (batched).
      std::int32_t entries32 = static_cast<std::int32_t>(entries);
      void* params[gen::kWgmmaParamCount + gen::kBatchParamCount + gen::kBatchTilesParamCount] = {
          &a, &bc, &cc, &lda, &ldb, &ldc, &m, &n, &k, s.at(0), s.at(1), s.at(2), s.at(3), &s.alpha_ptr,
          &s.beta_ptr, &ws, &kchunk, &fill, &fill_diag, &d_offset, &counts};
      int next = gen::kKernelParamCount;
      if (cfg.family == gen::Family::Wgmma) {
        for (CUtensorMap& map : maps) params[next++] = &map;
      }
      if (cfg.batched && !cfg.batch_pointers) {
        params[next++] = &stride_a;
        params[next++] = &stride_b;
        params[next++] = &stride_c;
      }
      if (cfg.batch_tiles > 1) params[next++] = &entries32;
      // batch_tiles entries a block z (KernelConfig::batch_tiles), the last block the rest.
      const unsigned grid_z = static_cast<unsigned>((entries + cfg.batch_tiles - 1) / cfg.batch_tiles);
      const CUresult r = launch(d, kernel.fn, grid_x, static_cast<unsigned>((n + cfg.nl - 1) / cfg.nl), grid_z,
                                static_cast<unsigned>(cfg.threads()), call, params, kernel.dynamic_smem);
      if (r != CUDA_SUCCESS) {
        // Forwarding after a partial update would apply beta twice there: an execution failure.
        out.detail = "launch failed: " + cuda_error_text(r);
        out.failed = queued;
        return out;
      }
      queued = true;
    }
  }
  out.served = true;
  out.kernel = &kernel.name;
  return out;
}

}  // namespace

namespace {

// The driver, context and device for a call on the current context, or why not.
bool prepare(const GemmCall& call, const CudaDriver*& d, CUcontext& ctx, const DeviceInfo*& dev, Outcome& out) {
  d = cuda_driver();
  if (!d) {
    out.detail = driver_unavailable_reason();
    return false;
  }
  if (call.m > kMaxDim || call.n > kMaxDim || call.k > kMaxDim) {
    out.detail = "dimension beyond 32-bit kernel indexing";
    return false;
  }
  // Complex elements are moved as v2 loads/stores: each pointer must be aligned to a whole element
  // (arrays of entries' pointers: each pointer, 8 bytes).
  const auto align = static_cast<std::uintptr_t>(call.pointer_arrays ? 8 : gen::storage_bytes(call.data));
  for (const void* p : {call.a, call.b, static_cast<const void*>(call.c)})
    if (reinterpret_cast<std::uintptr_t>(p) % align != 0) {
      out.detail = "operand not aligned to its element size";
      return false;
    }
  if (d->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    out.detail = "no current CUDA context";
    return false;
  }
  dev = cached_device_info(ctx, out.detail);
  if (!dev) return false;
  if (dev->sm < 80) {
    out.detail = "device older than sm_80";
    return false;
  }
  return true;
}

// Which operands the plan's kernel copies in 16-byte vectors for this call (async_stages.hpp).
// A batch's entries must all be aligned: their strides whole 16-byte units.
VectorCopies vectors_for_call(const GemmCall& call, const Plan& plan) {
  if (call.pointer_arrays) return {};
  const std::int64_t es = gen::storage_bytes(call.data);
  auto aligned = [&](const void* p, std::int64_t stride) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (call.batch <= 1 || stride * es % 16 == 0);
  };
  return vector_copies_fit(plan.config, call.data, aligned(call.a, call.stride_a), call.lda,
                           aligned(call.b, call.stride_b), call.ldb);
}

// The problem's plan, or its f32 vector-stage form where the call's alignment lets an operand copy
// vectors (§42; one operand is enough, §45), with that decision: the lowering is the problem's,
// whether its vectors run the call's.
std::pair<Plan, std::optional<VectorCopies>> plan_for_alignment(const GemmCall& call, const ProblemPlans& known) {
  const bool lowered = !(known.vector_stages.config == known.plan.config);  // stages, or a split's copies
  if (const VectorCopies v = lowered ? vectors_for_call(call, known.vector_stages) : VectorCopies{}; v.any())
    return {known.vector_stages, v};
  return {known.plan, std::nullopt};
}

// launch_plan, with the call's vector-copy decision already made where `vectors` holds one
// (run_gemm makes it when it picks the f32 vector-stage form, §42: not looked up twice per call),
// and the block order where `raster` holds one (a forced tile's).
Outcome launch_decided(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, Plan plan,
                       std::optional<VectorCopies> vectors, std::optional<int> raster) {
  Outcome out;
  // A batch's entries are grid z: K is never split.
  // Pointer arrays are read by the batched kernels alone, whatever the count.
  plan.config.batched = call.batch > 1 || call.pointer_arrays;
  plan.config.batch_pointers = call.pointer_arrays;
  if (!d->cuMemAllocAsync || !d->cuMemFreeAsync || plan.config.batched) {
    plan.kg = 1;
    plan.kchunk = call.k;
  }
  if (plan.config.family == gen::Family::Wgmma && !wgmma_fits(call, dev)) {
    out.detail = "wgmma needs sm_90, a plain call (no triangular output or operand, in place), and A, B 16-byte "
                 "aligned with leading dimensions a multiple of 8";
    return out;
  }
  // Triangular output runs the plan's tile in its fill variant (plain kernels ignore the fill).
  plan.config.fill = call.fill != gen::kFillWhole;
  plan.config.band = call.band;
  plan.config.out_of_place = call.d != nullptr;  // its variant (split: the reduction's offset)
  const VectorCopies v = vectors ? *vectors : vectors_for_call(call, plan);
  plan.config.vec_copy_a = v.a;
  plan.config.vec_copy_b = v.b;
  plan.config.raster = raster ? *raster : raster_for(call, plan, dev);
  // Only a forced raster can be illegal here (the rule asks for legal ones); legality costs
  // ~0.15 us, which a served call's 1 us budget should not pay.
  if (raster)
    if (const char* why = gen::illegal_reason(plan.config)) {
      out.detail = std::string("forced raster: ") + why;
      return out;
    }
  if (atomic_split_fits(call, plan)) {
    Plan atomic = plan;
    atomic.config.atomic_add = true;
    if (const GemmKernel* kernel = cached_kernel(ctx, atomic.config, dev.sm, out.detail))
      return run_atomic(d, ctx, dev, call, atomic, *kernel);
  }
  plan.config.fused_split = fused_split_fits(plan);
  plan.config.clamp_edges = clamp_edges_fit(call, plan.config);
  plan.config.late_fetch = late_fetch_fits(call, plan);
  const GemmKernel* kernel = cached_kernel(ctx, plan.config, dev.sm, out.detail);
  if (!kernel) return out;
  return plan.kg > 1 ? run_split(d, ctx, dev, call, plan, *kernel) : run_whole(d, call, plan, *kernel);
}

}  // namespace

Outcome launch_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, Plan plan) {
  return launch_decided(d, ctx, dev, call, std::move(plan), std::nullopt, std::nullopt);
}

namespace {
thread_local std::optional<ForcedTile> t_forced;

// With a model: the heuristic's plan unless the model trusts its own pick more (model_choice);
// with dispatch.benchmark_top_k = k > 0, a new shape's first call times both and the model's
// k favourites instead, and that measured choice is kept (in memory and on disk).
Plan timed_model_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call,
                      model::Picker& picker, int top_k) {
  const model::Problem problem{call.data, call.op_a, call.op_b, call.m, call.n, call.k};
  const Plan heuristic = heuristic_for_model(call, picker, dev.multiprocessors);
  const gen::Tuning fallback = tuning_of(heuristic);
  DecisionStore& store = decision_store_for(dev);
  if (const std::optional<gen::Tuning> known = store.find(problem)) {
    // A decision read from disk is checked like any input before it runs.
    if (*known == fallback) return heuristic;
    if (model::candidate_fits(problem, *known)) {
      const Plan p = plan_of(call, *known);
      if (gen::why_illegal(p.config).empty()) return p;
    }
  } else {
    std::vector<gen::Tuning> tunings{fallback};
    for (const gen::Tuning& t : picker.top(problem, top_k))
      if (!(t == fallback)) tunings.push_back(t);
    std::vector<Plan> plans{heuristic};
    for (std::size_t i = 1; i < tunings.size(); ++i) plans.push_back(plan_of(call, tunings[i]));
    if (const std::optional<std::size_t> best = fastest_plan(d, ctx, dev, call, plans)) {
      store.add(problem, tunings[*best]);
      return plans[*best];
    }
  }
  return model_choice_plan(call, picker, heuristic);
}

// The untimed plan (untimed_plan), or with first-sight timing on (top_k > 0) the model's plan
// chosen by timing (timed_model_plan), never the narrow, skinny or rebalanced plans: those are
// for calls whose plan was not timed. use_model false: the heuristic alone (GemmCall::quick_plan).
Plan fresh_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call, int top_k,
                bool use_model = true) {
  model::Picker* picker = use_model ? picker_for(dev) : nullptr;
  if (top_k == 0) return untimed_plan(call, picker, dev.multiprocessors);
  if (picker && picker->covers({call.data, call.op_a, call.op_b, call.m, call.n, call.k})) {
    const Plan plan = timed_model_plan(d, ctx, dev, call, *picker, top_k);
    return picker->model().knows_async_stages() ? plan : with_async_stages(plan);
  }
  return with_async_stages(
      plan_gemm(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, dev.multiprocessors));
}

PlanCache g_plans;

// A call wgmma could serve but for an operand's alignment, where copying it pays: wgmma on the
// aligned copies (operand_pack.hpp). Not served (and C untouched) when it does not apply, a copy
// cannot be made, or the GEMM on the copies cannot be launched (copies queued then are only
// wasted work): the caller plans the call as it is.
Outcome run_packed(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call) {
  Outcome out;
  const int which = misaligned_operands(call);
  if (!which || !wgmma_fits_when_aligned(call, dev) ||
      !packing_pays(call, which, workspace_pool(d) ? kWorkspaceKeepBytes : 0))
    return out;
  PackedOperands p;
  if (!pack_operands(d, ctx, dev, call, which, p, out.detail)) return out;
  out = launch_decided(d, ctx, dev, p.call, plan_wgmma(p.call, dev.multiprocessors), std::nullopt, std::nullopt);
  release_packed(d, p);
  if (out.served) out.packed = which;
  return out;
}

// A strided batch (GemmCall::batch): the entries in grid z (batch_tiles of them a block) of one
// launch per kMaxGridZ entries, K unsplit, on plan_batched's tile (kept in g_plans, in its f32
// vector-stage form where the call's alignment lets it run; or a forced one). Plain calls only.
Outcome run_batched(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev, const GemmCall& call) {
  Outcome out;
  if (call.fill != gen::kFillWhole || call.band != gen::kBandNone || call.d) {
    out.detail = "a strided batch of triangular or out-of-place GEMMs";
    return out;
  }
  const bool wgmma = !call.pointer_arrays && wgmma_fits(call, dev);
  // Column chunks would advance the arrays, not the entries' pointers.
  if (call.pointer_arrays && call.n > kMaxGridY * 16) {  // every tile is at least 16 wide
    out.detail = "pointer-array batch wider than one launch's columns";
    return out;
  }
  if (!t_forced) {
    const PlanKey key = batch_plan_key(ctx, call, wgmma);
    std::optional<ProblemPlans> known = g_plans.find(key);
    if (!known) {
      const Plan plan = plan_batched(call, wgmma, dev.multiprocessors);
      known = ProblemPlans{plan, with_f32_batch_vector_stages(plan, call.m, call.n, call.k)};
      g_plans.add(key, *known);
    }
    // f32 entries as single calls run them: cp.async stages copying vectors where aligned (§140;
    // unbounded copies on wide tiles and whole entries only, §142).
    auto [plan, vectors] = plan_for_alignment(call, *known);
    return launch_decided(d, ctx, dev, call, std::move(plan), vectors, std::nullopt);
  }
  Plan plan = plan_from_tile(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k,
                             t_forced->tile, 1);
  plan.config.batched = true;
  plan.config.batch_tiles = t_forced->batch_tiles;
  plan.config.unbounded = t_forced->unbounded;
  if (std::string why = gen::why_illegal(plan.config); !why.empty()) {
    out.detail = "forced tile illegal for this call: " + why;
    return out;
  }
  return launch_decided(d, ctx, dev, call, std::move(plan), std::nullopt, t_forced->raster);
}

}  // namespace

void force_tile(const std::optional<ForcedTile>& t) { t_forced = t; }

Outcome run_gemm(const GemmCall& call) {
  Outcome out;
  const CudaDriver* d = nullptr;
  CUcontext ctx = nullptr;
  const DeviceInfo* info = nullptr;
  if (!prepare(call, d, ctx, info, out)) return out;
  const DeviceInfo& dev = *info;
  if (call.batch > 1 || call.pointer_arrays) return run_batched(d, ctx, dev, call);
  const bool wgmma = wgmma_fits(call, dev);
  // Only F16 / BF16 can be packed for wgmma: other types skip the alignment tests on every call.
  const bool half = call.data == gen::DataType::F16 || call.data == gen::DataType::BF16;
  if (!t_forced && !wgmma && half)
    if (Outcome packed = run_packed(d, ctx, dev, call); packed.served || packed.failed) return packed;
  Plan plan;
  std::optional<VectorCopies> vectors;  // which operands copy vectors, where decided here
  if (t_forced) {
    plan = plan_from_tile(call.data, call.scalar_f16, call.op_a, call.op_b, call.m, call.n, call.k, t_forced->tile,
                          t_forced->kg);
    plan.config.unbounded = t_forced->unbounded;
    if (std::string why = gen::why_illegal(plan.config); !why.empty()) {
      out.detail = "forced tile illegal for this call: " + why;
      return out;
    }
  } else if (wgmma) {
    plan = plan_wgmma(call, dev.multiprocessors);
  } else {
    // With first-sight benchmarks on, the decision store is the cache (a shape seen during
    // stream capture, where nothing is timed, is benchmarked on a later call).
    // A quick plan is neither timed nor kept.
    const int top_k = call.quick_plan ? 0 : benchmark_top_k();
    const bool plain = is_plain(call);
    const PlanKey key{ctx,       {call.data, call.op_a, call.op_b, call.m, call.n, call.k}, call.scalar_f16,
                      call.band, {},
                      !plain};
    std::optional<ProblemPlans> known;
    if (top_k == 0 && !call.quick_plan) known = g_plans.find(key);
    if (!known) {
      const Plan fresh = with_register_stages(fresh_plan(d, ctx, dev, call, top_k, !call.quick_plan));
      const Plan vector_stages = with_f32_vector_stages(fresh);
      known = ProblemPlans{fresh, plain ? with_f32_wide_tile(vector_stages, call.m, call.n, call.k, dev.multiprocessors)
                                        : vector_stages};
      if (top_k == 0 && !call.quick_plan) g_plans.add(key, *known);
    }
    std::tie(plan, vectors) = plan_for_alignment(call, *known);
  }
  return launch_decided(d, ctx, dev, call, std::move(plan), vectors,
                        t_forced ? t_forced->raster : std::nullopt);
}

Outcome run_gemm_with_plan(const GemmCall& call, const Plan& plan) {
  Outcome out;
  const CudaDriver* d = nullptr;
  CUcontext ctx = nullptr;
  const DeviceInfo* info = nullptr;
  if (!prepare(call, d, ctx, info, out)) return out;
  const DeviceInfo& dev = *info;
  if (std::string why = gen::why_illegal(plan.config); !why.empty()) {
    out.detail = "illegal configuration: " + why;
    return out;
  }
  return launch_plan(d, ctx, dev, call, plan);
}

}  // namespace ptxblas::dispatch
