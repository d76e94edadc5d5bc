// The dispatcher's plan cache: a problem's plans come back for its own key only, and the cache
// stays bounded.
#include <gtest/gtest.h>

#include <initializer_list>

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
  other.fill = true;  // so is a triangular step: plain calls' rules are theirs alone (§146)
  EXPECT_FALSE(cache.find(other));

  other = key;
  other.batched.batch = 1;  // a batch of one (pointer arrays) is planned apart from a single call
  EXPECT_FALSE(cache.find(other));

  cache.add(key, plan_with_kg(5));  // a newer plan replaces the old one
  EXPECT_EQ(cache.find(key)->plan.kg, 5);
  EXPECT_EQ(cache.size(), 1u);
}

// A batch's key (batch_plan_key, what run_batched caches its plan by) tells apart every call
// plan_batched plans apart: entries, family, type, ops, shape, scalar_f16 and whether C is read
// (beta != 0 in either part, or on the device); calls that differ only in what the plan does not
// read (alpha, beta's value, pointers, strides, leading dimensions) share one. None is a single
// call's key.
TEST(PlanCache, KeysABatchByWhatItsPlanReads) {
  const auto ctx = reinterpret_cast<CUcontext>(0x1000);
  GemmCall call;
  call.data = gen::DataType::F32;
  call.op_a = gen::Op::T;
  call.m = 128;
  call.n = 96;
  call.k = 64;
  call.batch = 64;
  call.alpha[0] = 1;
  call.lda = call.ldb = call.ldc = 128;
  call.stride_a = call.stride_b = call.stride_c = 128 * 128;
  const PlanKey key = batch_plan_key(ctx, call, false);
  PlanCache cache;
  cache.add(key, plan_with_kg(1));
  const auto same = [&](const GemmCall& c, bool wgmma = false) { return cache.find(batch_plan_key(ctx, c, wgmma)); };
  EXPECT_TRUE(same(call));
  EXPECT_FALSE(same(call, true));
  GemmCall other = call;
  other.alpha[0] = 2;
  other.lda = other.ldb = other.ldc = 200;
  other.stride_a = other.stride_b = other.stride_c = 200 * 200;
  other.a = other.b = other.c = reinterpret_cast<void*>(0x4000);
  EXPECT_TRUE(same(other));
  other.beta[0] = 1;  // C read
  EXPECT_FALSE(same(other));
  other.beta[0] = 2;  // read again: the same plan
  cache.add(batch_plan_key(ctx, other, false), plan_with_kg(2));
  other.beta[0] = 0;
  other.beta[1] = 1;
  ASSERT_TRUE(same(other));
  EXPECT_EQ(same(other)->plan.kg, 2);
  other = call;
  other.device_scalars = true;  // beta on the device: planned as if C were read
  ASSERT_TRUE(same(other));
  EXPECT_EQ(same(other)->plan.kg, 2);
  for (auto change : std::initializer_list<void (*)(GemmCall&)>{
           [](GemmCall& c) { c.batch = 65; },
           [](GemmCall& c) { c.scalar_f16 = true; }, [](GemmCall& c) { c.data = gen::DataType::F64; },
           [](GemmCall& c) { c.op_b = gen::Op::T; }, [](GemmCall& c) { c.k = 65; },
           [](GemmCall& c) { c.batch = 1; }}) {
    other = call;
    change(other);
    EXPECT_FALSE(same(other));
  }
  PlanKey single = key;
  single.batched = {};  // a single call of the same problem
  EXPECT_FALSE(cache.find(single));
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
