// The dispatcher's plan cache: a plan comes back for its own key only, and the cache stays
// bounded.
#include <gtest/gtest.h>

#include "plan_cache.hpp"

namespace ptxblas::dispatch {
namespace {

Plan plan_with_kg(int kg) {
  Plan p;
  p.kg = kg;
  p.kchunk = 64 * kg;
  return p;
}

TEST(PlanCache, ReturnsThePlanOfItsKeyOnly) {
  PlanCache cache;
  const auto ctx = reinterpret_cast<CUcontext>(0x1000);
  const PlanKey key{ctx, {gen::DataType::F64, gen::Op::N, gen::Op::T, 100, 200, 300}, false};
  EXPECT_FALSE(cache.find(key));
  cache.add(key, plan_with_kg(3));
  ASSERT_TRUE(cache.find(key));
  EXPECT_EQ(cache.find(key)->kg, 3);
  EXPECT_EQ(cache.find(key)->kchunk, 192);

  PlanKey other = key;
  other.problem.k = 301;
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.scalar_f16 = true;
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.ctx = reinterpret_cast<CUcontext>(0x2000);
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.problem.op_b = gen::Op::N;
  EXPECT_FALSE(cache.find(other));

  cache.add(key, plan_with_kg(5));  // a newer plan replaces the old one
  EXPECT_EQ(cache.find(key)->kg, 5);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(PlanCache, StartsOverWhenFull) {
  PlanCache cache;
  PlanKey key{nullptr, {gen::DataType::F32, gen::Op::N, gen::Op::N, 1, 1, 1}, false};
  for (std::size_t i = 0; i < PlanCache::kMaxEntries; ++i) {
    key.problem.m = static_cast<std::int64_t>(i) + 1;
    cache.add(key, plan_with_kg(1));
  }
  EXPECT_EQ(cache.size(), PlanCache::kMaxEntries);
  key.problem.m = 0;
  cache.add(key, plan_with_kg(2));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(key)->kg, 2);
}

}  // namespace
}  // namespace ptxblas::dispatch
