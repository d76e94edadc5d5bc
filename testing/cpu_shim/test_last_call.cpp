// ptxblas_last_call() is per thread; ptxblas_counters() is per process and takes null pointers.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "gemm_entries.hpp"
#include "ptxblas/ptxblas.h"
#include "shim_loader.hpp"

namespace cpushim {
namespace {

cublasStatus_t sgemm(cublasHandle_t h, std::int64_t m, std::int64_t n) {
  static const float one = 1, zero = 0;
  GemmArgs x;
  x.handle = h;
  x.m = m;
  x.n = n;
  x.alpha = &one;
  x.beta = &zero;
  return call_gemm(gemm_entry("Sgemm_v2"), x);
}

TEST(LastCall, FreshThreadSeesNone) {
  library();
  std::string seen;
  std::thread t([&] { seen = last_call(); });
  t.join();
  EXPECT_EQ(seen, "none");
}

TEST(LastCall, EachThreadSeesItsOwnCall) {
  ASSERT_EQ(sgemm(nullptr, 4, 4), CUBLAS_STATUS_NOT_INITIALIZED);
  ASSERT_EQ(last_call(), "error: CUBLAS_STATUS_NOT_INITIALIZED");
  std::string before, after;
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  std::thread t([&] {
    before = last_call();
    s = sgemm(fake_handle(), -1, 4);
    after = last_call();
  });
  t.join();
  EXPECT_EQ(before, "none");
  EXPECT_EQ(s, CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(after, "error: CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_EQ(last_call(), "error: CUBLAS_STATUS_NOT_INITIALIZED") << "another thread's call changed this one's";
}

TEST(Counters, ProcessWideAndNullTolerant) {
  const auto f = reinterpret_cast<decltype(&ptxblas_counters)>(ptxblas_symbol("ptxblas_counters"));
  f(nullptr, nullptr);
  std::uint64_t served = ~0ull, forwarded = ~0ull;
  f(&served, nullptr);
  f(nullptr, &forwarded);
  EXPECT_NE(served, ~0ull);
  EXPECT_NE(forwarded, ~0ull);
  const Counters before = counters();
  std::thread t([] { EXPECT_EQ(sgemm(fake_handle(), 0, 4), CUBLAS_STATUS_SUCCESS); });  // empty: served
  t.join();
  const Counters after = counters();
  EXPECT_EQ(after.served, before.served + 1);
  EXPECT_EQ(after.forwarded, before.forwarded);
}

}  // namespace
}  // namespace cpushim
