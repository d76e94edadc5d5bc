// Handle state read from the real cuBLAS: the handle's stream is the one ptxblas launches on, and
// two host threads with two handles run concurrently without mixing anything up.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

void CUDART_CB wait_for_flag(void* flag) {
  auto* f = static_cast<std::atomic<bool>*>(flag);
  while (!f->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The handle's stream is held by a host callback: a kernel launched on it cannot run until the
// callback returns, so C must still be untouched; one launched elsewhere would already have
// written it. Then the stream is released and the result checked.
void check_runs_on_handle_stream(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k) {
  const Entry& e = entry_named(name);
  Handle h;
  cudaStream_t s = nullptr, side = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CUBLAS_OK(cublasSetStream(h.get(), s));

  const std::size_t bytes = static_cast<std::size_t>(std::max(m * k, std::max(k * n, m * n))) * elem_bytes(e.elem);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  CUDA_OK(cudaMalloc(&a, bytes));
  CUDA_OK(cudaMalloc(&b, bytes));
  CUDA_OK(cudaMalloc(&c, bytes));
  CUDA_OK(cudaMemset(a, 0, bytes));  // zeros are 0.0 in every type: C must become exactly 0
  CUDA_OK(cudaMemset(b, 0, bytes));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  // Once unblocked, so that JIT compilation (which may wait for the device) is done beforehand.
  ASSERT_EQ(e.ptx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, one.data(), a, m, b, k, zero.data(), c, m),
            CUBLAS_STATUS_SUCCESS);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemset(c, 0xFF, bytes));
  CUDA_OK(cudaDeviceSynchronize());

  std::atomic<bool> release{false};
  CUDA_OK(cudaLaunchHostFunc(s, wait_for_flag, &release));
  const cublasStatus_t st = e.ptx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, one.data(), a, m, b, k, zero.data(), c, m);
  const std::string kernel = last_call();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::vector<unsigned char> early(bytes);
  const cudaError_t copy = cudaMemcpyAsync(early.data(), c, bytes, cudaMemcpyDeviceToHost, side);
  const cudaError_t sync = cudaStreamSynchronize(side);
  const cudaError_t query = cudaStreamQuery(s);
  release = true;
  CUDA_OK(cudaStreamSynchronize(s));
  ASSERT_EQ(st, CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(copy, cudaSuccess);
  ASSERT_EQ(sync, cudaSuccess);
  EXPECT_EQ(query, cudaErrorNotReady) << "the handle's stream was not held";
  bool poisoned = true;
  for (unsigned char x : early) poisoned = poisoned && x == 0xFF;
  EXPECT_TRUE(poisoned) << name << " (" << kernel << ") wrote C before its stream was released";

  std::vector<unsigned char> after(bytes);
  CUDA_OK(cudaMemcpy(after.data(), c, bytes, cudaMemcpyDeviceToHost));
  const std::size_t mn_bytes = static_cast<std::size_t>(m * n) * elem_bytes(e.elem);
  bool zeros = true;
  for (std::size_t i = 0; i < mn_bytes; ++i) zeros = zeros && after[i] == 0;
  EXPECT_TRUE(zeros) << name << " (" << kernel << ") did not produce C = 0 on the handle's stream";
  EXPECT_TRUE(kernel.rfind("simt_", 0) == 0 || kernel.rfind("mma_", 0) == 0 || kernel.rfind("wgmma_", 0) == 0)
      << kernel;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cublasSetStream(h.get(), nullptr);
  cudaStreamDestroy(s);
  cudaStreamDestroy(side);
}

TEST(HandleState, LaunchesOnTheHandlesStream) {
  SKIP_WITHOUT_GPU();
  check_runs_on_handle_stream("Sgemm", 96, 80, 64);
  check_runs_on_handle_stream("Zgemm_64", 33, 31, 17);
  check_runs_on_handle_stream("GemmEx_R16BF_C32F", 40, 24, 16);
  check_runs_on_handle_stream("Dgemm", 32, 32, 4096);  // split-K: workspace and reduction on the stream too
}

// Two host threads, each with its own handle and stream, run mixed types at the same time.
TEST(HandleState, TwoThreadsTwoHandles) {
  SKIP_WITHOUT_GPU();
  const char* names[2][3] = {{"Sgemm", "Zgemm", "GemmEx_R16F_C32F"}, {"Dgemm_64", "Cgemm", "Hgemm"}};
  std::vector<std::string> failures[2];
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    threads[t] = std::thread([t, &names, &failures] {
      Handle h;
      cudaStream_t s = nullptr;
      if (!h.get() || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
          cublasSetStream(h.get(), s) != CUBLAS_STATUS_SUCCESS) {
        failures[t].push_back("setup failed");
        return;
      }
      std::mt19937_64 rng(test_seed() + static_cast<unsigned>(t));
      for (int i = 0; i < 12; ++i) {
        const Entry& e = entry_named(names[t][i % 3]);
        Gemm g{i % 2 ? CUBLAS_OP_T : CUBLAS_OP_N, i % 3 ? CUBLAS_OP_N : CUBLAS_OP_C, 40 + 7 * i, 30 + 11 * i,
               (i == 5 ? 3000 : 20 + 5 * i), 0, 0, 0, {1.0, 0.0}, {i % 2 ? 0.5 : 0.0, 0.0}};
        g.lda = a_rows(g) + t;
        g.ldb = b_rows(g);
        g.ldc = g.m + 3;
        const CheckResult r = check_gemm(e, g, h.get(), rng);
        if (!r.failure.empty()) failures[t].push_back(describe(e, g) + ": " + r.failure);
      }
      cublasSetStream(h.get(), nullptr);
      cudaStreamDestroy(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 2; ++t)
    for (const std::string& f : failures[t]) ADD_FAILURE() << "thread " << t << ": " << f;
}

}  // namespace
}  // namespace gputest
