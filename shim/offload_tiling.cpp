// ptxblas_set_offload_tiling: a process sets how offloaded host calls are tiled without a
// ptxblas.toml (tests of the tiled path on matrices far smaller than the device).
#include "export.hpp"
#include "offload_tiles.hpp"
#include "ptxblas/ptxblas.h"

PTXBLAS_EXPORT int ptxblas_set_offload_tiling(long long memory_mib, long long tile_mib) {
  ptxblas::dispatch::set_tile_limits(memory_mib, tile_mib);
  return 0;
}
