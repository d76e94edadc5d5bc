#include "buffers.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "status.hpp"

namespace bench {
namespace {

constexpr std::size_t kMaxSets = 32;
constexpr std::size_t kMaxRotationBytes = std::size_t{4} << 30;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double uniform_pm1(std::uint64_t& state) {  // [-1, 1), 53 random bits
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

void fill_random(char type, std::size_t elems, void* dst, std::uint64_t& rng) {
  const std::size_t parts = elems * (is_complex(type) ? 2 : 1);
  std::vector<unsigned char> host(elems * elem_bytes(type));
  switch (type) {
    case 'H': {
      auto* p = reinterpret_cast<__half*>(host.data());
      for (std::size_t i = 0; i < parts; ++i) p[i] = __float2half_rn(static_cast<float>(uniform_pm1(rng)));
      break;
    }
    case 'B': {
      auto* p = reinterpret_cast<__nv_bfloat16*>(host.data());
      for (std::size_t i = 0; i < parts; ++i) p[i] = __float2bfloat16_rn(static_cast<float>(uniform_pm1(rng)));
      break;
    }
    case 'S':
    case 'C': {
      auto* p = reinterpret_cast<float*>(host.data());
      for (std::size_t i = 0; i < parts; ++i) p[i] = static_cast<float>(uniform_pm1(rng));
      break;
    }
    default: {
      auto* p = reinterpret_cast<double*>(host.data());
      for (std::size_t i = 0; i < parts; ++i) p[i] = uniform_pm1(rng);
      break;
    }
  }
  CUDA_CHECK(cudaMemcpy(dst, host.data(), host.size(), cudaMemcpyHostToDevice));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&p_, std::max<std::size_t>(bytes, 256))); }

DeviceBuffer::~DeviceBuffer() {
  if (p_) cudaFree(p_);
}

Operands Workspace::operands(std::size_t i) const {
  const OperandSet& s = sets[i % sets.size()];
  return Operands{s.a.get(), s.b.get(), s.c.get()};
}

Workspace make_workspace(const Shape& s, std::size_t l2_bytes, std::uint64_t& rng) {
  const Layout l = layout(s);
  const std::size_t es = elem_bytes(s.type);
  const std::size_t a_bytes = l.a_elems * es, b_bytes = l.b_elems * es, c_bytes = l.c_elems * es;
  const std::size_t set_bytes = a_bytes + b_bytes + c_bytes;
  std::size_t count = (2 * l2_bytes + set_bytes - 1) / set_bytes;
  count = std::clamp<std::size_t>(std::min(count, kMaxRotationBytes / set_bytes), 1, kMaxSets);

  Workspace w{{}, DeviceBuffer(c_bytes), DeviceBuffer(c_bytes), c_bytes};
  w.sets.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    w.sets.push_back(OperandSet{DeviceBuffer(a_bytes), DeviceBuffer(b_bytes), DeviceBuffer(c_bytes)});
    fill_random(s.type, l.a_elems, w.sets.back().a.get(), rng);
    fill_random(s.type, l.b_elems, w.sets.back().b.get(), rng);
    CUDA_CHECK(cudaMemset(w.sets.back().c.get(), 0, c_bytes));
  }
  CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may still be in flight when cudaMemcpy returns
  return w;
}

}  // namespace bench
