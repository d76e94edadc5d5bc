// The dispatcher's plan cache: a problem's plans come back for its own key only, and the cache
// stays bounded.
#include <gtest/gtest.h>

#include "plan_cache.hpp"

namespace ptxblas::dispatch {
namespace {

ProblemPlans plan_with_kg(int kg) {
  Plan p;
  p.kg = kg;
  p.kchunk = 64 * kg;
  Plan lowered = p;
  lowered.config.stages = 3;
  return {p, lowered};
}

TEST(PlanCache, ReturnsThePlanOfItsKeyOnly) {
  PlanCache cache;
  const auto ctx = reinterpret_cast<CUcontext>(0x1000);
  const PlanKey key{ctx, {gen::DataType::F64, gen::Op::N, gen::Op::T, 100, 200, 300}, false, 0, {}};
  EXPECT_FALSE(cache.find(key));
  cache.add(key, plan_with_kg(3));
  ASSERT_TRUE(cache.find(key));
  EXPECT_EQ(cache.find(key)->plan.kg, 3);
  EXPECT_EQ(cache.find(key)->plan.kchunk, 192);
  EXPECT_EQ(cache.find(key)->vector_stages.config.stages, 3);  // kept beside the plan

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
  other = key;
  other.band = gen::kBandALower;  // a banded step of the same shape is planned apart (§59)
  EXPECT_FALSE(cache.find(other));

  other = key;
  other.batched.batch = 1;  // a batch of one (pointer arrays) is planned apart from a single call
  EXPECT_FALSE(cache.find(other));

  cache.add(key, plan_with_kg(5));  // a newer plan replaces the old one
  EXPECT_EQ(cache.find(key)->plan.kg, 5);
  EXPECT_EQ(cache.size(), 1u);
}

// A batch's plan (plan_batched) weighs its entries, wgmma and whether C is read: each is its own key.
TEST(PlanCache, KeepsABatchsPlanPerEntriesFamilyAndReadOfC) {
  PlanCache cache;
  const PlanKey key{nullptr, {gen::DataType::F16, gen::Op::T, gen::Op::N, 128, 128, 64}, false, 0, {64, true, false}};
  cache.add(key, plan_with_kg(1));
  ASSERT_TRUE(cache.find(key));
  PlanKey other = key;
  other.batched.batch = 65;
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.batched.wgmma = false;
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.batched.reads_c = true;
  EXPECT_FALSE(cache.find(other));
  other = key;
  other.batched = {};
  EXPECT_FALSE(cache.find(other));
}

TEST(PlanCache, StartsOverWhenFull) {
  PlanCache cache;
  PlanKey key{nullptr, {gen::DataType::F32, gen::Op::N, gen::Op::N, 1, 1, 1}, false, 0, {}};
  for (std::size_t i = 0; i < PlanCache::kMaxEntries; ++i) {
    key.problem.m = static_cast<std::int64_t>(i) + 1;
    cache.add(key, plan_with_kg(1));
  }
  EXPECT_EQ(cache.size(), PlanCache::kMaxEntries);
  key.problem.m = 0;
  cache.add(key, plan_with_kg(2));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(key)->plan.kg, 2);
}

// A served call carries its kernel's name by pointer (no string built per call); describe() is
// the call record's text, the reason where the call was not served.
TEST(Outcome, DescribesTheKernelAndItsSlicesOrWhyNot) {
  const std::string name = "mma_d_tn_32x32x16_16x16_s3";
  Outcome out;
  out.detail = "no current CUDA context";
  EXPECT_EQ(out.describe(), "no current CUDA context");
  out = Outcome{};
  out.served = true;
  out.kernel = &name;
  EXPECT_EQ(out.describe(), name);
  out.kg = 6;
  EXPECT_EQ(out.describe(), name + " kg=6");
}

}  // namespace
}  // namespace ptxblas::dispatch
