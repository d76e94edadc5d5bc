// Null scalars and null operands: cuBLAS documents INVALID_VALUE for a null alpha or beta, a null
// C that would be written and a null A or B that would be read. Should a cuBLAS version not check
// one of them, calling it could crash or poison the CUDA context, so each entry point's probe runs
// in a child process (a threadsafe death test) and reports mismatches through its exit status.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

// In the child: every probe through ptxblas and cuBLAS; exit 0 when all statuses agree.
void probe_and_exit(const std::string& name) {
  const Entry& e = entry_named(name);
  Handle h;
  void* buf = nullptr;
  if (cudaMalloc(&buf, 16 * 16 * 16) != cudaSuccess) _exit(3);
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  struct Case {
    const char* what;
    bool null_a, null_b, null_c, null_alpha, null_beta;
  } cases[] = {{"alpha null", false, false, false, true, false}, {"beta null", false, false, false, false, true},
               {"A null", true, false, false, false, false},     {"B null", false, true, false, false, false},
               {"C null", false, false, true, false, false}};
  int mismatches = 0;
  for (const Case& c : cases) {
    // alpha = 1, beta = 0, k > 0: A, B and C are all needed
    const void* a = c.null_a ? nullptr : buf;
    const void* b = c.null_b ? nullptr : buf;
    void* cc = c.null_c ? nullptr : buf;
    const void* alpha = c.null_alpha ? nullptr : one.data();
    const void* beta = c.null_beta ? nullptr : zero.data();
    const cublasStatus_t sp = e.ptx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, alpha, a, 8, b, 8, beta, cc, 8);
    const cublasStatus_t sr = e.real(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, alpha, a, 8, b, 8, beta, cc, 8);
    if (sp != sr) {
      std::fprintf(stderr, "%s %s: ptxblas %s, cuBLAS %s\n", name.c_str(), c.what, cublasGetStatusName(sp),
                   cublasGetStatusName(sr));
      ++mismatches;
    }
  }
  if (cudaDeviceSynchronize() != cudaSuccess) _exit(4);
  _exit(mismatches ? 1 : 0);
}

class NullPointers : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }
};

TEST_P(NullPointers, MatchCublas) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(probe_and_exit(GetParam()), ::testing::ExitedWithCode(0), "") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(AllEntries, NullPointers, ::testing::ValuesIn(entry_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gputest
