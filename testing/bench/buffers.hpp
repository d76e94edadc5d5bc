// Device operands for one shape: enough rotating (A, B, C) sets that consecutive calls do not find
// their inputs in L2, filled with uniform random values in [-1, 1], plus two C buffers for the
// correctness check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gemm_call.hpp"
#include "suite.hpp"

namespace bench {

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

struct OperandSet {
  DeviceBuffer a, b, c;
};

struct Workspace {
  std::vector<OperandSet> sets;
  DeviceBuffer check_ptx, check_ref;  // C for the correctness run of each implementation
  std::size_t c_bytes;

  Operands operands(std::size_t i) const;  // set i % sets.size()
};

// Sets: as many as make ~2x `l2_bytes` together, at least 1, at most 32 and within ~4 GB.
Workspace make_workspace(const Shape& s, std::size_t l2_bytes, std::uint64_t& rng_state);

// `elems` elements of `type` (complex: both parts), uniform in [-1, 1), copied to device memory `dst`.
void fill_random(char type, std::size_t elems, void* dst, std::uint64_t& rng_state);

}  // namespace bench
