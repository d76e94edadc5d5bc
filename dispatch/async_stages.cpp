#include "async_stages.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "load_plan.hpp"
#include "resources.hpp"

namespace ptxblas::dispatch {
namespace {

// why_illegal costs ~0.6 us, more than a cached shape's whole dispatch budget: once per kernel.
bool legal(const gen::KernelConfig& c) {
  thread_local std::unordered_map<gen::ConfigKey, bool, gen::ConfigKeyHash> known;
  const std::optional<gen::ConfigKey> key = gen::config_key(c);
  if (!key) return false;
  const auto it = known.find(*key);
  if (it != known.end()) return it->second;
  return known[*key] = gen::why_illegal(c).empty();
}

}  // namespace

std::pair<int, int> copy_vectors(const gen::KernelConfig& config) {
  gen::KernelConfig c = config;
  c.vec_copy_a = c.vec_copy_b = true;
  // copy_vector walks the load layouts (~60 ns for both operands): once per configuration.
  thread_local std::unordered_map<gen::ConfigKey, std::pair<int, int>, gen::ConfigKeyHash> known;
  const std::optional<gen::ConfigKey> key = gen::config_key(c);
  if (!key) return {1, 1};
  auto it = known.find(*key);
  if (it == known.end())
    it = known.emplace(*key, std::pair{gen::copy_vector(c, gen::Operand::A), gen::copy_vector(c, gen::Operand::B)})
             .first;
  return it->second;
}

VectorCopies vector_copies_fit(const gen::KernelConfig& c, gen::DataType data, bool a_aligned, std::int64_t lda,
                               bool b_aligned, std::int64_t ldb) {
  const auto [va, vb] = copy_vectors(c);
  const std::int64_t es = gen::storage_bytes(data);
  return {va > 1 && a_aligned && lda * es % 16 == 0, vb > 1 && b_aligned && ldb * es % 16 == 0};
}

Plan with_async_stages(Plan p) {
  gen::KernelConfig c = p.config;
  if (c.family == gen::Family::Wgmma || c.stages > 2) return p;
  const bool pays = c.data == gen::DataType::F64 || c.data == gen::DataType::C64 ||
                    (c.data == gen::DataType::F32 && p.kg > 1);
  if (!pays) return p;
  c.stages = 3;
  if (legal(c)) p.config = c;
  return p;
}

Plan with_register_stages(Plan p) {
  gen::KernelConfig c = p.config;
  if (c.data != gen::DataType::C64 || c.family != gen::Family::Mma || c.stages != 3 || c.ms < 64 ||
      c.u != gen::mma_k(c.data))
    return p;
  c.stages = 2;
  if (legal(c)) p.config = c;
  return p;
}

Plan with_f32_vector_stages(Plan p) {
  gen::KernelConfig c = p.config;
  if (c.data != gen::DataType::F32 || c.family != gen::Family::Simt) return p;
  if (p.kg > 1) {  // planned on cp.async stages already (with_async_stages, or the model's pick)
    if (c.stages <= 2 || std::max(c.ml, c.nl) < kUnboundedWideTile || std::min(c.ml, c.nl) < kUnboundedSplitSide ||
        std::max(c.ms, c.ns) > kUnboundedSplitThreadTile)
      return p;
    c.unbounded = true;
    if (const auto [va, vb] = copy_vectors(c); va == 1 && vb == 1) return p;
    if (legal(c)) p.config = c;
    return p;
  }
  if (c.stages > 2) return p;
  c.stages = 3;
  c.unbounded = true;  // these plans gained 5-7% with unbounded copies inside the matrix (§55)
  // One operand in vectors is enough (§45); the launcher sets vec_copy_a/_b where the call is aligned.
  if (const auto [va, vb] = copy_vectors(c); va == 1 && vb == 1) return p;
  if (legal(c)) p.config = c;
  return p;
}

Plan with_f32_wide_tile(Plan p, std::int64_t m, std::int64_t n, std::int64_t k, int multiprocessors) {
  const gen::KernelConfig& c = p.config;
  if (c.data != gen::DataType::F32 || c.family != gen::Family::Simt || p.kg > 1 || !c.unbounded || c.ml != 128 ||
      c.nl != 128 || c.ms != 8 || c.ns != 8 || c.u != 8 || c.vec != 4 || c.kl != 1 || c.ks != 1 || c.store_pad ||
      c.op_a != gen::Op::N || k < kWideTileMinK || multiprocessors <= 0)
    return p;
  gen::KernelConfig w = c;
  if (c.op_b == gen::Op::T) {
    w.nl = 256;
    w.ns = 16;
  } else if (c.op_b == gen::Op::N) {
    w.ml = 256;
    w.ms = 16;
  } else {
    return p;
  }
  if (m % w.ml != 0 || n % w.nl != 0 || !legal(w)) return p;
  if (const auto [va, vb] = copy_vectors(w); va == 1 && vb == 1) return p;
  if (wave_fill((m / w.ml) * (n / w.nl), multiprocessors * std::max<std::int64_t>(blocks_per_sm(w), 1)) <
      kWideTileFill)
    return p;
  p.config = w;
  return p;
}

bool clamp_edges_fit(const GemmCall& call, const gen::KernelConfig& c) {
  const bool layout = c.op_b == gen::Op::N && (c.op_a == gen::Op::N || (c.vec_copy_a && c.fused_split));
  return call.fill == gen::kFillWhole && call.band == gen::kBandNone && !call.d && c.data == gen::DataType::F64 &&
         c.family == gen::Family::Mma && gen::async_copy(c) && c.ml == 64 && c.nl == 32 && c.u == 16 && c.ms == 16 &&
         c.ns == 32 && c.kl == 1 && c.ks == 1 && layout && !c.batched && call.n % c.nl != 0;
}

bool late_fetch_fits(const GemmCall& call, const Plan& plan) {
  if (plan.config.data != gen::DataType::C64) return false;  // before the copy: every call asks
  gen::KernelConfig c = plan.config;
  c.late_fetch = true;
  const std::int64_t depth = plan.kg > 1 ? plan.kchunk : call.k;
  return !c.batched && depth >= kLateFetchMinK && gen::canonical(c).late_fetch;
}

Plan with_f32_batch_vector_stages(Plan p, std::int64_t m, std::int64_t n, std::int64_t k) {
  Plan q = with_f32_vector_stages(p);
  const gen::KernelConfig& c = q.config;
  const bool wide = c.ml >= kUnboundedWideTile || c.nl >= kUnboundedWideTile;
  const bool whole = c.ml >= kUnboundedWholeTile && c.nl >= kUnboundedWholeTile && m % c.ml == 0 &&
                     n % c.nl == 0 && k >= kUnboundedWholeMinK;
  if (c.stages == p.config.stages || wide || whole) return q;
  gen::KernelConfig bounded = c;
  bounded.unbounded = false;
  if (legal(bounded)) q.config = bounded;
  return q;
}

}  // namespace ptxblas::dispatch
