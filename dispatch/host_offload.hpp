// Host-memory BLAS3 on the GPU: the operands are copied to the configured device (its primary
// context; dense copies in device buffers kept between calls, through pinned staging), the
// routine's adaptor runs on the GPU engine, the written operands are copied back.
// Host outputs change only after everything succeeded, so any failure leaves them untouched and
// the caller can still run the call on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine.hpp"

namespace ptxblas::dispatch {

struct HostOperand {
  void* host;                   // column-major, leading dimension ld
  std::int64_t rows, cols, ld;
  bool written;                 // copied back afterwards
  char triangle = 0;            // 'L' / 'U': only that triangle is written (and copied back)
  bool read = true;             // false: an output the routine does not read (beta == 0), not copied over
};

using HostBody = std::function<void(blas3::Engine&, const std::vector<blas3::MatView>&)>;

// A device for offload exists (driver, device `ordinal`, the calls offload needs); cached.
bool offload_available(int ordinal, std::string& why);

enum class OffloadResult {
  Done,    // the written operands hold the result
  NotRun,  // nothing on the host changed (`why` says what stopped it): run the call elsewhere
  Failed,  // copying a result back failed part-way: report an error, do not retry
};

// Seconds spent in each phase of one offloaded call (for the PTXBLAS_LOG line).
struct OffloadTimes {
  double in = 0;   // device memory and copies to the device
  double run = 0;  // the body, until the device is idle
  double out = 0;  // copies back
  int tiles = 0;   // pieces of a tiled offload (0: the whole call at once; in: the shared operands,
                   // run: the tiles' copies and kernels, pipelined)
};

// Runs body on device copies of `ops` (views in the same order).
OffloadResult offload(int ordinal, gen::DataType t, const std::vector<HostOperand>& ops, const HostBody& body,
                      std::string& why, OffloadTimes* times = nullptr);

}  // namespace ptxblas::dispatch
