// Every catalogued tile x data type x op combination, assembled for sm_80 and sm_90, its
// triangular-output and atomic split-K variants in one layout, the narrow tiles in every layout, and a fixed random
// sample of the mma grid (tuner/mma_grid) with random layouts for sm_90.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "kernel_abi.hpp"
#include "mma_grid.hpp"
#include "ptxas_runner.hpp"
#include "resources.hpp"
#include "simt_gemm_ptx.hpp"
#include "load_plan.hpp"
#include "tile_catalog.hpp"

using namespace ptxblas::gen;

namespace {

struct Variant {
  KernelConfig config;
  int sm;
  bool sampled = false;  // from the mma grid, not the catalog
};

std::vector<Variant> all_families() {
  std::vector<Variant> out;
  struct TypeVariant {
    DataType data;
    bool f16_scalars;
  };
  const TypeVariant types[] = {{DataType::F32, false}, {DataType::F64, false}, {DataType::C32, false},
                               {DataType::C64, false}, {DataType::F16, false}, {DataType::F16, true},
                               {DataType::BF16, false}};
  for (const auto& tv : types) {
    const std::vector<Op> ops = is_complex(tv.data) ? std::vector<Op>{Op::N, Op::T, Op::C}
                                                    : std::vector<Op>{Op::N, Op::T};
    for (const Tile& t : tile_catalog(tv.data))
      for (Op a : ops)
        for (Op b : ops)
          for (int sm : {80, 90}) {
            KernelConfig c;
            c.data = tv.data;
            c.scalar_f16 = tv.f16_scalars;
            c.op_a = a;
            c.op_b = b;
            out.push_back({with_tile(c, t), sm});
          }
    // The tile `t` of this type in one layout.
    const auto in_layout = [&](const Tile& t, Op a, Op b) {
      KernelConfig c;
      c.data = tv.data;
      c.scalar_f16 = tv.f16_scalars;
      c.op_a = a;
      c.op_b = b;
      return with_tile(c, t);
    };
    // The triangular-output variant (SYRK-type launches) of every catalogued tile, one layout.
    for (const Tile& t : tile_catalog(tv.data)) {
      KernelConfig c = in_layout(t, Op::N, Op::T);
      c.fill = true;
      out.push_back({c, 90});
    }
    // The atomic split-K variant (KernelConfig::atomic_add) of every catalogued tile of the types
    // that have one, with three cp.async stages where those are legal (dispatch lowers to them).
    if (storage_bytes(tv.data) >= 4) {
      for (const Tile& t : tile_catalog(tv.data)) {
        KernelConfig c = in_layout(t, Op::T, Op::N);
        c.atomic_add = true;
        out.push_back({c, 90});
        c.stages = 3;
        if (why_illegal(c, Limits{}).empty()) out.push_back({c, 90, true});
      }
    }
    // The triangular-operand variants (TRMM) of every catalogued tile of the level-3 types.
    if (storage_bytes(tv.data) >= 4) {
      for (const Tile& t : tile_catalog(tv.data))
        for (int band = ptxblas::gen::kBandALower; band <= ptxblas::gen::kBandBUpper; ++band) {
          KernelConfig c;
          c.data = tv.data;
          c = with_tile(c, t);
          c.band = band;
          out.push_back({c, 90});
        }
    }
  }
  // The wgmma tiles (sm_90a only) in every layout.
  for (const auto& tv : types) {
    if (storage_bytes(tv.data) != 2) continue;
    for (const Tile& t : wgmma_catalog())
      for (Op a : {Op::N, Op::T})
        for (Op b : {Op::N, Op::T}) {
          KernelConfig c;
          c.data = tv.data;
          c.scalar_f16 = tv.f16_scalars;
          c.op_a = a;
          c.op_b = b;
          out.push_back({with_tile(c, t), 90});
          if (a != b) continue;
          c.raster = 8;  // dispatch rasterizes wgmma grids too (not in the occupancy table)
          out.push_back({with_tile(c, t), 90, true});
        }
  }
  // cp.async stages (3 and 4) of every catalogued tile of the 4-byte and wider types, two layouts.
  for (const auto& tv : types) {
    if (storage_bytes(tv.data) < 4) continue;
    for (const Tile& t : tile_catalog(tv.data))
      for (int stages : {3, 4}) {
        KernelConfig c = with_tile(KernelConfig{}, t);
        c.data = tv.data;
        c.stages = stages;
        c.op_a = stages == 3 ? Op::N : Op::T;
        c.op_b = is_complex(tv.data) && stages == 4 ? Op::C : stages == 3 ? Op::T : Op::N;
        if (why_illegal(c, Limits{}).empty()) out.push_back({c, 90, true});
      }
  }
  // Variants of every catalogued tile where legal, one layout per variant and tile (alternating;
  // `flip` swaps N and T), as catalogued and with three cp.async stages where the type has them.
  const auto catalogue_variants = [&](const std::vector<std::function<void(KernelConfig&)>>& variants, bool flip) {
    for (const auto& tv : types) {
      if (tv.f16_scalars) continue;
      int i = 0;
      for (const Tile& t : tile_catalog(tv.data))
        for (const auto& variant : variants) {
          KernelConfig c = with_tile(KernelConfig{}, t);
          c.data = tv.data;
          variant(c);
          c.op_a = (i % 2 != 0) != flip ? Op::T : Op::N;
          c.op_b = (i++ % 3 != 0) != flip ? Op::N : Op::T;
          if (why_illegal(c, Limits{}).empty()) out.push_back({c, 90, true});
          c.stages = 3;
          if (why_illegal(c, Limits{}).empty()) out.push_back({c, 90, true});
        }
    }
  };
  // KL (K split over 2 or 4 groups of threads or warps): the sums reuse the cp.async stages'
  // dynamic memory, or a static array of their own.
  catalogue_variants({[](KernelConfig& c) { c.kl = 2; }, [](KernelConfig& c) { c.kl = 4; }}, false);
  // Fused split-K (the last slice of a tile finishes C).
  catalogue_variants({[](KernelConfig& c) { c.fused_split = true; }}, true);
  // KS (accumulator sets per thread: more registers, as predicted).
  catalogue_variants({[](KernelConfig& c) { c.ks = 2; }, [](KernelConfig& c) { c.ks = 4; }}, true);
  // Block rasterization (its index arithmetic before the tile's first row and column).
  catalogue_variants({[](KernelConfig& c) { c.raster = 8; }}, false);
  // Clamped edges (§151: the set-up's clamp moves the copy pointers' registers; cp.async stages only).
  catalogue_variants({[](KernelConfig& c) { c.clamp_edges = true; }}, true);
  // The narrow tiles (dispatch's plan_narrow) and the skinny ones (plan_skinny, each once
  // whatever the widths it serves), with their mirrors, in every layout dispatch runs them in (by
  // how the long operand is stored), sm_90; the occupancy table holds them too.
  auto every_layout = [&](const auto& tile_of) {
    for (const auto& tv : types) {
      const std::vector<Op> ops = is_complex(tv.data) ? std::vector<Op>{Op::N, Op::T, Op::C}
                                                      : std::vector<Op>{Op::N, Op::T};
      for (bool narrow_n : {true, false})
        for (Op a : ops)
          for (Op b : ops) {
            const Tile* t = tile_of(tv.data, narrow_n ? a != Op::N : b == Op::N);
            if (!t || (!narrow_n && t->ml == t->nl && t->ms == t->ns)) continue;  // a square tile mirrors to itself
            KernelConfig c;
            c.data = tv.data;
            c.op_a = a;
            c.op_b = b;
            c = with_tile(c, narrow_n ? *t : mirrored(*t));
            if (why_illegal(c, Limits{}).empty()) out.push_back({c, 90});
          }
    }
  };
  for (int width : {16, 32})
    every_layout([width](DataType d, bool k_contiguous) { return narrow_tile(d, k_contiguous, width); });
  for (int width : {32, 64, 96, 128})
    every_layout([width](DataType d, bool) {
      const Tile* t = skinny_tile(d, width);
      return width > 32 && t == skinny_tile(d, width - 32) ? nullptr : t;  // each tile once
    });
  every_layout([](DataType d, bool) { return skinny_nt_tile(d, 112); });
  // The grid's edges are where a register model drifts (large K-steps, thin warp tiles).
  std::mt19937 rng(20261123);
  for (DataType t : {DataType::F64, DataType::C64, DataType::F16, DataType::BF16}) {
    const std::vector<Op> ops = is_complex(t) ? std::vector<Op>{Op::N, Op::T, Op::C} : std::vector<Op>{Op::N, Op::T};
    const std::vector<Tile> grid = ptxblas::tuner::mma_tiles_legal_for_all_layouts(t);
    for (int i = 0; i < 12 && !grid.empty(); ++i) {
      KernelConfig c;
      c.data = t;
      c.op_a = ops[rng() % ops.size()];
      c.op_b = ops[rng() % ops.size()];
      out.push_back({with_tile(c, grid[rng() % grid.size()]), 90, true});
    }
  }
  return out;
}

struct Result {
  std::string name;
  int sm;
  bool sampled;
  bool dynamic_smem;  // wgmma and cp.async stages: all shared memory dynamic, none declared
  Resources predicted;
  PtxasReport report;
};

// Blocks of `threads` one SM holds by registers (allocated 8 per thread at a time) and threads.
int resident_blocks(int registers, int threads) {
  const Limits lim;
  return std::min(lim.regs_per_sm / (((registers + 7) / 8 * 8) * threads), 2048 / threads);
}

// testing/cpu_generator/catalog_occupancy.txt: "<kernel> sm_<sm> <blocks per SM>" per line, as
// ptxas assembled the catalogue when it was last written (PTXBLAS_WRITE_OCCUPANCY=1 rewrites it).
std::string occupancy_file() { return std::string(PTXBLAS_TEST_SOURCE_DIR) + "/catalog_occupancy.txt"; }

std::map<std::string, int> read_occupancy() {
  std::map<std::string, int> out;
  std::ifstream in(occupancy_file());
  std::string name, sm;
  int blocks = 0;
  while (in >> name >> sm >> blocks) out[name + " " + sm] = blocks;
  return out;
}

Result assemble(const Variant& f) {
  const GeneratedKernel k = generate_simt_gemm(f.config, f.sm);
  return {k.name, f.sm, f.sampled, dynamic_smem_bytes(f.config) > 0, k.resources, run_ptxas(k.ptx, f.sm)};
}

}  // namespace

TEST(PtxasFamilies, AssembleAndMatchLegalityModel) {
  const std::vector<Variant> families = all_families();
  // Two ptxas processes at a time: the CI machine has two cores.
  std::vector<Result> results;
  for (size_t i = 0; i < families.size(); i += 2) {
    auto first = std::async(std::launch::async, assemble, families[i]);
    if (i + 1 < families.size()) results.push_back(assemble(families[i + 1]));
    results.push_back(first.get());
  }
  int worst_gap = 0;
  for (const Result& r : results) {
    SCOPED_TRACE(r.name + " sm_" + std::to_string(r.sm));
    ASSERT_TRUE(r.report.ok) << r.report.log;
    EXPECT_EQ(r.report.smem_bytes, r.dynamic_smem ? 0 : r.predicted.smem_bytes) << r.report.log;
    // A grid tile predicted beyond ptxas's cap may spill (legal: slow, not wrong); nothing else may.
    if (!r.sampled || r.predicted.regs_predicted <= Limits{}.max_regs_per_thread) {
      EXPECT_EQ(r.report.spill_bytes, 0) << r.report.log;
      EXPECT_EQ(r.report.stack_bytes, 0) << r.report.log;
    }
    // ptxas stops at its cap: a prediction above it is met by a kernel at the cap.
    const int gap = r.report.registers - std::min(r.predicted.regs_predicted, Limits{}.max_regs_per_thread);
    EXPECT_LE(std::abs(gap), register_margin(r.predicted))
        << "ptxas " << r.report.registers << " registers, predicted " << r.predicted.regs_predicted;
    worst_gap = std::max(worst_gap, std::abs(gap));
  }
  std::printf("assembled %zu kernels; worst register gap %d\n", results.size(), worst_gap);

  // Blocks per SM of the catalogue's kernels as ptxas assembles them, against the committed table:
  // one register more can halve a kernel's occupancy (perf notes §21) while staying well inside
  // the legality model's margin. A change here is a performance change to look at on the GPU.
  std::ostringstream table;
  const std::map<std::string, int> known = read_occupancy();
  const bool rewrite = std::getenv("PTXBLAS_WRITE_OCCUPANCY") != nullptr;
  for (const Result& r : results) {
    if (r.sampled || !r.report.ok) continue;
    const std::string key = r.name + " sm_" + std::to_string(r.sm);
    const int blocks = resident_blocks(r.report.registers, r.predicted.threads);
    table << key << ' ' << blocks << '\n';
    if (rewrite) continue;
    const auto it = known.find(key);
    if (it == known.end())
      ADD_FAILURE() << key << ": not in " << occupancy_file() << " (new kernel? rewrite it with PTXBLAS_WRITE_OCCUPANCY=1)";
    else
      EXPECT_EQ(blocks, it->second) << key << " (" << r.report.registers << " registers) now holds " << blocks
                                    << " blocks per SM, the table says " << it->second
                                    << "; if intended, rewrite it with PTXBLAS_WRITE_OCCUPANCY=1";
  }
  if (rewrite) std::ofstream(occupancy_file()) << table.str();
  if (std::getenv("PTXBLAS_PRINT_REGS"))
    for (const Result& r : results)
      std::printf("%s sm_%d ptxas %d predicted %d\n", r.name.c_str(), r.sm, r.report.registers,
                  r.predicted.regs_predicted);
}

TEST(PtxasFamilies, IllegalConfigurationsAreRefused) {
  KernelConfig c;
  c.ml = 48;  // 48/4 x 64/4 = 192 threads: 48*8 A elements do not split evenly... and 64x8 B do
  c.ms = 4;
  c.nl = 64;
  c.ns = 5;  // does not divide NL
  EXPECT_FALSE(why_illegal(c).empty());
  EXPECT_THROW(generate_simt_gemm(c, 90), std::invalid_argument);
  KernelConfig big;
  big.ml = big.nl = 256;
  big.ms = big.ns = 4;  // 4096 threads
  EXPECT_NE(why_illegal(big).find("threads"), std::string::npos);
  KernelConfig smem;
  smem.data = DataType::C64;
  smem.ml = smem.nl = 256;
  smem.u = 16;
  smem.ms = smem.ns = 16;  // 256 threads, 2 x 16 x 257 x 16 B of shared memory
  EXPECT_NE(why_illegal(smem).find("shared"), std::string::npos);
  KernelConfig sm70;
  EXPECT_THROW(generate_simt_gemm(sm70, 70), std::invalid_argument);
  // wgmma: a legal catalogue tile, then its triangular variant (none exists: the staged
  // epilogue writes whole tiles).
  KernelConfig wg = with_tile(KernelConfig{}, wgmma_catalog().front());
  wg.data = DataType::F16;
  EXPECT_EQ(why_illegal(wg), "");
  wg.fill = true;
  EXPECT_NE(why_illegal(wg).find("triangular"), std::string::npos);
  wg.fill = false;
  wg.band = ptxblas::gen::kBandALower;
  EXPECT_NE(why_illegal(wg).find("triangular-operand"), std::string::npos);
  // A kernel is triangular in its output or in an operand, not both; bands are 1 to 4.
  KernelConfig both = with_tile(KernelConfig{}, tile_catalog(DataType::F32).front());
  both.fill = true;
  both.band = ptxblas::gen::kBandBUpper;
  EXPECT_NE(why_illegal(both), "");
  both.fill = false;
  EXPECT_EQ(why_illegal(both), "");
  both.band = 5;
  EXPECT_NE(why_illegal(both), "");
  // Atomic split-K: not for f16/bf16 (C stored narrower than it is summed), wgmma, or with a fill.
  KernelConfig at = with_tile(KernelConfig{}, tile_catalog(DataType::F64).front());
  at.data = DataType::F64;
  at.atomic_add = true;
  EXPECT_EQ(why_illegal(at), "");
  at.fill = true;
  EXPECT_NE(why_illegal(at).find("atomic"), std::string::npos);
  KernelConfig at16 = with_tile(KernelConfig{}, tile_catalog(DataType::F16).front());
  at16.data = DataType::F16;
  at16.atomic_add = true;
  EXPECT_NE(why_illegal(at16).find("atomic"), std::string::npos);
  // KL: 1, 2 or 4 groups, each a whole number of K rows (mma: of mma steps); not for wgmma.
  KernelConfig kl;  // SIMT 64x64x8 4x4: 256 threads
  kl.kl = 2;
  EXPECT_EQ(why_illegal(kl), "");
  kl.kl = 3;
  EXPECT_NE(why_illegal(kl).find("kl"), std::string::npos);
  kl.kl = 8;
  EXPECT_NE(why_illegal(kl).find("kl"), std::string::npos);
  kl.kl = 4;
  kl.u = 2;  // two K rows over four groups
  EXPECT_NE(why_illegal(kl).find("kl"), std::string::npos);
  KernelConfig kl_mma;
  kl_mma.data = DataType::F64;
  kl_mma.family = Family::Mma;
  kl_mma.ml = kl_mma.nl = 32;
  kl_mma.ms = kl_mma.ns = 16;
  kl_mma.u = 8;  // one m16n8k8 step
  kl_mma.kl = 2;
  EXPECT_NE(why_illegal(kl_mma).find("kl"), std::string::npos);
  kl_mma.u = 16;
  EXPECT_EQ(why_illegal(kl_mma), "");
  wg.band = 0;
  wg.kl = 2;
  EXPECT_NE(why_illegal(wg).find("kl"), std::string::npos);
  // Fused split-K: not for wgmma, KL or atomic kernels.
  wg.kl = 1;
  wg.fused_split = true;
  EXPECT_NE(why_illegal(wg).find("fused"), std::string::npos);
  kl_mma.fused_split = true;
  EXPECT_NE(why_illegal(kl_mma).find("fused"), std::string::npos);
  kl_mma.kl = 1;
  EXPECT_EQ(why_illegal(kl_mma), "");
  kl_mma.atomic_add = true;
  EXPECT_NE(why_illegal(kl_mma).find("fused"), std::string::npos);
  // Raster: 0 or a power of two from 2 to 64, not with a triangular operand.
  kl_mma.atomic_add = kl_mma.fused_split = false;
  for (int raster : {2, 8, 64}) {
    kl_mma.raster = raster;
    EXPECT_EQ(why_illegal(kl_mma), "") << raster;
  }
  for (int raster : {-1, 1, 3, 12, 128}) {
    kl_mma.raster = raster;
    EXPECT_NE(why_illegal(kl_mma).find("raster"), std::string::npos) << raster;
  }
  kl_mma.raster = 4;
  kl_mma.band = ptxblas::gen::kBandALower;
  EXPECT_NE(why_illegal(kl_mma).find("raster"), std::string::npos);
  // KS: 1, 2 or 4 sets, each taking a whole number of the K-step's rows (SIMT) or mma steps; not
  // for wgmma. kl_mma: u = 16, kl = 1, two m16n8k8 steps.
  kl_mma.raster = 0;
  kl_mma.band = 0;
  kl_mma.ks = 2;
  EXPECT_EQ(why_illegal(kl_mma), "");
  kl_mma.ks = 4;
  EXPECT_NE(why_illegal(kl_mma).find("ks"), std::string::npos);
  kl_mma.ks = 3;
  EXPECT_NE(why_illegal(kl_mma).find("ks"), std::string::npos);
  wg.fused_split = false;
  wg.ks = 2;
  EXPECT_NE(why_illegal(wg).find("ks"), std::string::npos);
  KernelConfig simt;  // 64x64x8 4x4: 8 rows a K-step
  simt.ks = 4;
  EXPECT_EQ(why_illegal(simt), "");
  simt.kl = 4;
  EXPECT_NE(why_illegal(simt).find("ks"), std::string::npos);
}

TEST(PtxasFamilies, SplitKReductionsAssemble) {
  for (DataType t : {DataType::F32, DataType::F64, DataType::C32, DataType::C64, DataType::F16, DataType::BF16})
    for (bool f16_scalars : {false, true}) {
      if (f16_scalars && t != DataType::F16) continue;
      for (int sm : {80, 90}) {
        const GeneratedKernel k = generate_splitk_reduce(t, f16_scalars, sm);
        const PtxasReport r = run_ptxas(k.ptx, sm);
        SCOPED_TRACE(k.name + " sm_" + std::to_string(sm));
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_EQ(r.spill_bytes, 0);
        EXPECT_EQ(r.smem_bytes, k.resources.smem_bytes);  // the groups' partial sums
      }
    }
}

// The strided-batch variant of every catalogued and rated batch tile (and of the SIMT and mma ones,
// the pointer-array variant): the tiles dispatch's plan_batched picks from, which assemble without
// spills, at the plain kernel's occupancy within one block per SM.
TEST(PtxasFamilies, BatchedCatalogueAssembles) {
  std::vector<KernelConfig> configs;
  for (DataType t : {DataType::F32, DataType::F64, DataType::C32, DataType::C64, DataType::F16, DataType::BF16}) {
    for (const Tile& tile : tile_catalog(t)) {
      KernelConfig c;
      c.data = t;
      c.op_a = Op::T;
      configs.push_back(with_tile(c, tile));
    }
    for (const RatedTile& r : batched_tiles(t)) {
      KernelConfig c;
      c.data = t;
      c.op_b = Op::T;
      configs.push_back(with_tile(c, r.tile));
      if (t != DataType::F32) continue;
      // Three element-wise cp.async stages (dispatch's with_element_stages) in every layout where
      // neither operand copies vectors.
      for (const auto& [a, b] : {std::pair{Op::N, Op::N}, std::pair{Op::T, Op::N}, std::pair{Op::N, Op::T},
                                 std::pair{Op::T, Op::T}}) {
        KernelConfig e = with_tile(c, r.tile);
        e.op_a = a;
        e.op_b = b;
        e.stages = 3;
        KernelConfig v = e;
        v.vec_copy_a = v.vec_copy_b = true;
        if (r.element_stages && copy_vector(v, Operand::A) == 1 && copy_vector(v, Operand::B) == 1)
          configs.push_back(e);
      }
      // Their f32 vector-stage forms (dispatch's with_f32_batch_vector_stages where the call is
      // aligned: unbounded copies on 128-wide tiles and 64-wide ones over whole entries, bounded
      // ones elsewhere).
      c = with_tile(c, r.tile);
      c.stages = 3;
      c.vec_copy_a = c.vec_copy_b = true;
      for (bool unbounded : {false, true}) {
        c.unbounded = unbounded;
        if (why_illegal(c, Limits{}).empty()) configs.push_back(c);
      }
    }
  }
  for (const Tile& tile : wgmma_catalog()) {
    KernelConfig c;
    c.data = DataType::F16;
    c.op_b = Op::T;
    configs.push_back(with_tile(c, tile));
  }
  for (const KernelConfig& plain : configs) {
    KernelConfig b = plain;
    b.batched = true;
    const GeneratedKernel kp = generate_simt_gemm(plain, 90), kb = generate_simt_gemm(b, 90);
    const PtxasReport rp = run_ptxas(kp.ptx, 90), rb = run_ptxas(kb.ptx, 90);
    SCOPED_TRACE(kb.name);
    ASSERT_TRUE(rb.ok) << rb.log;
    EXPECT_EQ(rb.spill_bytes, 0);
    EXPECT_GE(resident_blocks(rb.registers, kb.resources.threads) + 1, resident_blocks(rp.registers, kp.resources.threads))
        << rb.registers << " registers against the plain kernel's " << rp.registers;
    std::printf("%s: %d registers (plain %d)\n", kb.name.c_str(), rb.registers, rp.registers);
    if (plain.family == Family::Wgmma) {
      // Four entries a block, where its staging fits (not 128x256): no spills, the registers
      // predicted within 8, and the blocks per SM its shared memory allows held.
      KernelConfig z = b;
      z.batch_tiles = 4;
      if (!why_illegal(z).empty()) continue;
      const GeneratedKernel kz = generate_simt_gemm(z, 90);
      const PtxasReport rz = run_ptxas(kz.ptx, 90);
      ASSERT_TRUE(rz.ok) << kz.name << ": " << rz.log;
      EXPECT_EQ(rz.spill_bytes, 0) << kz.name;
      EXPECT_LE(std::abs(rz.registers - kz.resources.regs_predicted), 8) << kz.name << ": " << rz.registers;
      const int by_smem = 228 * 1024 / (kz.resources.smem_bytes + 1024);
      EXPECT_GE(resident_blocks(rz.registers, kz.resources.threads), std::min(by_smem, 2048 / kz.resources.threads))
          << kz.name << ": " << rz.registers << " registers";
      std::printf("%s: %d registers\n", kz.name.c_str(), rz.registers);
      continue;
    }
    b.batch_pointers = true;  // arrays of the entries' pointers
    const GeneratedKernel kq = generate_simt_gemm(b, 90);
    const PtxasReport rq = run_ptxas(kq.ptx, 90);
    ASSERT_TRUE(rq.ok) << rq.log;
    EXPECT_EQ(rq.spill_bytes, 0);
    EXPECT_GE(resident_blocks(rq.registers, kq.resources.threads) + 1, resident_blocks(rp.registers, kp.resources.threads))
        << kq.name << ": " << rq.registers << " registers against the plain kernel's " << rp.registers;
  }
}
