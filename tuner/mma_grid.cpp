#include "mma_grid.hpp"

#include <algorithm>

#include "resources.hpp"

namespace ptxblas::tuner {

std::vector<gen::Tile> legal_mma_tiles(gen::DataType t, gen::Op op_a, gen::Op op_b) {
  std::vector<gen::Tile> out;
  if (!gen::mma_supported(t)) return out;
  for (int ml : {16, 32, 64, 128})
    for (int nl : {16, 32, 64, 128})
      for (int u : {4, 8, 16, 32})
        for (int ms : {8, 16, 32, 64})
          for (int ns : {8, 16, 32})
            for (int pad = 0; pad < 2; ++pad)
              for (int stages = 1; stages <= 2; ++stages) {
                const gen::Tile tile{ml, nl, u, ms, ns, 1, gen::Family::Mma, pad == 1, stages};
                gen::KernelConfig c;
                c.data = t;
                c.op_a = op_a;
                c.op_b = op_b;
                if (gen::why_illegal(gen::with_tile(c, tile)).empty()) out.push_back(tile);
              }
  return out;
}

std::vector<gen::Tile> mma_tiles_legal_for_all_layouts(gen::DataType t) {
  std::vector<gen::Tile> out = legal_mma_tiles(t, gen::Op::N, gen::Op::N);
  auto same = [](const gen::Tile& x, const gen::Tile& y) {
    return x.ml == y.ml && x.nl == y.nl && x.u == y.u && x.ms == y.ms && x.ns == y.ns && x.store_pad == y.store_pad &&
           x.stages == y.stages;
  };
  for (auto [a, b] : {std::pair{gen::Op::N, gen::Op::T}, {gen::Op::T, gen::Op::N}, {gen::Op::T, gen::Op::T}}) {
    const std::vector<gen::Tile> other = legal_mma_tiles(t, a, b);
    std::erase_if(out, [&](const gen::Tile& x) {
      return std::none_of(other.begin(), other.end(), [&](const gen::Tile& y) { return same(x, y); });
    });
  }
  return out;
}

}  // namespace ptxblas::tuner
