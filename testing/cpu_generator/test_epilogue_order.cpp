// The epilogue's order of C reads and writes (perf notes §67, §68), read off the generated PTX.
// ptxas keeps every global load after the stores before it, so a load placed after a store waits
// for that store's whole round trip: each column of C must be read before any of it is written,
// and, where a column takes at most 16 registers, the next column read before this one is written.
// The property is checked on the instruction order the generator emits, not on any timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_config.hpp"
#include "simt_gemm_ptx.hpp"
#include "tile_catalog.hpp"

using namespace ptxblas::gen;

namespace {

// 'L' for each global load and 'S' for each global store of the beta != 0 epilogue: from the end
// of C's L2 prefetch to the first return after it.
std::string epilogue_accesses(const std::string& ptx) {
  std::istringstream in(ptx.substr(ptx.find("\nL_c_prefetched:")));
  std::string line, seq;
  while (std::getline(in, line) && line.find("ret;") == std::string::npos) {
    if (line.find("ld.global.") != std::string::npos) seq += 'L';
    if (line.find("st.global.") != std::string::npos) seq += 'S';
  }
  return seq;
}

struct Case {
  const char* what;
  KernelConfig config;
  int rows, cols;  // the thread's accumulators: elements per column, columns
  bool ahead;      // the next column is read before this one is written
};

// A kernel of type t and layout a, b with tile `tile` (the generator's own Tile).
KernelConfig make(DataType t, Op a, Op b, const Tile& tile) {
  KernelConfig c;
  c.data = t;
  c.op_a = a;
  c.op_b = b;
  return with_tile(c, tile);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  // D mma 64x32 warp tiles: 8 rows of f64 (16 registers) per column, 8 columns.
  out.push_back({"D mma", make(DataType::F64, Op::N, Op::N, {128, 64, 8, 64, 32, 1, Family::Mma, false, 3}), 8, 8, true});
  // S SIMT 8x8 thread tiles: 8 rows of f32 per column.
  out.push_back({"S simt", make(DataType::F32, Op::N, Op::N, {128, 128, 8, 8, 8, 4, Family::Simt, false, 2}), 8, 8, true});
  // Z mma 64x16 warp tiles: 8 rows of c64 (32 registers) per column: column by column.
  out.push_back({"Z mma", make(DataType::C64, Op::N, Op::T, {64, 64, 8, 64, 16, 1, Family::Mma, false, 3}), 8, 4, false});
  // C SIMT 4x4 thread tiles: 4 rows of c32 (8 registers).
  out.push_back({"C simt", make(DataType::C32, Op::N, Op::T, {64, 64, 8, 4, 4, 2, Family::Simt, false, 2}), 4, 4, true});
  Case fill = out[3];
  fill.what = "C simt, triangular fill";
  fill.config.fill = true;
  out.push_back(fill);
  Case oop = out[0];
  oop.what = "D mma, out of place";
  oop.config.out_of_place = true;
  out.push_back(oop);
  return out;
}

}  // namespace

TEST(EpilogueOrder, EachColumnOfCIsReadBeforeItIsWritten) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.what);
    const std::string seq = epilogue_accesses(generate_simt_gemm(c.config, 90).ptx);
    ASSERT_EQ(seq.size(), static_cast<size_t>(2 * c.rows * c.cols)) << seq;
    int loads = 0, stores = 0;
    for (char x : seq) {
      if (x == 'L') {
        ++loads;
        continue;
      }
      // At the first store of column j, exactly columns 0..j have been read (0..j+1 when reading
      // ahead): fewer, and a load waits behind a store; more, and registers run out.
      if (stores % c.rows == 0) {
        const int column = stores / c.rows;
        const int read = std::min(c.cols, column + (c.ahead ? 2 : 1));
        EXPECT_EQ(loads, read * c.rows) << "at column " << column << ": " << seq;
      }
      ++stores;
    }
  }
}
