// The epilogue's order of C reads and writes (perf notes §67, §68, §129), read off the generated PTX.
// ptxas keeps every global load after the stores before it, so a load placed after a store waits
// for that store's whole round trip: each column of C must be read before any of it is written,
// and, where a column takes at most 16 registers, the next column read before this one is written.
// The property is checked on the instruction order the generator emits, not on any timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
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

namespace {

// 'L' / 'S' for each global load / store of the wgmma staged store (from its staging barrier to
// the common epilogue's label).
std::string staged_store_accesses(const std::string& ptx) {
  const size_t from = ptx.find("bar.sync 1,"), to = ptx.find("\nL_wg_generic_store:");
  std::istringstream in(ptx.substr(from, to - from));
  std::string line, seq;
  while (std::getline(in, line)) {
    if (line.find("ld.global.") != std::string::npos) seq += 'L';
    if (line.find("st.global.") != std::string::npos) seq += 'S';
  }
  return seq;
}

// Every catalogued wgmma tile in layout a, b: both half types, plain and batched.
std::vector<KernelConfig> wgmma_kernels(Op a, Op b) {
  std::vector<KernelConfig> out;
  for (DataType t : {DataType::F16, DataType::BF16})
    for (const Tile& tile : wgmma_catalog())
      for (bool batched : {false, true}) {
        out.push_back(make(t, a, b, tile));
        out.back().batched = batched;
      }
  return out;
}

// The producer warp's code after its last copy (wgmma_ptx.hpp's after_copies).
std::string after_copies(const std::string& ptx) {
  const size_t from = ptx.find("\nL_wg_copies_issued:"), to = ptx.find("\nL_wg_skip:");
  return from == std::string::npos || to < from ? "" : ptx.substr(from, to - from);
}

}  // namespace

// Each warp writes C in passes of 16-byte stores; the passes go in two groups, each group's
// reads of C all before its first store (perf notes §129), so a warp waits for C twice, not
// once per pass. Every catalogued wgmma tile, plain and batched, both half types.
TEST(EpilogueOrder, WgmmaStagedStoreReadsEachHalfOfCBeforeWritingIt) {
  for (const KernelConfig& c : wgmma_kernels(Op::N, Op::T)) {
    SCOPED_TRACE(kernel_name(c));
    const int passes = c.ns / 16, group = passes / 2;  // 64-row warpgroup tiles: 16 columns a pass
    ASSERT_EQ(c.ms, 64);
    const std::string half = std::string(group, 'L') + std::string(group, 'S');
    EXPECT_EQ(staged_store_accesses(generate_simt_gemm(c, 90).ptx), half + half);
  }
}

// The producer asks C's tile into L2 once its copies are out, only where the staged store will
// read C (beta != 0, not a split-K partial) and the K range fits in the stages, each column of
// the tile once.
TEST(EpilogueOrder, WgmmaProducerAsksCIntoL2UnlessBetaIsZero) {
  for (const Tile& tile : wgmma_catalog()) {
    const KernelConfig c = make(DataType::F16, Op::T, Op::N, tile);
    SCOPED_TRACE(kernel_name(c));
    const std::string code = after_copies(generate_simt_gemm(c, 90).ptx);
    ASSERT_FALSE(code.empty());
    const size_t ask = code.find("cp.async.bulk.prefetch.L2.global");
    ASSERT_NE(ask, std::string::npos) << code;
    EXPECT_NE(code.find("], " + std::to_string(2 * c.ml) + ";"), std::string::npos) << "one column of ml halves";
    EXPECT_NE(code.find("setp.eq.f32 %v_p_pf_skip, %v_beta_re, 0f00000000"), std::string::npos) << code;
    EXPECT_NE(code.find("or.pred %v_p_pf_skip, %v_p_pf_skip, %v_p_split"), std::string::npos) << code;
    EXPECT_LT(code.find("@%v_p_pf_skip bra L_wg_c_asked"), ask) << code;
    // Not past the stages: a deep call's C would wait in L2 through its whole K loop.
    EXPECT_NE(code.find("setp.gt.s32 %v_pf_deep, %v_ksteps, " + std::to_string(c.stages)), std::string::npos) << code;
    EXPECT_LT(code.find("@%v_pf_deep bra L_wg_c_asked"), ask) << code;
    EXPECT_EQ(code.find("bar.warp.sync"), std::string::npos) << "lanes 1-31 must not wait for lane 0";
  }
}

// The staging's bank pattern (kernel_config.cpp): a warp's staging stores, lane (g, q) at byte
// 2 q S + 4 g, hit 32 distinct banks; where the columns are padded, a quarter warp's 16-byte
// read-back loads (lanes 2c, 2c + 1: chunks 0 and 1 of column c) hit 8 distinct bank groups and
// the padding costs no shared memory (it fits in the stages).
TEST(EpilogueOrder, WgmmaStagingIsFreeOfBankConflictsWherePadded) {
  int padded = 0;
  for (DataType t : {DataType::F16, DataType::BF16})
    for (const Tile& tile : wgmma_catalog())
      for (int stages : {2, tile.stages}) {
        Tile s = tile;
        s.stages = stages;
        const KernelConfig c = make(t, Op::N, Op::N, s);
        SCOPED_TRACE(kernel_name(c));
        const int stride = wgmma_staging_column_bytes(c), chunk = wgmma_staging_chunk_bytes(c);
        std::set<int> banks;
        for (int lane = 0; lane < 32; ++lane) banks.insert((2 * (lane % 4) * stride + 4 * (lane / 4)) / 4 % 32);
        EXPECT_EQ(banks.size(), 32u);
        if (chunk == 32) continue;  // the unpadded 20-word stride: six groups a quarter warp
        ++padded;
        const int stage_bytes = (c.ml + c.nl) * c.u * 2 * c.stages;
        EXPECT_EQ(wgmma_barrier_offset(c), stage_bytes);
        for (int quarter = 0; quarter < 4; ++quarter)
          for (int half = 0; half < 2; ++half) {
            std::set<int> groups;
            for (int lane = 8 * quarter; lane < 8 * quarter + 8; ++lane)
              groups.insert(((lane / 2) * stride + (lane % 2) * chunk + 16 * half) / 16 % 8);
            EXPECT_EQ(groups.size(), 8u) << "quarter " << quarter << ", second load " << half;
          }
      }
  EXPECT_GE(padded, 8);  // 64x64, 64x128 s4 and 128x128 of both types at least
}

namespace {

// The tensor-map store's block of the epilogue (wgmma_ptx.hpp): from its branch to its label.
std::string tma_store(const std::string& ptx) {
  const size_t from = ptx.find("bra L_wg_tma_skip;"), to = ptx.find("\nL_wg_tma_skip:");
  return from == std::string::npos || to < from ? "" : ptx.substr(from, to - from);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> split_operands(const std::string& ins) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : ins.substr(ins.find(' ') + 1)) {
    if (ch == ',' || ch == ';') {
      out.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur += ch;
    }
  }
  return out;
}

// Runs straight-line u32 / s32 integer PTX (what address and index set-ups use) on the named
// registers `v`, special registers among them ("%ctaid.x"); false, with a test failure, on
// anything else.
bool run_integer_ptx(const std::vector<std::string>& lines, std::map<std::string, long long>& v) {
  auto val = [&](const std::string& x) {
    if (x == "smem_dyn") return 0LL;
    if (x[0] == '%') return v.at(x);
    return std::stoll(x);
  };
  for (const std::string& ins : lines) {
    const std::vector<std::string> o = split_operands(ins);
    const std::string op = ins.substr(0, ins.find('.'));
    if (op == "and") v[o[0]] = val(o[1]) & val(o[2]);
    else if (op == "shr") v[o[0]] = val(o[1]) >> val(o[2]);
    else if (op == "shl") v[o[0]] = val(o[1]) << val(o[2]);
    else if (op == "xor") v[o[0]] = val(o[1]) ^ val(o[2]);
    else if (op == "add") v[o[0]] = val(o[1]) + val(o[2]);
    else if (op == "sub") v[o[0]] = val(o[1]) - val(o[2]);
    else if (op == "min") v[o[0]] = std::min(val(o[1]), val(o[2]));
    else if (op == "div") v[o[0]] = val(o[1]) / val(o[2]);
    else if (op == "rem") v[o[0]] = val(o[1]) % val(o[2]);
    else if (op == "mul") v[o[0]] = val(o[1]) * val(o[2]);
    else if (op == "mad") v[o[0]] = val(o[1]) * val(o[2]) + val(o[3]);
    else if (op == "mov") v[o[0]] = val(o[1]);
    else {
      ADD_FAILURE() << "not integer straight-line code: " << ins;
      return false;
    }
  }
  return true;
}

}  // namespace

// Where the host made C's tensor map (C 16-byte aligned, ldc and, batched, stride_c multiples of 8
// and entries apart) and the engine's 16-byte pieces stay inside C (m a multiple of 8, or the block
// above row m), the epilogue goes through it: at beta != 0 each warpgroup's leader loads its boxes
// of C (one mbarrier after the stages' ones, arrived on once a warpgroup) and the warps read them
// back with ldmatrix; at beta == 0 C is never read. One stmatrix per 16 columns of a warp's 64-row
// tiles in each variant, the shared writes made visible to the async proxy before the barrier, one
// store a 64-row box, and the shared memory held until the engine read it.
TEST(EpilogueOrder, WgmmaTensorMapStoreWhereTheMapExists) {
  for (const KernelConfig& c : wgmma_kernels(Op::T, Op::N)) {
    const bool batched = c.batched;
    SCOPED_TRACE(kernel_name(c));
    const std::string ptx = generate_simt_gemm(c, 90).ptx;
    const std::string code = tma_store(ptx);
    ASSERT_FALSE(code.empty());
    const std::string head = ptx.substr(0, ptx.find("bra L_wg_tma_skip;"));
    const std::string guard = head.substr(head.rfind("mov.b64 %v_t_bits, %v_gc"));
    EXPECT_EQ(guard.find("beta"), std::string::npos) << "both betas take it: " << guard;
    EXPECT_NE(guard.find("and.b64 %v_t_bits, %v_ldc, 7"), std::string::npos) << guard;
    EXPECT_NE(guard.find("and.b32 %v_t_m, %v_m, 7"), std::string::npos) << guard;
    EXPECT_NE(guard.find("setp.le.or.s32 %v_t_rows_ok, %v_t_m, %v_m, %v_t_rows_ok"), std::string::npos) << guard;
    EXPECT_EQ(guard.find("ld.param.s64 %v_t_sc, [p_stride_c]") != std::string::npos, batched) << guard;
    EXPECT_EQ(guard.find("setp.ge.and.s64 %v_t_ok, %v_t_sc, %v_t_ext") != std::string::npos, batched) << guard;
    EXPECT_EQ(count(code, "ld.global"), 0u);
    EXPECT_EQ(count(code, "st.global"), 0u);
    // The load of C: skipped at beta 0, one box a 64-row tile, on the epilogue's own mbarrier.
    const int warpgroups = (c.threads() - 32) / 128, boxes = c.ms / 64, per_box = 64 * c.ns * 2;
    const std::string cbar = "smem_dyn+" + std::to_string(wgmma_barrier_offset(c) + 16 * c.stages);
    EXPECT_EQ(dynamic_smem_bytes(c), wgmma_barrier_offset(c) + 16 * c.stages + 8);
    EXPECT_NE(ptx.find("mbarrier.init.shared::cta.b64 [%v_bars+" + std::to_string(16 * c.stages) + "], " +
                       std::to_string(warpgroups)),
              std::string::npos);
    const size_t skip_load = code.find("@%v_p_beta_zero bra L_wg_tma_c_read"), read = code.find("\nL_wg_tma_c_read:");
    ASSERT_NE(skip_load, std::string::npos);
    ASSERT_NE(read, std::string::npos);
    const std::string load = code.substr(skip_load, read - skip_load);
    EXPECT_EQ(count(load, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + cbar + "], " +
                              std::to_string(boxes * per_box)),
              1u);
    EXPECT_EQ(count(load, std::string("cp.async.bulk.tensor.") + (batched ? "3d" : "2d") +
                              ".shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
              static_cast<size_t>(boxes));
    EXPECT_NE(load.find("mbarrier.try_wait.parity.shared::cta.b64 %v_t_c_landed, [" + cbar + "], 0"), std::string::npos);
    // Both variants stage every fragment; only the beta != 0 one reads C back and adds it.
    const size_t st = static_cast<size_t>(boxes * c.ns / 16);
    EXPECT_EQ(count(code, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), 2 * st);
    EXPECT_EQ(count(code, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), st);
    const size_t alpha_only = code.find("\nL_wg_tma_alpha_only:");
    ASSERT_NE(alpha_only, std::string::npos);
    EXPECT_LT(code.rfind("ldmatrix"), alpha_only);
    EXPECT_EQ(count(code.substr(alpha_only), "fma.rn.f32"), 0u);
    EXPECT_EQ(count(code.substr(0, alpha_only), "fma.rn.f32 "), 8 * st);
    const std::string store = std::string("cp.async.bulk.tensor.") + (batched ? "3d" : "2d") +
                              ".global.shared::cta.bulk_group [%v_t_map";
    EXPECT_EQ(count(code, store), static_cast<size_t>(boxes));
    const size_t fence = code.find("fence.proxy.async.shared::cta"), last_st = code.rfind("stmatrix");
    ASSERT_NE(fence, std::string::npos);
    EXPECT_LT(last_st, fence);
    EXPECT_LT(fence, code.find("bar.sync 1,", last_st));
    EXPECT_LT(code.find("cp.async.bulk.commit_group"), code.find("cp.async.bulk.wait_group.read 0"));
    EXPECT_LT(code.find("cp.async.bulk.wait_group.read 0"), code.rfind("ret;"));
  }
}

// The staging the stmatrix instructions write is the 64-row box layout the map's 128-byte swizzle
// reads: element (r, j) of a warpgroup's tile at box r / 64, line j (128 bytes), 16-byte chunk
// (r % 64 / 8) ^ (j % 8), each 8-lane phase of a stmatrix in 8 distinct 16-byte bank groups.
// The address set-up is read off the PTX and run here for every warp and lane.
TEST(EpilogueOrder, WgmmaTensorMapStagingIsTheSwizzledBox) {
  for (const Tile& tile : wgmma_catalog()) {
    const KernelConfig c = make(DataType::F16, Op::N, Op::N, tile);
    SCOPED_TRACE(kernel_name(c));
    const std::string code = tma_store(generate_simt_gemm(c, 90).ptx);
    ASSERT_FALSE(code.empty());
    std::istringstream in(code.substr(code.find("\nL_wg_tma_c_read:")));
    std::vector<std::string> setup, stores, cvts, loads;
    for (std::string line; std::getline(in, line);) {
      line.erase(0, line.find_first_not_of(' '));
      if (line.rfind("stmatrix", 0) == 0) stores.push_back(line);
      else if (line.rfind("ldmatrix", 0) == 0) loads.push_back(line);
      else if (line.rfind("cvt.rn.f16x2.f32", 0) == 0) cvts.push_back(line);
      else if (stores.empty() && cvts.empty() && loads.empty() && line.find("%v_t_") != std::string::npos)
        setup.push_back(line);
    }
    ASSERT_EQ(cvts.size(), 4 * stores.size());
    // The beta != 0 variant reads each fragment back from where it then writes it.
    ASSERT_EQ(2 * loads.size(), stores.size());
    for (size_t k = 0; k < loads.size(); ++k) {
      const std::vector<std::string> l = split_operands(loads[k]), w = split_operands(stores[k]);
      EXPECT_EQ(l.back(), w.front()) << loads[k] << " / " << stores[k];
    }
    const int wgs = (c.ml / c.ms) * (c.nl / c.ns), box_bytes = 128 * c.ns;
    std::vector<int> seen(static_cast<size_t>(wgs) * c.ms * c.ns, 0);
    for (int wgi = 0; wgi < wgs; ++wgi)
      for (int w4 = 0; w4 < 4; ++w4) {
        long long adr[32];
        for (int lane = 0; lane < 32; ++lane) {
          std::map<std::string, long long> v{{"%v_lane", lane}, {"%v_w4", w4}, {"%v_wgi", wgi}};
          ASSERT_TRUE(run_integer_ptx(setup, v));
          adr[lane] = v.at("%v_t_adr");
        }
        for (size_t s = 0; s < stores.size(); ++s) {
          const std::string& st = stores[s];
          const long long off = std::stoll(st.substr(st.find('+') + 1));
          for (int f = 0; f < 4; ++f) {
            std::set<long long> groups;
            for (int rr = 0; rr < 8; ++rr) groups.insert((adr[8 * f + rr] + off) / 16 % 8);
            EXPECT_EQ(groups.size(), 8u) << "bank conflict in " << st;
            // Register f holds (hi, lo) = acc(i, j + 1), acc(i, j): fragment row g is lane 4g + q's,
            // columns 2q (lo) and 2q + 1 (hi); .trans writes fragment column rr at lane 8f + rr's address.
            const std::vector<std::string> o = split_operands(cvts[4 * s + f]);
            int i = 0, j = 0;
            ASSERT_EQ(std::sscanf(o[2].c_str(), "%%v_acc_%d_%d_r", &i, &j), 2) << cvts[4 * s + f];
            for (int rr = 0; rr < 8; ++rr)
              for (int g = 0; g < 8; ++g) {
                const int row = 64 * (i / 2) + 16 * w4 + 8 * (i % 2) + g, col = 8 * (j / 2) + rr;
                const long long at = adr[8 * f + rr] + off + 2 * g;
                const long long want = static_cast<long long>(wgi) * (c.ms / 64) * box_bytes + row / 64 * box_bytes +
                                       128LL * col + 16 * ((row % 64 / 8) ^ (col % 8)) + 2 * (row % 8);
                EXPECT_EQ(at, want) << "row " << row << " col " << col << " warp " << w4;
                ++seen[(static_cast<size_t>(wgi) * c.ms + row) * c.ns + col];
              }
          }
        }
      }
    // Every element once in each variant (beta != 0, beta == 0).
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 2), static_cast<long>(seen.size()));
  }
}

// The tensor-map store's leader finds its warpgroup's first row and column afresh (no register
// kept through the stores): the same as the kernel's own block tile (%m0, %n0, after a raster's
// remapping) plus the warpgroup's offset. Both pieces of code are read off the PTX and run here.
TEST(EpilogueOrder, WgmmaTensorMapStoreLeaderWritesItsOwnTile) {
  for (const Tile& tile : wgmma_catalog())
    for (int raster : {0, 2, 8}) {
      KernelConfig c = make(DataType::F16, Op::N, Op::T, tile);
      c.raster = raster;
      SCOPED_TRACE(kernel_name(c));
      const std::string ptx = generate_simt_gemm(c, 90).ptx;
      // The kernel's block tile, then each leader's stretch (from its %tid.x read to its first
      // tensor copy: the load of C, then the store), integer code only.
      std::vector<std::string> start;
      std::vector<std::vector<std::string>> leads;
      std::istringstream in(ptx);
      int part = 0;  // 1: the kernel's block tile; 2: a leader's
      for (std::string line; std::getline(in, line);) {
        line.erase(0, line.find_first_not_of(' '));
        if (line.rfind("mov.u32 %v_bx, %ctaid.x", 0) == 0) part = 1;
        if (line.rfind("mov.u32 %v_t_thr, %tid.x", 0) == 0) {
          part = 2;
          leads.emplace_back();
        }
        if (part == 2 && line.rfind("cp.async.bulk.tensor", 0) == 0) part = 0;
        if (part == 1) start.push_back(line);
        const std::string op = line.substr(0, line.find(' '));
        static const std::set<std::string> integer{"mov.u32", "mov.s32", "and.b32", "shr.u32", "rem.u32",
                                                   "div.u32", "mul.lo.s32", "mul.lo.u32", "mad.lo.s32",
                                                   "mad.lo.u32", "add.s32", "add.u32", "sub.u32", "min.u32"};
        if (part == 2 && integer.count(op) && line.find("p_") == std::string::npos) leads.back().push_back(line);
        if (part == 1 && line.rfind("mul.lo.s32 %v_n0", 0) == 0) part = 0;
      }
      ASSERT_EQ(leads.size(), 2u) << "the load's leader and the store's";
      ASSERT_FALSE(start.empty());
      const int groups_m = c.ml / c.ms;
      for (long long gx : {1, 3, 7})
        for (long long gy : {1, 2, 5})
          for (long long bx = 0; bx < gx; ++bx)
            for (long long by = 0; by < gy; ++by)
              for (int wgi = 0; wgi < (c.threads() - 32) / 128; ++wgi) {
                std::map<std::string, long long> v{{"%ctaid.x", bx}, {"%ctaid.y", by}, {"%nctaid.x", gx},
                                                   {"%nctaid.y", gy}, {"%tid.x", 128 * wgi}};
                ASSERT_TRUE(run_integer_ptx(start, v));
                for (const std::vector<std::string>& lead : leads) {
                  ASSERT_TRUE(run_integer_ptx(lead, v));
                  EXPECT_EQ(v.at("%v_t_row"), v.at("%v_m0") + wgi % groups_m * c.ms);
                  EXPECT_EQ(v.at("%v_t_col"), v.at("%v_n0") + wgi / groups_m * c.ns);
                }
              }
    }
}

// A block without a product (alpha == 0, or no K in its range) skips the main loop but not the
// barriers' set-up: its epilogue loads C through the tensor map on the mbarrier after the stages'
// where beta != 0 (a skip before the set-up made alpha = 0 batches fault on the GPU).
TEST(EpilogueOrder, WgmmaBlocksWithoutAProductStillInitialiseTheBarriers) {
  for (const KernelConfig& c : wgmma_kernels(Op::T, Op::T)) {
    SCOPED_TRACE(kernel_name(c));
    const std::string ptx = generate_simt_gemm(c, 90).ptx;
    const size_t last_init = ptx.rfind("mbarrier.init.shared::cta.b64"), synced = ptx.find("bar.sync 0;", last_init);
    ASSERT_NE(last_init, std::string::npos);
    ASSERT_NE(synced, std::string::npos);
    EXPECT_EQ(count(ptx, "mbarrier.init.shared::cta.b64"), static_cast<size_t>(2 * c.stages + 1));
    for (const char* target : {"bra L_wg_skip;", "bra L_epilogue;"})
      for (size_t at = ptx.find(target); at != std::string::npos; at = ptx.find(target, at + 1))
        EXPECT_GT(at, synced) << target;
  }
}

// Several entries a block (batch_tiles, perf notes §134): the producer's copies run on into the
// next entry; the consumers start each entry without adding to the accumulators (scale-d false on
// its first wgmma), hand the last K-step's stage back, wait for C's e-th load on parity e % 2,
// stage C in a region of their own after the stages, and before staging again wait for their last
// stores' reads of it; no consumer path ends before the last entry, whose end waits for those
// reads; a block without a product zeroes its accumulators again between entries.
TEST(EpilogueOrder, WgmmaEntriesOfABlockKeepTheirStagingApartAndInOrder) {
  for (const KernelConfig& plain : wgmma_kernels(Op::N, Op::T)) {
    KernelConfig c = plain;
    c.batched = true;
    c.batch_tiles = 4;
    if (!why_illegal(c).empty()) continue;  // 128x256: its staging does not fit
    SCOPED_TRACE(kernel_name(c));
    const std::string ptx = generate_simt_gemm(c, 90).ptx;
    EXPECT_EQ(count(ptx, "bra L_wg_produce_entry;"), 1u);
    EXPECT_EQ(count(ptx, "bra L_wg_entry;"), 1u);
    const size_t entry = ptx.find("\nL_wg_entry:"), first_mma = ptx.find("wgmma.mma_async", entry);
    ASSERT_NE(entry, std::string::npos);
    EXPECT_NE(ptx.substr(first_mma, ptx.find('\n', first_mma) - first_mma).find("%v_p_acc"), std::string::npos);
    // The TMA path, from its alignment test to its end: no return in it, the wait before staging.
    const size_t tma = ptx.find("bra L_wg_tma_skip;"), tma_end = ptx.find("\nL_wg_tma_skip:");
    ASSERT_NE(tma, std::string::npos);
    ASSERT_NE(tma_end, std::string::npos);
    const std::string path = ptx.substr(tma, tma_end - tma);
    EXPECT_EQ(path.find("ret;"), std::string::npos);
    EXPECT_LT(path.find("cp.async.bulk.wait_group.read 0;"), path.find("bar.sync 1,"));
    EXPECT_NE(path.find("%v_t_c_landed, [smem_dyn+" + std::to_string(wgmma_barrier_offset(c) + 16 * c.stages) +
                        "], %v_t_c_parity;"),
              std::string::npos);
    // The staging's offset: the leader's boxes (its load of C, its store) and the warps' address.
    EXPECT_EQ(count(path, ", " + std::to_string(wgmma_tma_staging_offset(c)) + ";"), 3u);
    EXPECT_GE(wgmma_tma_staging_offset(c), (c.ml + c.nl) * c.u * 2 * c.stages);
    const size_t done = ptx.find("\nL_wg_entries_done:");
    ASSERT_NE(done, std::string::npos);
    EXPECT_LT(ptx.find("cp.async.bulk.wait_group.read 0;", done), ptx.find("ret;", done));
    // Without a product the next entry starts from zeroed accumulators (the last entry's alpha acc
    // + beta C were staged in place: 0 * inf would carry a non-finite C on).
    const size_t skip = ptx.find("@!%v_p_skip bra L_wg_entry;"), to_epilogue = ptx.find("bra L_epilogue;", skip);
    ASSERT_NE(skip, std::string::npos);
    ASSERT_NE(to_epilogue, std::string::npos);
    EXPECT_EQ(count(ptx.substr(skip, to_epilogue - skip), ", 0f00000000;"), static_cast<size_t>(c.ms / 32 * (c.ns / 4)));
  }
}
