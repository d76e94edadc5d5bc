// A few threads kept for the host side of offload copies: one thread packs pageable memory at
// ~8 GB/s on the H100 machine, 4-16 threads at 29-38 GB/s, against 53 GB/s of pinned DMA
// (DESIGN.md). Persistent because a chunk takes about a millisecond, as long as creating 16
// threads would.
#pragma once

#include <functional>

namespace ptxblas::dispatch {

// Runs fn(0) ... fn(tasks - 1) on up to the pool's threads plus the caller; returns when all
// are done. Calls from several threads at once take turns.
void parallel_for(int tasks, const std::function<void(int)>& fn);

// Threads parallel_for uses (the caller included): min(8, hardware threads).
int copy_threads();

}  // namespace ptxblas::dispatch
