// Copies between a host matrix (column-major, any leading dimension, pageable memory) and its
// dense device copy. Through the device's two pinned staging buffers when it has them: the host
// side packs (or unpacks) one chunk of columns on several threads while the DMA engine moves the
// other, ~5x the driver's own pageable copies on the H100 machine (6.3 / 11.7 GB/s there).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "host_offload.hpp"
#include "offload_device.hpp"

namespace ptxblas::dispatch {

struct DeviceMatrix {
  CUdeviceptr p;
  std::int64_t ld;  // in elements
};

// A copy of `height` rows of `width` bytes between host memory (pitch hpitch) and device memory
// (pitch dpitch), for cuMemcpy2D / cuMemcpy2DAsync.
CUDA_MEMCPY2D pitched(bool to_device, void* host, std::size_t hpitch, CUdeviceptr dev, std::size_t dpitch,
                      std::size_t width, std::size_t height);

// The o.rows x o.cols matrix to the device; `es`: bytes per element. Returns once the device
// copy is complete, or with `wait` false once the host memory has been read (the last staged
// chunk may still be moving on dev.stream(): work on other streams waits for an event recorded
// there; the host side of the next copy waits for its staging buffer as always).
CUresult copy_to_device(OffloadDevice& dev, const HostOperand& o, std::size_t es, DeviceMatrix m, bool wait = true);

// Back to the host: the whole matrix, or for o.triangle only that triangle (the other may belong
// to another host thread, as for the reference BLAS). Never touches the rows between o.rows and
// o.ld.
CUresult copy_to_host(OffloadDevice& dev, const HostOperand& o, std::size_t es, DeviceMatrix m);

}  // namespace ptxblas::dispatch
