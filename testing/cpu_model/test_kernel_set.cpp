// Which kernels the JIT workers of `ptxblas-tune bench` compile: one sample per distinct plan
// kernels (GEMM kernel, plus the split-K reduction when the plan splits), first seen first.
#include <gtest/gtest.h>

#include "kernel_set.hpp"

namespace {

using ptxblas::tuner::Sample;
namespace gen = ptxblas::gen;

Sample sample(gen::Op op_a, std::int64_t m, std::int64_t n, std::int64_t k, int kg) {
  Sample s;
  s.device_key = "test";
  s.problem = {gen::DataType::F32, op_a, gen::Op::N, m, n, k};
  s.tuning = {64, 64, 8, 4, 4, 4, kg};
  return s;
}

}  // namespace

TEST(KernelSet, OneSamplePerDistinctPlanKernels) {
  const std::vector<Sample> all = {
      sample(gen::Op::N, 512, 512, 512, 1),   // simt_s_nn_64x64x8_4x4_v4
      sample(gen::Op::N, 300, 200, 100, 1),   // the same kernel for another problem
      sample(gen::Op::N, 512, 512, 512, 4),   // plus the split-K reduction
      sample(gen::Op::N, 512, 512, 8, 4),     // K too short to split: the first kernel again
      sample(gen::Op::T, 512, 512, 512, 1)};  // another layout
  EXPECT_EQ(ptxblas::tuner::kernels_of(all[0]), "simt_s_nn_64x64x8_4x4_v4");
  EXPECT_EQ(ptxblas::tuner::kernels_of(all[2]), "simt_s_nn_64x64x8_4x4_v4 + splitk_reduce_s");
  EXPECT_EQ(ptxblas::tuner::kernels_of(all[3]), ptxblas::tuner::kernels_of(all[0]));
  const std::vector<Sample> reps = ptxblas::tuner::one_sample_per_kernel(all);
  ASSERT_EQ(reps.size(), 3u);
  EXPECT_EQ(reps[0].problem, all[0].problem);
  EXPECT_EQ(reps[1].problem, all[2].problem);
  EXPECT_EQ(reps[1].tuning, all[2].tuning);
  EXPECT_EQ(reps[2].problem, all[4].problem);
  EXPECT_TRUE(ptxblas::tuner::one_sample_per_kernel({}).empty());
}

// With cp.async stages the launch copies in 16-byte vectors where the operand's leading dimension
// allows, which is another kernel (`_vc`): the one the JIT workers must compile. Register stages
// never copy in vectors.
TEST(KernelSet, TheKernelTheLaunchRunsWithItsVectorCopies) {
  Sample aligned = sample(gen::Op::N, 512, 512, 512, 1), odd = sample(gen::Op::N, 513, 513, 513, 1);
  for (Sample* s : {&aligned, &odd}) s->tuning = {128, 128, 8, 8, 8, 4, 1, 0, 3};  // vectors split over 256 threads
  const std::string vc = ptxblas::tuner::kernels_of(aligned), plain = ptxblas::tuner::kernels_of(odd);
  EXPECT_NE(vc.find("_vc"), std::string::npos) << vc;
  EXPECT_EQ(plain.find("_vc"), std::string::npos) << plain;
  EXPECT_EQ(ptxblas::tuner::kernels_of(sample(gen::Op::N, 512, 512, 512, 1)).find("_vc"), std::string::npos);
}
