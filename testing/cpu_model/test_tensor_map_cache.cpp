// The per-thread cache of tensor maps (dispatch/tensor_map_cache.hpp): a repeated key copies the
// map its first encode made, a new key is encoded, a failed encode is not kept, and the oldest
// entry goes first once the cache is full.
#include <gtest/gtest.h>

#include <cstring>

#include "tensor_map_cache.hpp"

namespace ptxblas::dispatch {
namespace {

TensorMapKey key_of(std::uint64_t base, std::uint64_t ld = 64) { return TensorMapKey{{base, 64, 64, ld, 64, 0, 0, 1}}; }

// An "encode" that counts its calls and writes its call number into the map.
struct CountingEncode {
  int calls = 0;
  CUresult result = CUDA_SUCCESS;
  CUresult operator()(CUtensorMap& out) {
    ++calls;
    std::memset(&out, 0, sizeof out);
    out.opaque[0] = static_cast<cuuint64_t>(calls);
    return result;
  }
};

TEST(TensorMapCache, ARepeatedKeyCopiesTheMapItsFirstEncodeMade) {
  TensorMapCache cache;
  CountingEncode enc;
  CUtensorMap m{};
  ASSERT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_SUCCESS);
  EXPECT_EQ(m.opaque[0], 1u);
  std::memset(&m, 0xff, sizeof m);  // poisoned: the hit must overwrite all of it
  ASSERT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_SUCCESS);
  EXPECT_EQ(enc.calls, 1);
  EXPECT_EQ(m.opaque[0], 1u);
  EXPECT_EQ(m.opaque[15], 0u);
}

TEST(TensorMapCache, AnyDifferenceInTheKeyEncodesAgain) {
  TensorMapCache cache;
  CountingEncode enc;
  CUtensorMap m{};
  cache.find_or_encode(key_of(0x1000), m, enc);
  for (int field = 0; field < 8; ++field) {
    TensorMapKey k = key_of(0x1000);
    k.v[field] += 16;
    ASSERT_EQ(cache.find_or_encode(k, m, enc), CUDA_SUCCESS);
    EXPECT_EQ(enc.calls, field + 2) << "field " << field;
    EXPECT_EQ(m.opaque[0], static_cast<cuuint64_t>(field + 2));
  }
}

TEST(TensorMapCache, AFailedEncodeIsNotKept) {
  TensorMapCache cache;
  CountingEncode enc;
  enc.result = CUDA_ERROR_INVALID_VALUE;
  CUtensorMap m{};
  EXPECT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(enc.calls, 2);
  enc.result = CUDA_SUCCESS;
  EXPECT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_SUCCESS);
  EXPECT_EQ(cache.find_or_encode(key_of(0x1000), m, enc), CUDA_SUCCESS);
  EXPECT_EQ(enc.calls, 3);
}

TEST(TensorMapCache, TheOldestEntryGoesFirstWhenFull) {
  TensorMapCache cache;
  CountingEncode enc;
  CUtensorMap m{};
  const int n = TensorMapCache::kEntries;
  for (int i = 0; i < n; ++i) cache.find_or_encode(key_of(0x1000 + 16 * i), m, enc);
  for (int i = 0; i < n; ++i) cache.find_or_encode(key_of(0x1000 + 16 * i), m, enc);
  EXPECT_EQ(enc.calls, n);  // all kept
  cache.find_or_encode(key_of(0x9000), m, enc);  // replaces the first
  EXPECT_EQ(enc.calls, n + 1);
  cache.find_or_encode(key_of(0x1000 + 16), m, enc);  // the second is still there
  EXPECT_EQ(enc.calls, n + 1);
  cache.find_or_encode(key_of(0x1000), m, enc);  // the first is not
  EXPECT_EQ(enc.calls, n + 2);
}

}  // namespace
}  // namespace ptxblas::dispatch
