#include "first_sight.hpp"

#include <atomic>
#include <limits>

#include "config.hpp"
#include "plan_launch.hpp"
#include "workspace_pool.hpp"

namespace ptxblas::dispatch {
namespace {

constexpr int kReps = 5;  // timed runs per plan, after one untimed run
// A larger C is not duplicated for timing (such shapes keep the model's pick): the scratch must
// not take memory the application counts on.
constexpr std::size_t kMaxScratchBytes = std::size_t{512} << 20;

std::atomic<int> g_override{-1};

// Events created here, destroyed however the benchmark ends.
struct Events {
  const CudaDriver* d;
  std::vector<CUevent> ev;
  ~Events() {
    for (CUevent e : ev) d->cuEventDestroy(e);
  }
  CUevent make() {
    CUevent e = nullptr;
    if (d->cuEventCreate(&e, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return nullptr;
    ev.push_back(e);
    return e;
  }
};

}  // namespace

int benchmark_top_k() {
  const int o = g_override.load(std::memory_order_relaxed);
  return o >= 0 ? o : host::config().benchmark_top_k;
}

void set_benchmark_top_k(int k) { g_override.store(k < 0 ? -1 : std::min(k, host::kMaxBenchmarkTopK)); }

std::optional<std::size_t> fastest_plan(const CudaDriver* d, CUcontext ctx, const DeviceInfo& dev,
                                        const GemmCall& call, const std::vector<Plan>& plans) {
  if (plans.empty() || !d->cuStreamIsCapturing || !d->cuEventCreate || !d->cuEventRecord ||
      !d->cuEventSynchronize || !d->cuEventElapsedTime || !d->cuEventDestroy || !d->cuMemAllocAsync ||
      !d->cuMemFreeAsync)
    return std::nullopt;
  const auto stream = static_cast<CUstream>(call.stream);
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d->cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS || capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return std::nullopt;
  // The same product into a scratch C: the caller's C and scalars are not touched.
  const std::size_t bytes = static_cast<std::size_t>(call.m) * call.n * gen::storage_bytes(call.data);
  if (bytes > kMaxScratchBytes) return std::nullopt;
  CUdeviceptr scratch = 0;
  const CUmemoryPool pool = workspace_pool(d);
  if ((pool ? d->cuMemAllocFromPoolAsync(&scratch, bytes, pool, stream) : d->cuMemAllocAsync(&scratch, bytes, stream)) !=
      CUDA_SUCCESS)
    return std::nullopt;
  GemmCall t = call;
  t.c = reinterpret_cast<void*>(scratch);
  t.ldc = call.m;
  t.device_scalars = false;
  t.alpha[0] = 1, t.alpha[1] = 0, t.beta[0] = 0, t.beta[1] = 0;

  Events events{d, {}};
  std::vector<std::pair<CUevent, CUevent>> marks(plans.size(), {nullptr, nullptr});
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (!launch_plan(d, ctx, dev, t, plans[i]).served) continue;  // untimed: first-launch costs
    CUevent start = events.make(), stop = events.make();
    if (!start || !stop || d->cuEventRecord(start, stream) != CUDA_SUCCESS) continue;
    bool ok = true;
    for (int r = 0; r < kReps && ok; ++r) ok = launch_plan(d, ctx, dev, t, plans[i]).served;
    if (ok && d->cuEventRecord(stop, stream) == CUDA_SUCCESS) marks[i] = {start, stop};
  }
  std::optional<std::size_t> best;
  float best_ms = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < plans.size(); ++i) {
    float ms = 0;
    if (!marks[i].second || d->cuEventSynchronize(marks[i].second) != CUDA_SUCCESS ||
        d->cuEventElapsedTime(&ms, marks[i].first, marks[i].second) != CUDA_SUCCESS)
      continue;
    if (ms < best_ms) best_ms = ms, best = i;
  }
  d->cuMemFreeAsync(scratch, stream);
  return best;
}

}  // namespace ptxblas::dispatch
