// The last few tensor maps one thread encoded, keyed by everything that went into the encode.
// A wgmma call makes three maps (A, op(B), C); a repeated call (same operands, shapes and tile:
// a loop of small GEMMs, a factorisation's updates at one size) copies them from here instead of
// asking the driver again. A map only names an address and a layout, so a hit is the very map
// the driver would encode; a failed encode is not kept.
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>

namespace ptxblas::dispatch {

// What wgmma_tensor_maps.cpp's encode varies: base, extents, leading dimension, batch stride,
// box, element type. The rest of its arguments are constants.
struct TensorMapKey {
  std::array<std::uint64_t, 8> v{};
  bool operator==(const TensorMapKey&) const = default;
};

class TensorMapCache {
 public:
  static constexpr int kEntries = 8;  // three maps a call, a few calls alternating

  // The map of `key` into `out`: copied where this cache holds it, else from encode(out) (a
  // CUresult), kept when that succeeds, replacing the oldest entry.
  template <class Encode>
  CUresult find_or_encode(const TensorMapKey& key, CUtensorMap& out, Encode&& encode) {
    for (int i = 0; i < filled_; ++i)
      if (keys_[i] == key) {
        out = maps_[i];
        return CUDA_SUCCESS;
      }
    const CUresult r = encode(out);
    if (r != CUDA_SUCCESS) return r;
    keys_[next_] = key;
    maps_[next_] = out;
    next_ = (next_ + 1) % kEntries;
    if (filled_ < kEntries) ++filled_;
    return r;
  }

 private:
  std::array<TensorMapKey, kEntries> keys_{};
  std::array<CUtensorMap, kEntries> maps_{};
  int filled_ = 0, next_ = 0;
};

}  // namespace ptxblas::dispatch
