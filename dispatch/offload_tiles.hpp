// Offloaded calls in tiles: a routine's output cut into pieces that are computed independently
// (column strips of C, row strips, or blocks), each copied in, run and copied back on one of two
// streams, so that one tile's copies overlap the other's kernels; and a call whose operands do
// not fit the device memory an offload may use runs in pieces that do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "host_offload.hpp"

namespace ptxblas::dispatch {

// One piece: the operands only it uses (slices of the caller's matrices: its part of C, the
// panels of A or B it reads) and the step that computes it. The body receives the views of the
// work's shared operands, then those of its own, in order. Every tile of a work has the same
// number of own operands (an empty slice, 0 rows, where a tile has none).
struct OffloadTile {
  std::vector<HostOperand> own;
  HostBody body;
};

// One way to cut a call: the operands every tile reads (copied once and kept), and the tiles for
// a width w (the routine's unit: columns or rows of C, or the side of square blocks of C).
struct TiledWork {
  std::vector<HostOperand> shared;
  std::int64_t full = 0;       // the width that gives a single tile
  std::int64_t min_width = 1;  // the narrowest tile worth running
  std::function<std::vector<OffloadTile>(std::int64_t width)> tiles;
  bool shared_scratch = false;  // the routine makes scratch the size of the shared operands
                                // (SYMM's symmetrised A, TRMM's materialised triangle)
};

// How far an offloaded call may be cut: the device memory it may use (0: three quarters of what
// is free, kept buffers included) and the operand bytes per tile that pipelining aims at (0: no
// tiles while the whole call fits). From ptxblas.toml's gpu.memory_mib and gpu.tile_mib, unless a
// process set others (ptxblas_set_offload_tiling).
struct TileLimits {
  std::size_t memory_bytes = 0;
  std::size_t tile_bytes = 0;
};
TileLimits tile_limits();
// Overrides ptxblas.toml's limits for the process; a negative value returns to ptxblas.toml's.
void set_tile_limits(std::int64_t memory_mib, std::int64_t tile_mib);

// The call (`flops` of arithmetic) on the GPU: whole (offload()) when its operands fit the device
// memory and are no more than two tiles' worth, or its kernels would hide little of the copies,
// else through the first way whose tiles fit, pipelined. A failure before any tile was copied
// back leaves the host untouched (NotRun); after, Failed.
OffloadResult offload_tiled(int ordinal, gen::DataType t, double flops, const std::vector<HostOperand>& whole,
                            const HostBody& body, const std::vector<TiledWork>& ways, std::string& why,
                            OffloadTimes* times = nullptr);

// The tiles of `work` for `width` run on an engine over host memory (the CPU engine), in place:
// the tiles' arithmetic checked without a device.
void run_tiles_in_place(blas3::Engine& e, const TiledWork& work, std::int64_t width);

// Slices of a host operand: columns [c0, c0 + n), rows [r0, r0 + m), or the m x n block at (r0, c0).
// An operand that is not copied (0 x 0: unread) stays as it is.
HostOperand column_slice(const HostOperand& o, std::int64_t c0, std::int64_t n, std::size_t es);
HostOperand row_slice(const HostOperand& o, std::int64_t r0, std::int64_t m, std::size_t es);
HostOperand block_slice(const HostOperand& o, std::int64_t r0, std::int64_t c0, std::int64_t m, std::int64_t n,
                        std::size_t es);

}  // namespace ptxblas::dispatch
