#include "async_stages.hpp"

#include <cstdint>
#include <unordered_map>

#include "load_plan.hpp"
#include "resources.hpp"

namespace ptxblas::dispatch {
namespace {

// The configuration's fields in one word (each well inside its bit range), for the cache below.
std::uint64_t key_of(const gen::KernelConfig& c) {
  std::uint64_t k = static_cast<std::uint64_t>(c.data);
  for (int v : {static_cast<int>(c.op_a), static_cast<int>(c.op_b), static_cast<int>(c.family), c.vec, c.stages,
                static_cast<int>(c.store_pad), static_cast<int>(c.scalar_f16)})
    k = k * 8 + static_cast<std::uint64_t>(v);
  for (int v : {c.ml, c.nl, c.u, c.ms, c.ns}) k = k * 512 + static_cast<std::uint64_t>(v);
  return k;
}

// why_illegal costs ~0.6 us, more than a cached shape's whole dispatch budget: once per kernel.
bool legal(const gen::KernelConfig& c) {
  thread_local std::unordered_map<std::uint64_t, bool> known;
  const std::uint64_t key = key_of(c);
  const auto it = known.find(key);
  if (it != known.end()) return it->second;
  return known[key] = gen::why_illegal(c).empty();
}

}  // namespace

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

Plan with_f32_vector_stages(Plan p) {
  gen::KernelConfig c = p.config;
  if (c.data != gen::DataType::F32 || c.family != gen::Family::Simt || c.stages > 2 || p.kg > 1) return p;
  c.stages = 3;
  c.vec_copy = true;
  if (gen::copy_vector(c, gen::Operand::A) == 1 || gen::copy_vector(c, gen::Operand::B) == 1) return p;
  c.vec_copy = false;  // the launcher sets it after checking alignment
  if (legal(c)) p.config = c;
  return p;
}

}  // namespace ptxblas::dispatch
