// ptxblas_force_tile: benchmarks (ptxblas-bench's oracle column) run one tile on the calling
// thread's GEMMs instead of the dispatcher's pick.
#include <cstdio>
#include <cstring>

#include "export.hpp"
#include "gemm_call.hpp"
#include "ptxblas/ptxblas.h"

PTXBLAS_EXPORT int ptxblas_force_tile(const char* spec) {
  using ptxblas::dispatch::ForcedTile;
  if (!spec || !*spec) {
    ptxblas::dispatch::force_tile(std::nullopt);
    return 0;
  }
  char family[8] = {};
  ForcedTile t{};
  // "family ml nl u ms ns vec [kg [store_pad [stages [kl [raster [ks [batch_tiles [unbounded]]]]]]]]"
  // (raster -1 or absent: the launcher's rule; batch_tiles: entries a block of a strided wgmma
  // batch; unbounded 1: SIMT cp.async copies unbounded inside the matrix, as dispatch's f32
  // vector-stage forms may run them)
  int kg = 1, store_pad = 0, stages = 1, kl = 1, raster = -1, ks = 1, batch_tiles = 1, unbounded = 0;
  const int got = std::sscanf(spec, "%7s %d %d %d %d %d %d %d %d %d %d %d %d %d %d", family, &t.tile.ml, &t.tile.nl,
                              &t.tile.u, &t.tile.ms, &t.tile.ns, &t.tile.vec, &kg, &store_pad, &stages, &kl, &raster,
                              &ks, &batch_tiles, &unbounded);
  if (got < 7 || kg < 1 || (store_pad != 0 && store_pad != 1) || raster < -1 || batch_tiles < 1 ||
      (unbounded != 0 && unbounded != 1))
    return -1;
  t.batch_tiles = batch_tiles;
  t.unbounded = unbounded == 1;
  if (raster >= 0) t.raster = raster;
  t.tile.store_pad = store_pad == 1;
  t.tile.stages = stages;
  t.tile.kl = kl;
  t.tile.ks = ks;
  if (!std::strcmp(family, "mma"))
    t.tile.family = ptxblas::gen::Family::Mma;
  else if (!std::strcmp(family, "wgmma"))
    t.tile.family = ptxblas::gen::Family::Wgmma;
  else if (std::strcmp(family, "simt"))
    return -1;
  t.kg = kg;
  ptxblas::dispatch::force_tile(t);
  return 0;
}
