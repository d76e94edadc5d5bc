// Null operands: cuBLAS rejects a null C that would be written and a null A or B that would be
// read. Kept in its own file, linked last, so that it runs after everything else.
#include <gtest/gtest.h>

#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

class NullPointers : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }
};

TEST_P(NullPointers, MatchCublas) {
  const Entry& e = entry_named(GetParam());
  Handle h;
  void* buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, 16 * 16 * 16));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  struct Case {
    const char* what;
    bool null_a, null_b, null_c;
  } cases[] = {{"A null", true, false, false}, {"B null", false, true, false}, {"C null", false, false, true}};
  for (const Case& c : cases) {
    // alpha = 1, beta = 0, k > 0: A, B and C are all needed
    const void* a = c.null_a ? nullptr : buf;
    const void* b = c.null_b ? nullptr : buf;
    void* cc = c.null_c ? nullptr : buf;
    const cublasStatus_t sp =
        e.ptx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, one.data(), a, 8, b, 8, zero.data(), cc, 8);
    const cublasStatus_t sr =
        e.real(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, one.data(), a, 8, b, 8, zero.data(), cc, 8);
    EXPECT_EQ(cublasGetStatusName(sp), std::string(cublasGetStatusName(sr))) << e.name << ": " << c.what;
  }
  CUDA_OK(cudaDeviceSynchronize());
  cudaFree(buf);
}

INSTANTIATE_TEST_SUITE_P(AllEntries, NullPointers, ::testing::ValuesIn(entry_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gputest
