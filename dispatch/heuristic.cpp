// Simple tile choice until the model lands: the largest catalogued tile that still gives every
// SM a block.
#include "gemm_call.hpp"
#include "tile_catalog.hpp"

namespace ptxblas::dispatch {

gen::KernelConfig choose_config(gen::DataType data, bool scalar_f16, gen::Op op_a, gen::Op op_b,
                                std::int64_t m, std::int64_t n, std::int64_t /*k*/, int multiprocessors) {
  const auto& tiles = gen::tile_catalog(data);
  gen::Tile pick = tiles.back();
  for (const gen::Tile& t : tiles) {
    const std::int64_t blocks = ((m + t.ml - 1) / t.ml) * ((n + t.nl - 1) / t.nl);
    if (blocks >= multiprocessors) {
      pick = t;
      break;
    }
  }
  gen::KernelConfig c;
  c.data = data;
  c.scalar_f16 = scalar_f16;
  c.op_a = op_a;
  c.op_b = op_b;
  return gen::canonical(gen::with_tile(c, pick));
}

}  // namespace ptxblas::dispatch
