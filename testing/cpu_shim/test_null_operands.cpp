// cuBLAS's null-operand rule, applied once the handle's pointer mode is known (the stand-in
// cuBLAS reports it): C may be null only when it is left alone (beta == 1 and nothing added), A
// and B only when nothing is accumulated (alpha == 0 or k == 0); with scalars in device memory
// ptxblas cannot know them, so every operand is needed.
#include <gtest/gtest.h>

#include <string>

#include "gemm_entries.hpp"
#include "shim_loader.hpp"
#include "status_names.hpp"

namespace cpushim {
namespace {

constexpr cublasStatus_t kCublasSays = CUBLAS_STATUS_ARCH_MISMATCH;

enum class Outcome { Rejected, Empty, Forwarded };

struct Case {
  const char* name;
  double alpha, beta;
  std::int64_t k;
  bool null_a, null_b, null_c;
  bool device_scalars;
  Outcome outcome;
};

const Case kCases[] = {
    {"NullA", 1, 0, 6, true, false, false, false, Outcome::Rejected},
    {"NullB", 1, 0, 6, false, true, false, false, Outcome::Rejected},
    {"NullC", 1, 0, 6, false, false, true, false, Outcome::Rejected},
    {"NullCWithBetaOneButAlphaNonzero", 1, 1, 6, false, false, true, false, Outcome::Rejected},
    {"NullCWithBetaZeroAlphaZero", 0, 0, 6, false, false, true, false, Outcome::Rejected},
    {"NullEverythingCIsOneTimesC", 0, 1, 6, true, true, true, false, Outcome::Empty},
    {"NullEverythingKZeroBetaOne", 1, 1, 0, true, true, true, false, Outcome::Empty},
    {"NullABWithAlphaZero", 0, 2, 6, true, true, false, false, Outcome::Forwarded},
    {"NullABWithKZero", 1, 0, 0, true, true, false, false, Outcome::Forwarded},
    {"DeviceScalarsNullC", 0, 1, 6, false, false, true, true, Outcome::Rejected},
    {"DeviceScalarsNullA", 0, 1, 6, true, false, false, true, Outcome::Rejected},
    {"DeviceScalarsAllOperands", 0, 1, 6, false, false, false, true, Outcome::Forwarded},
};

class NullOperands : public ::testing::TestWithParam<std::string> {};

TEST_P(NullOperands, FollowCublasRule) {
  if (ptxblas_disable_set()) GTEST_SKIP() << "PTXBLAS_DISABLE is set: the handle is never read";
  const EntrySpec& e = gemm_entry(GetParam());
  FakeCublas& f = fake_cublas();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    f.handle_status = CUBLAS_STATUS_SUCCESS;
    f.stream = nullptr;
    f.pointer_mode = c.device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST;
    f.math_mode = CUBLAS_DEFAULT_MATH;
    f.gemm_status = kCublasSays;
    const Scalar alpha = scalar(e.scal, c.alpha), beta = scalar(e.scal, c.beta);
    GemmArgs x;
    x.k = c.k;
    x.ldb = 6;  // >= k
    x.alpha = alpha.ptr();  // in device mode never read by ptxblas
    x.beta = beta.ptr();
    if (c.null_a) x.a = nullptr;
    if (c.null_b) x.b = nullptr;
    if (c.null_c) x.c = nullptr;
    const std::uint64_t gemms0 = f.gemm_calls;
    const Counters before = counters();
    const cublasStatus_t s = call_gemm(e, x);
    const std::string what = last_call();
    const Counters after = counters();
    switch (c.outcome) {
      case Outcome::Rejected:
        EXPECT_EQ(status_name(s), "CUBLAS_STATUS_INVALID_VALUE");
        EXPECT_EQ(what, "error: CUBLAS_STATUS_INVALID_VALUE");
        EXPECT_EQ(after.served, before.served);
        EXPECT_EQ(after.forwarded, before.forwarded);
        EXPECT_EQ(f.gemm_calls, gemms0);
        break;
      case Outcome::Empty:
        EXPECT_EQ(status_name(s), "CUBLAS_STATUS_SUCCESS");
        EXPECT_EQ(what, "empty (C = 1 * C)");
        EXPECT_EQ(after.served, before.served + 1);
        EXPECT_EQ(after.forwarded, before.forwarded);
        EXPECT_EQ(f.gemm_calls, gemms0);
        break;
      case Outcome::Forwarded:  // accepted; without a GPU, dispatch declines
        EXPECT_EQ(status_name(s), status_name(kCublasSays));
        EXPECT_EQ(what.rfind("forwarded: ", 0), 0u) << what;
        EXPECT_EQ(after.forwarded, before.forwarded + 1);
        EXPECT_EQ(f.gemm_calls, gemms0 + 1);
        break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllEntries, NullOperands, ::testing::ValuesIn(gemm_entry_names()),
                         [](const auto& info) { return info.param; });

// A complex alpha with only an imaginary part still accumulates: A and B are needed.
TEST(NullOperandsComplex, ImaginaryAlphaNeedsAAndB) {
  if (ptxblas_disable_set()) GTEST_SKIP() << "PTXBLAS_DISABLE is set";
  FakeCublas& f = fake_cublas();
  f.handle_status = CUBLAS_STATUS_SUCCESS;
  f.pointer_mode = CUBLAS_POINTER_MODE_HOST;
  f.math_mode = CUBLAS_DEFAULT_MATH;
  for (const char* name : {"Cgemm_v2", "Zgemm_v2_64", "GemmEx_C32F_Compute32F", "GemmEx_64_C64F_Compute64F"}) {
    SCOPED_TRACE(name);
    const EntrySpec& e = gemm_entry(name);
    const Scalar alpha = scalar(e.scal, 0, 1), beta = scalar(e.scal, 1);
    GemmArgs x;
    x.alpha = alpha.ptr();
    x.beta = beta.ptr();
    x.a = nullptr;
    EXPECT_EQ(status_name(call_gemm(e, x)), "CUBLAS_STATUS_INVALID_VALUE");
  }
}

}  // namespace
}  // namespace cpushim
