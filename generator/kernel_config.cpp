#include "kernel_config.hpp"

#include <algorithm>
#include <functional>

#include "load_plan.hpp"

namespace ptxblas::gen {

bool is_complex(DataType t) { return t == DataType::C32 || t == DataType::C64; }

int storage_bytes(DataType t) {
  switch (t) {
    case DataType::F16:
    case DataType::BF16: return 2;
    case DataType::F32: return 4;
    case DataType::F64:
    case DataType::C32: return 8;
    case DataType::C64: return 16;
  }
  return 0;
}

int compute_bytes(DataType t) {
  return (t == DataType::F16 || t == DataType::BF16) ? 4 : storage_bytes(t);
}

int shared_bytes(const KernelConfig& c) {
  return c.family != Family::Simt && storage_bytes(c.data) == 2 ? 2 : compute_bytes(c.data);
}

bool c64_planes(const KernelConfig& c) { return c.family == Family::Mma && c.data == DataType::C64 && c.ms >= 64; }

// A warp stages 16 rows of each of its 64-row tiles as f32 columns: 16 (ms / 64) rows in 8-row
// chunks of 32 bytes, 4 words of padding after, so the four column pairs of one staging store
// (lane (g, q) at word 2 q S + g) fall in four different bank octets. Where it fits in
// the stages' bytes, a 64-row warpgroup's columns are padded instead to 28 words with the two
// chunks 16 words apart: the read-back's quarter warp (chunks h of columns c..c+3, at word 28 c +
// 16 h) then hits eight distinct 16-byte bank groups, (7 c + 4 h) mod 8, where the 20-word
// stride put them in six (10.4 wavefronts a load, not 4; perf notes §129).
namespace {
constexpr int kPaddedColumnBytes = 112, kPaddedChunkBytes = 64;
bool padded_staging(const KernelConfig& c) {
  const int stages = (c.ml + c.nl) * c.u * shared_bytes(c) * c.stages;
  return c.ms == 64 && (c.threads() - 32) / 32 * c.ns * kPaddedColumnBytes <= stages;
}
}  // namespace

int wgmma_staging_column_bytes(const KernelConfig& c) {
  return padded_staging(c) ? kPaddedColumnBytes : 16 * (c.ms / 64) * 4 + 16;
}
int wgmma_staging_chunk_bytes(const KernelConfig& c) { return padded_staging(c) ? kPaddedChunkBytes : 32; }

int wgmma_barrier_offset(const KernelConfig& c) {
  const int stages = (c.ml + c.nl) * c.u * shared_bytes(c) * c.stages;
  // batch_tiles > 1: the tensor-map staging (ML x NL of 16-bit C) after the stages; no f32 staging.
  if (c.batch_tiles > 1) return wgmma_tma_staging_offset(c) + c.ml * c.nl * 2;
  const int staging = (c.threads() - 32) / 32 * c.ns * wgmma_staging_column_bytes(c);
  return std::max(stages, staging);
}

int wgmma_tma_staging_offset(const KernelConfig& c) {
  if (c.batch_tiles <= 1) return 0;
  const int stages = (c.ml + c.nl) * c.u * shared_bytes(c) * c.stages;
  return (stages + 1023) / 1024 * 1024;  // 128-byte swizzle atoms are 1 KiB aligned
}

// Wgmma: the stages (or the epilogue's staging; batch_tiles > 1: the stages, then the tensor-map
// staging), then two 8-byte mbarriers per stage and one for the epilogue's tensor-map load of C.
// cp.async stages (async_copy): A's stages, then B's.
int dynamic_smem_bytes(const KernelConfig& c) {
  if (c.family == Family::Wgmma) return wgmma_barrier_offset(c) + 16 * c.stages + 8;
  // KL's sums reuse the stages after the main loop.
  if (async_copy(c))
    return std::max((smem_stage_bytes(c, Operand::A) + smem_stage_bytes(c, Operand::B)) * c.stages, kl_reduce_bytes(c));
  return 0;
}

// Columns of a thread's accumulators summed together (their words at most kFusedSplitWords) and
// slices per round; the simt_gemm_ptx.cpp tail uses the same.
int fused_split_rounds(const KernelConfig& c, int kg) {
  const FusedSplitShape f = fused_split_shape(c);
  return f.groups * ((kg + f.slices - 1) / f.slices);
}

FusedSplitShape fused_split_shape(const KernelConfig& c) {
  const bool mma = c.family == Family::Mma;
  const int rows = mma ? c.ms / 8 : c.ms, cols = mma ? c.ns / 4 : c.ns;
  const int per_col = rows * (is_complex(c.data) ? 2 : 1);
  FusedSplitShape f;
  f.columns = std::clamp(kFusedSplitWords / std::max(per_col, 1), 1, cols);
  while (cols % f.columns != 0) --f.columns;
  f.groups = cols / f.columns;
  f.slices = std::clamp(kFusedSplitWords / (per_col * f.columns), 1, 4);
  return f;
}

int kl_reduce_bytes(const KernelConfig& c) {
  if (c.family == Family::Wgmma || c.kl <= 1) return 0;
  return (c.kl - 1) * c.ml * c.nl * compute_bytes(c.data);
}

bool mma_supported(DataType t) { return t != DataType::F32 && t != DataType::C32; }

// f64/c64 tiles are built of 16x8x8 fragments: one m16n8k8 DMMA on sm_90 (m8n8k4 runs at half
// the FP64 tensor rate there), four m8n8k4 on sm_80, same registers either way.
int mma_k(DataType t) { return storage_bytes(t) == 2 ? 16 : 8; }

char type_letter(DataType t) {
  switch (t) {
    case DataType::F16: return 'h';
    case DataType::BF16: return 'b';
    case DataType::F32: return 's';
    case DataType::F64: return 'd';
    case DataType::C32: return 'c';
    case DataType::C64: return 'z';
  }
  return '?';
}

char op_letter(Op op) { return op == Op::N ? 'n' : op == Op::T ? 't' : 'c'; }

KernelConfig canonical(KernelConfig c) {
  if (!is_complex(c.data)) {
    if (c.op_a == Op::C) c.op_a = Op::T;
    if (c.op_b == Op::C) c.op_b = Op::T;
  }
  if (c.data != DataType::F16) c.scalar_f16 = false;
  if (!async_copy(c) || (c.family == Family::Simt && !c.unbounded)) c.clamp_edges = false;  // checked copies only
  if (c.family != Family::Simt || c.stages <= 2) c.unbounded = false;  // mma: always; no cp.async: moot
  if (!c64_planes(c) || c.stages != 2 || c.op_a == Op::C || c.op_b == Op::C) c.late_fetch = false;
  return c;
}

std::size_t ConfigKeyHash::operator()(const ConfigKey& k) const {
  return std::hash<std::uint64_t>{}(k.tile) * 0x100000001b3ULL ^ std::hash<std::uint64_t>{}(k.kind);
}

namespace {
// raster 0, 2, 4 ... kMaxRaster as 0 to 6 (3 bits); -1 for anything else (no key).
int raster_bits(int raster) {
  for (int b = 0, g = 0; g <= kMaxRaster; ++b, g = g ? g * 2 : 2)
    if (raster == g) return b;
  return -1;
}
}  // namespace

std::optional<ConfigKey> config_key(const KernelConfig& config) {
  const KernelConfig c = canonical(config);
  const int raster = raster_bits(c.raster);
  if (raster < 0 || c.kl < 0 || c.kl > 0xf || c.ks < 0 || c.ks > 0xf || c.ns > 0x3fff) return std::nullopt;
  if (c.ml > 0x3ff || c.batch_tiles < 1 || c.batch_tiles > 0x3f) return std::nullopt;
  const int tile[] = {c.ml | c.batch_tiles << 10, c.nl, c.u, c.ms};  // ml below 2^10
  const int kind[] = {c.ns | c.batch_pointers << 14 | c.batched << 15,  // ns below 2^14
                      static_cast<int>(c.data) | static_cast<int>(c.op_a) << 4 | static_cast<int>(c.op_b) << 8 |
                          static_cast<int>(c.family) << 12 | c.late_fetch << 14,
                      c.vec | c.stages << 4 | c.band << 8 | c.scalar_f16 << 12 | c.store_pad << 13 | c.fill << 14 |
                          c.clamp_edges << 11 | c.vec_copy_a << 15,  // band below 2^3
                      static_cast<int>(c.unbounded) | c.vec_copy_b << 1 | c.out_of_place << 2 |
                          c.atomic_add << 3 | (c.kl & 0xf) << 4 | (c.ks & 0xf) << 8 | c.fused_split << 12 |
                          raster << 13};
  ConfigKey k;
  for (int v : tile) {
    if (v < 0 || v > 0xffff) return std::nullopt;
    k.tile = k.tile << 16 | static_cast<std::uint64_t>(v);
  }
  for (int v : kind) {
    if (v < 0 || v > 0xffff) return std::nullopt;
    k.kind = k.kind << 16 | static_cast<std::uint64_t>(v);
  }
  return k;
}

std::string kernel_name(const KernelConfig& c) {
  std::string s = c.family == Family::Mma ? "mma_" : c.family == Family::Wgmma ? "wgmma_" : "simt_";
  s += type_letter(c.data);
  if (c.scalar_f16) s += "16";
  s += '_';
  s += op_letter(c.op_a);
  s += op_letter(c.op_b);
  s += '_' + std::to_string(c.ml) + 'x' + std::to_string(c.nl) + 'x' + std::to_string(c.u) + '_' +
       std::to_string(c.ms) + 'x' + std::to_string(c.ns);
  if (c.vec > 1) s += "_v" + std::to_string(c.vec);
  if (c.store_pad) s += "_p";
  if (c.stages > 1) s += "_s" + std::to_string(c.stages);
  if (c.kl > 1) s += "_kl" + std::to_string(c.kl);
  if (c.ks > 1) s += "_ks" + std::to_string(c.ks);
  if (c.fill) s += "_tri";
  static const char* const kBandSuffix[] = {"", "_band_al", "_band_au", "_band_bl", "_band_bu"};  // kBand*
  if (c.band > 0 && c.band <= 4) s += kBandSuffix[c.band];
  if (c.vec_copy_a || c.vec_copy_b) s += !c.vec_copy_b ? "_vca" : !c.vec_copy_a ? "_vcb" : "_vc";
  if (canonical(c).unbounded) s += "_ub";
  if (canonical(c).clamp_edges) s += "_ce";
  if (canonical(c).late_fetch) s += "_lf";
  if (c.out_of_place) s += "_oop";
  if (c.atomic_add) s += "_at";
  if (c.fused_split) s += "_fs";
  if (c.raster) s += "_r" + std::to_string(c.raster);
  if (c.batch_tiles > 1) s += "_z" + std::to_string(c.batch_tiles);
  if (c.batched) s += c.batch_pointers ? "_btp" : "_bt";
  return s;
}

}  // namespace ptxblas::gen
