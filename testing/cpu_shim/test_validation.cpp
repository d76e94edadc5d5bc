// cuBLAS's documented argument checks on every GEMM entry point: each bad argument gives
// cuBLAS's status before anything else happens (no cuBLAS call, no counter moves), and an empty
// product (m or n zero) returns SUCCESS at once, counted as served. The strided-batched entries
// (batchCount 3 here, strides apart) check the same, and batchCount: negative is INVALID_VALUE,
// whatever else is empty; zero is an empty product. So do the pointer-array entries
// (cublas{S,D,C,Z}gemmBatched[_64]), whose arrays of pointers are never read on these paths.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "gemm_entries.hpp"
#include "shim_loader.hpp"
#include "status_names.hpp"

namespace cpushim {
namespace {

struct Case {
  const char* name;
  std::function<void(GemmArgs&)> edit;  // applied to a valid call: m=4 n=5 k=6, N N, lda=4 ldb=6 ldc=4
  cublasStatus_t expect;
};

const auto kBadOp = static_cast<cublasOperation_t>(7);

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {"NullHandle", [](GemmArgs& x) { x.handle = nullptr; }, CUBLAS_STATUS_NOT_INITIALIZED},
      {"NullHandleBeforeOtherErrors",
       [](GemmArgs& x) {
         x.handle = nullptr;
         x.m = -1;
         x.transa = kBadOp;
         x.alpha = nullptr;
       },
       CUBLAS_STATUS_NOT_INITIALIZED},
      {"TransaInvalid", [](GemmArgs& x) { x.transa = kBadOp; }, CUBLAS_STATUS_INVALID_VALUE},
      {"TransbInvalid", [](GemmArgs& x) { x.transb = kBadOp; }, CUBLAS_STATUS_INVALID_VALUE},
      {"MNegative", [](GemmArgs& x) { x.m = -1; }, CUBLAS_STATUS_INVALID_VALUE},
      {"NNegative", [](GemmArgs& x) { x.n = -1; }, CUBLAS_STATUS_INVALID_VALUE},
      {"KNegative", [](GemmArgs& x) { x.k = -1; }, CUBLAS_STATUS_INVALID_VALUE},
      {"NegativeMBeforeEmpty",
       [](GemmArgs& x) {
         x.m = -1;
         x.n = 0;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdaBelowMForOpN", [](GemmArgs& x) { x.lda = 3; }, CUBLAS_STATUS_INVALID_VALUE},
      {"LdaBelowKForOpT",
       [](GemmArgs& x) {
         x.transa = CUBLAS_OP_T;
         x.lda = 5;  // >= m, < k
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdaBelowKForOpC",
       [](GemmArgs& x) {
         x.transa = CUBLAS_OP_C;
         x.lda = 5;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdbBelowKForOpN", [](GemmArgs& x) { x.ldb = 5; }, CUBLAS_STATUS_INVALID_VALUE},
      {"LdbBelowNForOpT",
       [](GemmArgs& x) {
         x.transb = CUBLAS_OP_T;
         x.ldb = 4;  // < n = 5
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdcBelowM", [](GemmArgs& x) { x.ldc = 3; }, CUBLAS_STATUS_INVALID_VALUE},
      {"LdaZeroWithMZero",
       [](GemmArgs& x) {
         x.m = 0;
         x.lda = 0;
         x.ldc = 1;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdbZeroWithKZero",
       [](GemmArgs& x) {
         x.k = 0;
         x.ldb = 0;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"LdcZeroWithMZero",
       [](GemmArgs& x) {
         x.m = 0;
         x.lda = 1;
         x.ldc = 0;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"AlphaNull", [](GemmArgs& x) { x.alpha = nullptr; }, CUBLAS_STATUS_INVALID_VALUE},
      {"BetaNull", [](GemmArgs& x) { x.beta = nullptr; }, CUBLAS_STATUS_INVALID_VALUE},
      // Quick returns, with every leading dimension at its minimum max(1, rows).
      {"MZeroMinimalLeadingDims",
       [](GemmArgs& x) {
         x.m = 0;
         x.lda = 1;
         x.ldc = 1;
       },
       CUBLAS_STATUS_SUCCESS},
      {"NZero", [](GemmArgs& x) { x.n = 0; }, CUBLAS_STATUS_SUCCESS},
      {"NZeroOpTMinimalLeadingDims",
       [](GemmArgs& x) {
         x.transa = CUBLAS_OP_T;
         x.transb = CUBLAS_OP_T;
         x.m = 8;
         x.n = 0;
         x.lda = 6;  // k: op T needs k rows, not m
         x.ldb = 1;  // max(1, n)
         x.ldc = 8;
       },
       CUBLAS_STATUS_SUCCESS},
      {"MZeroKZero",
       [](GemmArgs& x) {
         x.m = 0;
         x.k = 0;
         x.lda = 1;
         x.ldb = 1;
         x.ldc = 1;
       },
       CUBLAS_STATUS_SUCCESS},
      {"EmptyWithNullMatrices",  // nothing to read or write: the matrices are never needed
       [](GemmArgs& x) {
         x.m = 0;
         x.lda = 1;
         x.ldc = 1;
         x.a = x.b = nullptr;
         x.c = nullptr;
       },
       CUBLAS_STATUS_SUCCESS},
  };
  return v;
}

std::vector<std::string> case_names(const std::vector<Case>& list = cases()) {
  std::vector<std::string> v;
  for (const Case& c : list) v.push_back(c.name);
  return v;
}

const Case& case_named(const std::string& n, const std::vector<Case>& list = cases()) {
  for (const Case& c : list)
    if (n == c.name) return c;
  throw std::invalid_argument(n);
}

// The call every case edits: m=4 n=5 k=6, N N, lda=4 ldb=6 ldc=4 (batched: GemmArgs' strides, 3 entries).
GemmArgs valid_call(const Scalar& one, const Scalar& zero) {
  GemmArgs x;
  x.m = 4;
  x.n = 5;
  x.k = 6;
  x.lda = 4;
  x.ldb = 6;
  x.ldc = 4;
  x.alpha = one.ptr();
  x.beta = zero.ptr();
  return x;
}

// ptxblas answered the call itself: `expect`'s status, an empty product counted as served, an
// error as neither; the handle never queried, cuBLAS never called.
void expect_settled_by_ptxblas(const EntrySpec& e, cublasStatus_t s, cublasStatus_t expect, const std::string& what,
                               const Counters& before, std::uint64_t queries0, std::uint64_t gemms0) {
  const FakeCublas& cublas = fake_cublas();
  const Counters after = counters();
  EXPECT_EQ(status_name(s), status_name(expect));
  if (expect == CUBLAS_STATUS_SUCCESS) {
    // A batch's record may name batchCount too.
    if (e.batched)
      EXPECT_EQ(what.rfind("empty (", 0), 0u) << what;
    else
      EXPECT_EQ(what, "empty (m or n is 0)");
    EXPECT_EQ(after.served, before.served + 1);
  } else {
    EXPECT_EQ(what, "error: " + status_name(expect));
    EXPECT_EQ(after.served, before.served);
  }
  EXPECT_EQ(after.forwarded, before.forwarded);
  EXPECT_EQ(cublas.handle_queries, queries0) << "the handle was queried before validation finished";
  EXPECT_EQ(cublas.gemm_calls, gemms0) << "a rejected or empty call reached cuBLAS";
}

class Validation : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Validation, StatusAndBookkeeping) {
  const EntrySpec& e = gemm_entry(std::get<0>(GetParam()));
  const Case& c = case_named(std::get<1>(GetParam()));
  const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
  GemmArgs x = valid_call(one, zero);
  c.edit(x);

  FakeCublas& cublas = fake_cublas();
  const std::uint64_t queries0 = cublas.handle_queries, gemms0 = cublas.gemm_calls;
  const Counters before = counters();
  const cublasStatus_t s = call_gemm(e, x);
  expect_settled_by_ptxblas(e, s, c.expect, last_call(), before, queries0, gemms0);
}

INSTANTIATE_TEST_SUITE_P(AllEntries, Validation,
                         ::testing::Combine(::testing::ValuesIn(gemm_entry_names()), ::testing::ValuesIn(case_names())),
                         [](const auto& info) { return std::get<0>(info.param) + "__" + std::get<1>(info.param); });

// cublas?gemmBatched: the same argument checks, before anything else (the arrays of pointers are
// device memory, not read to judge them).
INSTANTIATE_TEST_SUITE_P(PointerArrayEntries, Validation,
                         ::testing::Combine(::testing::ValuesIn(pointer_gemm_entry_names()),
                                            ::testing::ValuesIn(case_names())),
                         [](const auto& info) { return std::get<0>(info.param) + "__" + std::get<1>(info.param); });

// batchCount's own cases on the batched entries (strided, then arrays of pointers), from the same
// valid call.
const std::vector<Case>& batch_cases() {
  static const std::vector<Case> v = {
      {"BatchNegative", [](GemmArgs& x) { x.batch = -1; }, CUBLAS_STATUS_INVALID_VALUE},
      {"BatchNegativeWithMZero",  // an error even where the product is empty
       [](GemmArgs& x) {
         x.batch = -1;
         x.m = 0;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"BatchNegativeWithMNegative",
       [](GemmArgs& x) {
         x.batch = -1;
         x.m = -1;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"NullHandleBeforeBatchNegative",
       [](GemmArgs& x) {
         x.handle = nullptr;
         x.batch = -1;
       },
       CUBLAS_STATUS_NOT_INITIALIZED},
      {"BatchZero", [](GemmArgs& x) { x.batch = 0; }, CUBLAS_STATUS_SUCCESS},
      {"BatchZeroWithNullMatrices",
       [](GemmArgs& x) {
         x.batch = 0;
         x.a = x.b = nullptr;
         x.c = nullptr;
       },
       CUBLAS_STATUS_SUCCESS},
      {"BatchZeroStillChecksLda",
       [](GemmArgs& x) {
         x.batch = 0;
         x.lda = 3;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"BatchZeroStillChecksAlpha",
       [](GemmArgs& x) {
         x.batch = 0;
         x.alpha = nullptr;
       },
       CUBLAS_STATUS_INVALID_VALUE},
      {"BatchOneMZero",
       [](GemmArgs& x) {
         x.batch = 1;
         x.m = 0;
       },
       CUBLAS_STATUS_SUCCESS},
  };
  return v;
}

class BatchValidation : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(BatchValidation, StatusAndBookkeeping) {
  const EntrySpec& e = gemm_entry(std::get<0>(GetParam()));
  const Case& c = case_named(std::get<1>(GetParam()), batch_cases());
  const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
  GemmArgs x = valid_call(one, zero);
  c.edit(x);

  FakeCublas& cublas = fake_cublas();
  const std::uint64_t queries0 = cublas.handle_queries, gemms0 = cublas.gemm_calls;
  const Counters before = counters();
  const cublasStatus_t s = call_gemm(e, x);
  expect_settled_by_ptxblas(e, s, c.expect, last_call(), before, queries0, gemms0);
}

INSTANTIATE_TEST_SUITE_P(BatchedEntries, BatchValidation,
                         ::testing::Combine(::testing::ValuesIn(batched_gemm_entry_names()),
                                            ::testing::ValuesIn(case_names(batch_cases()))),
                         [](const auto& info) { return std::get<0>(info.param) + "__" + std::get<1>(info.param); });

INSTANTIATE_TEST_SUITE_P(PointerArrayEntries, BatchValidation,
                         ::testing::Combine(::testing::ValuesIn(pointer_gemm_entry_names()),
                                            ::testing::ValuesIn(case_names(batch_cases()))),
                         [](const auto& info) { return std::get<0>(info.param) + "__" + std::get<1>(info.param); });

}  // namespace
}  // namespace cpushim
