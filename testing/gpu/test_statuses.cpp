// Status codes equal to the real cuBLAS's for bad arguments, and what ptxblas forwards: GemmEx
// combinations it does not serve, explicit algorithms, pedantic f16 math. Forwarded calls must
// give cuBLAS's own results and be counted.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cstring>
#include <random>
#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

struct BadCall {
  const char* what;
  Gemm g;
  bool null_handle = false, null_alpha = false, null_beta = false;
};

std::vector<BadCall> bad_calls() {
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  const auto bad_op = static_cast<cublasOperation_t>(7);
  std::vector<BadCall> v = {
      {"null handle", {N, N, 8, 8, 8, 8, 8, 8, 1.0, 0.0}, true},
      {"transa invalid", {bad_op, N, 8, 8, 8, 8, 8, 8, 1.0, 0.0}},
      {"transb invalid", {N, bad_op, 8, 8, 8, 8, 8, 8, 1.0, 0.0}},
      {"m < 0", {N, N, -1, 8, 8, 8, 8, 8, 1.0, 0.0}},
      {"n < 0", {N, N, 8, -1, 8, 8, 8, 8, 1.0, 0.0}},
      {"k < 0", {N, N, 8, 8, -1, 8, 8, 8, 1.0, 0.0}},
      {"lda < m (N)", {N, N, 8, 8, 4, 7, 4, 8, 1.0, 0.0}},
      {"lda < k (T)", {T, N, 4, 8, 8, 7, 8, 4, 1.0, 0.0}},
      {"ldb < k (N)", {N, N, 8, 4, 8, 8, 7, 8, 1.0, 0.0}},
      {"ldb < n (T)", {N, T, 8, 8, 4, 8, 7, 8, 1.0, 0.0}},
      {"ldc < m", {N, N, 8, 8, 8, 8, 8, 7, 1.0, 0.0}},
      {"lda = 0 with m = 0", {N, N, 0, 8, 8, 0, 8, 1, 1.0, 0.0}},
      {"ldc = 0 with m = 0", {N, N, 0, 8, 8, 1, 8, 0, 1.0, 0.0}},
      {"m = 0 (quick return)", {N, N, 0, 8, 8, 1, 8, 1, 1.0, 0.0}},
      {"n = 0 (quick return)", {N, N, 8, 0, 8, 8, 8, 8, 1.0, 0.0}},
  };
  return v;
}

class Statuses : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }
};

// Each bad call returns the real cuBLAS's status and leaves C as it was.
TEST_P(Statuses, BadArgumentsMatchCublas) {
  const Entry& e = entry_named(GetParam());
  Handle h;
  constexpr std::size_t kBytes = 64 * 64 * 16;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  CUDA_OK(cudaMalloc(&a, kBytes));
  CUDA_OK(cudaMalloc(&b, kBytes));
  CUDA_OK(cudaMalloc(&c, kBytes));
  CUDA_OK(cudaMemset(c, 0x5A, kBytes));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  for (const BadCall& bc : bad_calls()) {
    const Gemm& g = bc.g;
    cublasHandle_t hh = bc.null_handle ? nullptr : h.get();
    const void* alpha = bc.null_alpha ? nullptr : one.data();
    const void* beta = bc.null_beta ? nullptr : zero.data();
    const cublasStatus_t sp = e.ptx(hh, g.ta, g.tb, g.m, g.n, g.k, alpha, a, g.lda, b, g.ldb, beta, c, g.ldc);
    const std::string what = last_call();
    const cublasStatus_t sr = e.real(hh, g.ta, g.tb, g.m, g.n, g.k, alpha, a, g.lda, b, g.ldb, beta, c, g.ldc);
    EXPECT_EQ(cublasGetStatusName(sp), std::string(cublasGetStatusName(sr))) << e.name << ": " << bc.what;
    if (sp != CUBLAS_STATUS_SUCCESS) {
      EXPECT_EQ(what, std::string("error: ") + cublasGetStatusName(sp)) << e.name << ": " << bc.what;
    }
  }
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> after(kBytes);
  CUDA_OK(cudaMemcpy(after.data(), c, kBytes, cudaMemcpyDeviceToHost));
  for (unsigned char x : after) ASSERT_EQ(x, 0x5A) << "a rejected or empty call wrote C";
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

INSTANTIATE_TEST_SUITE_P(AllEntries, Statuses, ::testing::ValuesIn(entry_names()),
                         [](const auto& info) { return info.param; });

using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                                    void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

// A forwarded GemmEx call: ptxblas must pass it to the real cuBLAS unchanged (bit-identical C),
// count it and say why.
void expect_forwarded(cudaDataType ab, cudaDataType ct, cublasComputeType_t comp, cublasGemmAlgo_t algo,
                      std::size_t ab_bytes, std::size_t c_bytes, const void* alpha, const void* beta,
                      const char* reason_part) {
  static const auto ptx = reinterpret_cast<GemmExFn>(ptxblas_symbol("cublasGemmEx"));
  Handle h;
  constexpr int m = 32, n = 24, k = 16;
  std::vector<unsigned char> host(static_cast<std::size_t>(m * k) * ab_bytes);
  std::mt19937 rng(static_cast<unsigned>(test_seed()));
  for (auto& x : host) x = static_cast<unsigned char>(rng() % 3);  // small integers/denormals, never NaN
  void *a = nullptr, *b = nullptr, *c1 = nullptr, *c2 = nullptr;
  const std::size_t cb = static_cast<std::size_t>(m * n) * c_bytes;
  CUDA_OK(cudaMalloc(&a, host.size()));
  CUDA_OK(cudaMalloc(&b, host.size()));
  CUDA_OK(cudaMalloc(&c1, cb));
  CUDA_OK(cudaMalloc(&c2, cb));
  CUDA_OK(cudaMemcpy(a, host.data(), host.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b, host.data(), host.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(c1, 0, cb));
  CUDA_OK(cudaMemset(c2, 0, cb));
  std::uint64_t served0, fwd0, served1, fwd1;
  counters(served0, fwd0);
  const cublasStatus_t sp = ptx(h.get(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, alpha, a, ab, k, b, ab, k, beta, c1,
                                ct, m, comp, algo);
  const std::string what = last_call();
  counters(served1, fwd1);
  const cublasStatus_t sr = cublasGemmEx(h.get(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, alpha, a, ab, k, b, ab, k,
                                         beta, c2, ct, m, comp, algo);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(cublasGetStatusName(sp), std::string(cublasGetStatusName(sr)));
  EXPECT_EQ(fwd1 - fwd0, 1u);
  EXPECT_EQ(served1, served0);
  EXPECT_EQ(what.rfind("forwarded: ", 0), 0u) << what;
  EXPECT_NE(what.find(reason_part), std::string::npos) << what;
  std::vector<unsigned char> r1(cb), r2(cb);
  CUDA_OK(cudaMemcpy(r1.data(), c1, cb, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(r2.data(), c2, cb, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(r1 == r2) << "forwarded call differs from the real cuBLAS";
  cudaFree(a);
  cudaFree(b);
  cudaFree(c1);
  cudaFree(c2);
}

TEST(Forwarding, UnservedGemmExCombinations) {
  SKIP_WITHOUT_GPU();
  const int ione = 1, izero = 0;
  const float fone = 1, fzero = 0;
  // int8 inputs, int32 output and compute
  expect_forwarded(CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT, 1, 4, &ione, &izero,
                   "combination");
  // TF32 compute may round the inputs: ptxblas does not approximate, cuBLAS does it
  expect_forwarded(CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT, 4, 4, &fone, &fzero,
                   "combination");
  // half inputs with float output
  expect_forwarded(CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, 2, 4, &fone, &fzero,
                   "combination");
}

TEST(Forwarding, ExplicitAlgorithm) {
  SKIP_WITHOUT_GPU();
  const float fone = 1, fzero = 0;
  expect_forwarded(CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_ALGO0, 4, 4, &fone, &fzero, "algorithm");
}

// Pedantic math with f16 compute prescribes f16 arithmetic, which ptxblas's kernels do not do.
TEST(Forwarding, PedanticHalfCompute) {
  SKIP_WITHOUT_GPU();
  const Entry& e = entry_named("Hgemm");
  Handle h;
  CUBLAS_OK(cublasSetMathMode(h.get(), CUBLAS_PEDANTIC_MATH));
  std::mt19937_64 rng(test_seed());
  Gemm g{CUBLAS_OP_N, CUBLAS_OP_N, 20, 20, 20, 20, 20, 20, 1.0, 0.0};
  CheckOptions opt;
  opt.expect_served = false;
  const CheckResult r = check_gemm(e, g, h.get(), rng, opt);
  EXPECT_EQ(r.failure, "");
  EXPECT_EQ(r.kernel, "forwarded: pedantic math mode with f16 compute");
  // Pedantic single precision is served: the kernels are exact f32 already.
  const CheckResult s = check_gemm(entry_named("Sgemm"), g, h.get(), rng);
  EXPECT_EQ(s.failure, "") << s.kernel;
}

}  // namespace
}  // namespace gputest
