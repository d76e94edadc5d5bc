// The plan of a strided-batch call (GemmCall::batch > 1): one catalogued tile for every entry, K
// unsplit (grid z holds the entries). The model and the single-call rules weigh one GEMM's grid,
// not a batch of them, so the tile is chosen here by a cost over the whole batch (or, for wgmma
// batches up to 512 deep, by rules the H200 sweeps fitted), and for a wgmma batch how many
// entries each block runs (KernelConfig::batch_tiles).
#pragma once

#include "gemm_call.hpp"

namespace ptxblas::dispatch {

// `wgmma`: the call fits the wgmma family (wgmma_fits); else the type's catalogue.
Plan plan_batched(const GemmCall& call, bool wgmma, int multiprocessors);

}  // namespace ptxblas::dispatch
