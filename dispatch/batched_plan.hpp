// The plan of a strided-batch call (GemmCall::batch > 1): one catalogued tile for every entry, K
// unsplit (grid z holds the entries). The model and the single-call rules weigh one GEMM's grid,
// not a batch of them, so the tile is chosen here by a cost over the whole batch (rated tiles,
// gen::batched_tiles, for f32 and f64; for wgmma batches up to 512 deep, rules the H200 sweeps
// fitted; the catalogue's cost model otherwise), and for a wgmma batch how many entries each
// block runs (KernelConfig::batch_tiles).
#pragma once

#include "gemm_call.hpp"

namespace ptxblas::dispatch {

// `wgmma`: the call fits the wgmma family (wgmma_fits); else the type's catalogue. The plan
// depends on the call only through its problem, scalar_f16, batch, `wgmma` and batch_reads_c.
Plan plan_batched(const GemmCall& call, bool wgmma, int multiprocessors);

// Whether the epilogue may read C: beta != 0, or beta on the device (not known when planning).
bool batch_reads_c(const GemmCall& call);

}  // namespace ptxblas::dispatch
