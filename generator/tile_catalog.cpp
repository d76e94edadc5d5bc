#include "tile_catalog.hpp"

namespace ptxblas::gen {

const std::vector<Tile>& tile_catalog(DataType t) {
  // Wider elements get smaller thread tiles so accumulators stay well inside the register file.
  static const std::vector<Tile> f32_like = {
      {128, 128, 8, 8, 8, 4}, {64, 64, 8, 4, 4, 4}, {32, 32, 8, 2, 2, 2}};
  static const std::vector<Tile> f64 = {{128, 64, 8, 8, 4, 2}, {64, 64, 8, 4, 4, 2}, {32, 32, 8, 2, 2, 2}};
  static const std::vector<Tile> c32 = {{64, 64, 8, 4, 4, 2}, {64, 32, 8, 4, 2, 2}, {32, 32, 8, 2, 2, 2}};
  static const std::vector<Tile> c64 = {{64, 64, 4, 4, 4, 1}, {64, 32, 8, 2, 4, 1}, {32, 32, 8, 2, 2, 1}};
  switch (t) {
    case DataType::F64: return f64;
    case DataType::C32: return c32;
    case DataType::C64: return c64;
    default: return f32_like;
  }
}

KernelConfig with_tile(KernelConfig c, const Tile& t) {
  c.ml = t.ml;
  c.nl = t.nl;
  c.u = t.u;
  c.ms = t.ms;
  c.ns = t.ns;
  c.vec = t.vec;
  return c;
}

}  // namespace ptxblas::gen
