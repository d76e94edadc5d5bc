#include "offload_copy.hpp"

#include <algorithm>
#include <cstring>

#include "copy_workers.hpp"
#include "cuda_driver.hpp"

namespace ptxblas::dispatch {
namespace {

// Rows [first, first + count) of column j of a triangle ('L', 'U') or of the whole matrix (0).
struct Rows {
  std::int64_t first, count;
};
Rows rows_of(char triangle, std::int64_t rows, std::int64_t j) {
  if (triangle == 'L') return {j, std::max<std::int64_t>(rows - j, 0)};
  if (triangle == 'U') return {0, std::min(j + 1, rows)};
  return {0, rows};
}

// Columns col0 .. col0 + cols - 1 from src to dst (pitches in bytes; both point at column col0),
// the rows that rows_of gives, on several threads when there is enough to copy.
void copy_columns(unsigned char* dst, std::size_t dpitch, const unsigned char* src, std::size_t spitch,
                  std::int64_t col0, std::int64_t cols, std::int64_t rows, std::size_t es, char triangle) {
  const std::size_t total = static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows) * es;
  const int threads = total >= (std::size_t{4} << 20) ? copy_threads() : 1;
  // Few long columns are cut into pieces so that every thread has some.
  const std::int64_t pieces = cols >= 2 * threads ? 1 : (2 * threads + cols - 1) / cols;
  auto piece = [&](int t) {
    const std::int64_t j = t / pieces, p = t % pieces;
    const Rows r = rows_of(triangle, rows, col0 + j);
    if (r.count <= 0) return;
    const std::int64_t from = r.count * p / pieces, to = r.count * (p + 1) / pieces;
    if (to <= from) return;
    const std::size_t off = static_cast<std::size_t>(r.first + from) * es;
    std::memcpy(dst + static_cast<std::size_t>(j) * dpitch + off, src + static_cast<std::size_t>(j) * spitch + off,
                static_cast<std::size_t>(to - from) * es);
  };
  const std::int64_t tasks = cols * pieces;
  if (threads == 1) {
    for (std::int64_t t = 0; t < tasks; ++t) piece(static_cast<int>(t));
  } else {
    parallel_for(static_cast<int>(tasks), piece);
  }
}

// Columns per staging chunk (0: a single column does not fit; the plain copies are used).
std::int64_t chunk_columns(OffloadDevice& dev, const HostOperand& o, std::size_t es) {
  if (!dev.staging_ready()) return 0;
  return static_cast<std::int64_t>(OffloadDevice::kStagingBytes / (static_cast<std::size_t>(o.rows) * es));
}

}  // namespace

CUDA_MEMCPY2D pitched(bool to_device, void* host, std::size_t hpitch, CUdeviceptr dev, std::size_t dpitch,
                      std::size_t width, std::size_t height) {
  CUDA_MEMCPY2D c{};
  if (to_device) {
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = hpitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = dev, c.dstPitch = dpitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = dev, c.srcPitch = dpitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = host, c.dstPitch = hpitch;
  }
  c.WidthInBytes = width;
  c.Height = height;
  return c;
}

CUresult copy_to_device(OffloadDevice& dev, const HostOperand& o, std::size_t es, DeviceMatrix m, bool wait) {
  const CudaDriver* d = cuda_driver();
  if (o.rows <= 0 || o.cols <= 0) return CUDA_SUCCESS;
  const std::size_t width = static_cast<std::size_t>(o.rows) * es, hpitch = static_cast<std::size_t>(o.ld) * es,
                    dpitch = static_cast<std::size_t>(m.ld) * es;
  const auto* host = static_cast<const unsigned char*>(o.host);
  const std::int64_t per = chunk_columns(dev, o, es);
  if (per == 0) {
    const CUDA_MEMCPY2D c =
        pitched(true, const_cast<unsigned char*>(host), hpitch, m.p, dpitch, width, static_cast<std::size_t>(o.cols));
    return d->cuMemcpy2D(&c);
  }
  int buf = 0;
  for (std::int64_t c0 = 0; c0 < o.cols; c0 += per, buf ^= 1) {
    const std::int64_t n = std::min(per, o.cols - c0);
    if (const CUresult r = d->cuEventSynchronize(dev.event(buf)); r != CUDA_SUCCESS) return r;  // buffer free
    auto* stage = static_cast<unsigned char*>(dev.staging(buf));
    copy_columns(stage, width, host + static_cast<std::size_t>(c0) * hpitch, hpitch, c0, n, o.rows, es, 0);
    const CUDA_MEMCPY2D c =
        pitched(true, stage, width, m.p + static_cast<std::size_t>(c0) * dpitch, dpitch, width, static_cast<std::size_t>(n));
    if (const CUresult r = d->cuMemcpy2DAsync(&c, dev.stream()); r != CUDA_SUCCESS) return r;
    if (const CUresult r = d->cuEventRecord(dev.event(buf), dev.stream()); r != CUDA_SUCCESS) return r;
  }
  if (!wait) return CUDA_SUCCESS;
  for (int i = 0; i < 2; ++i)
    if (const CUresult r = d->cuEventSynchronize(dev.event(i)); r != CUDA_SUCCESS) return r;
  return CUDA_SUCCESS;
}

CUresult copy_to_host(OffloadDevice& dev, const HostOperand& o, std::size_t es, DeviceMatrix m) {
  const CudaDriver* d = cuda_driver();
  if (o.rows <= 0 || o.cols <= 0) return CUDA_SUCCESS;
  const std::size_t width = static_cast<std::size_t>(o.rows) * es, hpitch = static_cast<std::size_t>(o.ld) * es,
                    dpitch = static_cast<std::size_t>(m.ld) * es;
  auto* host = static_cast<unsigned char*>(o.host);
  const std::int64_t per = chunk_columns(dev, o, es);
  if (per == 0) {  // column by column, only the rows that come back
    for (std::int64_t j = 0; j < o.cols; ++j) {
      const Rows r = rows_of(o.triangle, o.rows, j);
      if (r.count <= 0) continue;
      const std::size_t off = static_cast<std::size_t>(r.first) * es;
      const CUDA_MEMCPY2D c = pitched(false, host + static_cast<std::size_t>(j) * hpitch + off, hpitch,
                                      m.p + static_cast<std::size_t>(j) * dpitch + off, dpitch,
                                      static_cast<std::size_t>(r.count) * es, 1);
      if (const CUresult res = d->cuMemcpy2D(&c); res != CUDA_SUCCESS) return res;
    }
    return CUDA_SUCCESS;
  }
  // Chunk i + 1 moves into one buffer while chunk i is unpacked from the other.
  auto issue = [&](std::int64_t c0, int buf) {
    const std::int64_t n = std::min(per, o.cols - c0);
    const CUDA_MEMCPY2D c = pitched(false, dev.staging(buf), width, m.p + static_cast<std::size_t>(c0) * dpitch, dpitch,
                                    width, static_cast<std::size_t>(n));
    CUresult r = d->cuMemcpy2DAsync(&c, dev.stream());
    if (r == CUDA_SUCCESS) r = d->cuEventRecord(dev.event(buf), dev.stream());
    return r;
  };
  if (const CUresult r = issue(0, 0); r != CUDA_SUCCESS) return r;
  int buf = 0;
  for (std::int64_t c0 = 0; c0 < o.cols; c0 += per, buf ^= 1) {
    if (c0 + per < o.cols)
      if (const CUresult r = issue(c0 + per, buf ^ 1); r != CUDA_SUCCESS) return r;
    if (const CUresult r = d->cuEventSynchronize(dev.event(buf)); r != CUDA_SUCCESS) return r;
    copy_columns(host + static_cast<std::size_t>(c0) * hpitch, hpitch, static_cast<const unsigned char*>(dev.staging(buf)),
                 width, c0, std::min(per, o.cols - c0), o.rows, es, o.triangle);
  }
  return CUDA_SUCCESS;
}

}  // namespace ptxblas::dispatch
