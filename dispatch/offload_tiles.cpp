#include "offload_tiles.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

#include "config.hpp"
#include "gpu_engine.hpp"
#include "offload_copy.hpp"
#include "offload_policy.hpp"
#include "offload_session.hpp"

namespace ptxblas::dispatch {
namespace {

// Process overrides of ptxblas.toml's limits, in MiB (negative: none).
std::atomic<std::int64_t> g_memory_mib{-1}, g_tile_mib{-1};

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::size_t bytes_of(const std::vector<HostOperand>& ops, std::size_t es) {
  std::size_t b = 0;
  for (const HostOperand& o : ops) b += device_bytes(o, es);
  return b;
}

std::size_t largest_tile(const std::vector<OffloadTile>& tiles, std::size_t es) {
  std::size_t b = 0;
  for (const OffloadTile& t : tiles) b = std::max(b, bytes_of(t.own, es));
  return b;
}

// The device memory this call may use: the configured amount, else three quarters of the free
// memory and the kept buffers (the rest for the routine's scratch and the application).
std::size_t memory_budget(const TileLimits& lim, const OffloadDevice& dev) {
  if (lim.memory_bytes) return lim.memory_bytes;
  const CudaDriver* d = cuda_driver();
  std::size_t free = 0, total = 0;
  if (!d->cuMemGetInfo || d->cuMemGetInfo(&free, &total) != CUDA_SUCCESS)
    return std::numeric_limits<std::size_t>::max() / 4;  // unknown: allocation failures tell
  return (free + dev.kept_bytes()) / 4 * 3;
}

// Tiles for overlap pay where the kernels take a fair share of the copies' time (policy
// estimates): a k = 512 update of a 16384² C (kernels ~1/16 of the copies) ran 9-17% slower in
// tiles than whole, dsyrk with k = 4096 (~2/5) 1.6x faster (perf notes §78).
bool overlap_pays(double flops, std::size_t bytes) {
  return flops / host::kGpuFlopsPerSecond >= 0.2 * static_cast<double>(bytes) / host::kLinkBytesPerSecond;
}

// The tiles of `work` that fit: its shared operands (twice where the routine makes scratch of
// their size) and two tiles in flight, each twice over (scratch of a tile's size), within
// `budget`; about `tile_bytes` of own operands per tile when set, except where nothing is shared
// (every tile then copies its panels anew: as few tiles as fit). Halves the width from a single
// tile down to the work's narrowest; empty when even that does not fit.
std::vector<OffloadTile> fitting_tiles(const TiledWork& work, std::size_t es, std::size_t budget,
                                       std::size_t tile_bytes) {
  const std::size_t shared = bytes_of(work.shared, es) * (work.shared_scratch ? 2 : 1);
  if (shared >= budget) return {};
  const std::size_t room = (budget - shared) / 4;
  const std::size_t target = tile_bytes && !work.shared.empty() ? std::min(tile_bytes, room) : room;
  std::int64_t width = work.full;
  std::vector<OffloadTile> tiles = work.tiles(width);
  while (largest_tile(tiles, es) > target) {
    const std::int64_t next = std::max(work.min_width, (width / 2 + 31) / 32 * 32);
    if (next >= width) break;
    tiles = work.tiles(width = next);
  }
  if (largest_tile(tiles, es) > room) return {};
  return tiles;
}

// The tiles on the device: shared operands copied once; tile i's own operands into slot i % 2's
// buffers and its body on that slot's stream, then tile i - 1 copied back while it runs.
OffloadResult run_tiles(OffloadDevice& dev, DeviceSession& session, gen::DataType t, const TiledWork& work,
                        const std::vector<OffloadTile>& tiles, std::string& why, OffloadTimes& tm,
                        std::chrono::steady_clock::time_point t0) {
  const CudaDriver* d = cuda_driver();
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
  int copied_back = 0;  // tiles whose results reached the host: from the first one, no retry elsewhere
  auto fail = [&](const std::string& what) {
    why = what;
    return copied_back ? OffloadResult::Failed : OffloadResult::NotRun;
  };
  std::vector<blas3::MatView> shared_views;
  for (const HostOperand& o : work.shared) {
    const std::size_t bytes = device_bytes(o, es);
    const CUdeviceptr p = session.alloc(bytes);
    if (!p) return fail("device memory exhausted");
    const DeviceMatrix m{p, bytes ? device_ld(o) : o.ld};
    if (bytes && o.read && copy_to_device(dev, o, es, m) != CUDA_SUCCESS) return fail("copy to the device failed");
    shared_views.push_back({reinterpret_cast<void*>(p), m.ld});
  }
  const std::size_t owns = tiles.front().own.size();
  std::vector<CUdeviceptr> slot[2];
  std::unique_ptr<blas3::Engine> engine[2];
  for (int s = 0; s < 2; ++s) {
    for (std::size_t j = 0; j < owns; ++j) {
      std::size_t bytes = 0;
      for (const OffloadTile& tile : tiles) bytes = std::max(bytes, device_bytes(tile.own[j], es));
      const CUdeviceptr p = session.alloc(bytes);
      if (!p) return fail("device memory exhausted");
      slot[s].push_back(p);
    }
    if (!(engine[s] = make_gpu_engine(t, dev.tile_stream(s), why))) return fail(why);
  }
  tm.in = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto matrix = [&](std::size_t i, std::size_t j) {
    const HostOperand& o = tiles[i].own[j];
    return DeviceMatrix{slot[i % 2][j], device_bytes(o, es) ? device_ld(o) : o.ld};
  };
  auto copy_back = [&](std::size_t i) {
    if (d->cuEventSynchronize(dev.tile_event(static_cast<int>(i % 2))) != CUDA_SUCCESS) return false;
    for (std::size_t j = 0; j < owns; ++j) {
      const HostOperand& o = tiles[i].own[j];
      if (o.written && device_bytes(o, es) && copy_to_host(dev, o, es, matrix(i, j)) != CUDA_SUCCESS) return false;
    }
    ++copied_back;
    return true;
  };
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const int s = static_cast<int>(i % 2);
    std::vector<blas3::MatView> views = shared_views;
    for (std::size_t j = 0; j < owns; ++j) {
      const HostOperand& o = tiles[i].own[j];
      const DeviceMatrix m = matrix(i, j);
      // Not waiting for the last chunk keeps the copy engine busy while the host goes on; the
      // tile's kernels wait for it on the device.
      if (device_bytes(o, es) && o.read && copy_to_device(dev, o, es, m, false) != CUDA_SUCCESS)
        return fail("copy to the device failed");
      views.push_back({reinterpret_cast<void*>(m.p), m.ld});
    }
    if (d->cuEventRecord(dev.copied_event(s), dev.stream()) != CUDA_SUCCESS ||
        d->cuStreamWaitEvent(dev.tile_stream(s), dev.copied_event(s), 0) != CUDA_SUCCESS)
      return fail("copy to the device failed");
    try {
      tiles[i].body(*engine[s], views);
    } catch (const blas3::EngineError& e) {
      return fail(e.what());
    }
    if (d->cuEventRecord(dev.tile_event(s), dev.tile_stream(s)) != CUDA_SUCCESS) return fail("device execution failed");
    if (i > 0 && !copy_back(i - 1)) return fail("device execution or the copy back failed");
  }
  if (!copy_back(tiles.size() - 1)) return fail("device execution or the copy back failed");
  if (d->cuCtxSynchronize() != CUDA_SUCCESS) return fail("device execution failed");
  session.mark_idle();
  tm.run = seconds_since(t0);
  tm.tiles = static_cast<int>(tiles.size());
  return OffloadResult::Done;
}

HostOperand with_view(const HostOperand& o, std::size_t offset_elems, std::int64_t rows, std::int64_t cols,
                      std::size_t es) {
  if (o.rows == 0 || o.cols == 0) return o;
  HostOperand s = o;
  s.host = static_cast<unsigned char*>(o.host) + offset_elems * es;
  s.rows = rows, s.cols = cols;
  return s;
}

}  // namespace

TileLimits tile_limits() {
  const host::Config& c = host::config();
  const std::int64_t memory = g_memory_mib.load(), tile = g_tile_mib.load();
  return {static_cast<std::size_t>(memory >= 0 ? memory : c.gpu_memory_mib) * kMiB,
          static_cast<std::size_t>(tile >= 0 ? tile : c.gpu_tile_mib) * kMiB};
}

void set_tile_limits(std::int64_t memory_mib, std::int64_t tile_mib) {
  g_memory_mib.store(memory_mib < 0 ? -1 : memory_mib);
  g_tile_mib.store(tile_mib < 0 ? -1 : tile_mib);
}

OffloadResult offload_tiled(int ordinal, gen::DataType t, double flops, const std::vector<HostOperand>& whole,
                            const HostBody& body, const std::vector<TiledWork>& ways, std::string& why,
                            OffloadTimes* times) {
  OffloadTimes local;
  OffloadTimes& tm = times ? *times : local;
  const auto t0 = std::chrono::steady_clock::now();
  OffloadDevice* dev = nullptr;
  const auto session = open_session(ordinal, dev, why);
  if (!session) return OffloadResult::NotRun;
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t));
  const TileLimits lim = tile_limits();
  const std::size_t total = bytes_of(whole, es), budget = memory_budget(lim, *dev);
  const bool fits = 2 * total <= budget;  // the operands and scratch of their size
  if (fits &&
      (lim.tile_bytes == 0 || total <= 2 * lim.tile_bytes || ways.empty() || !overlap_pays(flops, total)))
    return run_whole(*dev, *session, t, whole, body, why, tm, t0);
  if (dev->pipeline_ready()) {
    for (const TiledWork& work : ways) {
      const std::vector<OffloadTile> tiles = fitting_tiles(work, es, budget, lim.tile_bytes);
      if (tiles.size() > 1) return run_tiles(*dev, *session, t, work, tiles, why, tm, t0);
    }
  }
  if (fits) return run_whole(*dev, *session, t, whole, body, why, tm, t0);
  why = "operands of " + std::to_string(total / kMiB) + " MiB do not fit " + std::to_string(budget / kMiB) +
        " MiB of device memory, whole or in tiles";
  return OffloadResult::NotRun;
}

void run_tiles_in_place(blas3::Engine& e, const TiledWork& work, std::int64_t width) {
  std::vector<blas3::MatView> shared;
  for (const HostOperand& o : work.shared) shared.push_back({o.host, o.ld});
  for (const OffloadTile& tile : work.tiles(width)) {
    std::vector<blas3::MatView> views = shared;
    for (const HostOperand& o : tile.own) views.push_back({o.host, o.ld});
    tile.body(e, views);
  }
}

HostOperand column_slice(const HostOperand& o, std::int64_t c0, std::int64_t n, std::size_t es) {
  return with_view(o, static_cast<std::size_t>(c0 * o.ld), o.rows, n, es);
}

HostOperand row_slice(const HostOperand& o, std::int64_t r0, std::int64_t m, std::size_t es) {
  return with_view(o, static_cast<std::size_t>(r0), m, o.cols, es);
}

HostOperand block_slice(const HostOperand& o, std::int64_t r0, std::int64_t c0, std::int64_t m, std::int64_t n,
                        std::size_t es) {
  return with_view(o, static_cast<std::size_t>(r0 + c0 * o.ld), m, n, es);
}

}  // namespace ptxblas::dispatch
