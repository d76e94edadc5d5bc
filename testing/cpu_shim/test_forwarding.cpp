// Calls ptxblas does not run itself go to the real cuBLAS unchanged, with ptxblas's status being
// cuBLAS's and the call counted as forwarded. The "real cuBLAS" is the stand-in (fake_cublas.h):
// the real one would dereference the tests' fake handle. Without a GPU every valid GEMM is
// forwarded: the handle is refused, or there is no driver / no CUDA context.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "gemm_entries.hpp"
#include "shim_loader.hpp"
#include "status_names.hpp"

namespace cpushim {
namespace {

// What the stand-in's GEMMs return: an error, so passing it through is visible.
constexpr cublasStatus_t kCublasSays = CUBLAS_STATUS_ARCH_MISMATCH;

void configure(FakeCublas& f, cublasStatus_t handle_status, int math = CUBLAS_DEFAULT_MATH) {
  f.handle_status = handle_status;
  f.stream = nullptr;
  f.pointer_mode = CUBLAS_POINTER_MODE_HOST;
  f.math_mode = math;
  f.gemm_status = kCublasSays;
}

// A valid call whose every argument differs from the others, so a mix-up shows.
GemmArgs valid_call(const Scalar& alpha, const Scalar& beta) {
  GemmArgs x;
  x.transa = CUBLAS_OP_T;
  x.transb = CUBLAS_OP_C;
  x.m = 4;
  x.n = 5;
  x.k = 6;
  x.lda = 7;  // >= k
  x.ldb = 8;  // >= n
  x.ldc = 9;  // >= m
  x.alpha = alpha.ptr();
  x.beta = beta.ptr();
  x.stride_a = 1001;  // strided-batched entries: C's entries apart (>= ldc * n)
  x.stride_b = 1002;
  x.stride_c = 1003;
  x.batch = 10;
  return x;
}

bool is_strided(const std::string& symbol) { return symbol.find("StridedBatched") != std::string::npos; }
// Strided or pointer-array (cublas?gemmBatched) entries: batchCount passed on.
bool is_batched(const std::string& symbol) { return symbol.find("Batched") != std::string::npos; }

void expect_same_call(const FakeCublasCall& got, const std::string& symbol, const GemmArgs& x) {
  EXPECT_EQ(std::string(got.entry), symbol);
  EXPECT_EQ(got.handle, static_cast<const void*>(x.handle));
  EXPECT_EQ(got.transa, x.transa);
  EXPECT_EQ(got.transb, x.transb);
  EXPECT_EQ(got.m, x.m);
  EXPECT_EQ(got.n, x.n);
  EXPECT_EQ(got.k, x.k);
  EXPECT_EQ(got.lda, x.lda);
  EXPECT_EQ(got.ldb, x.ldb);
  EXPECT_EQ(got.ldc, x.ldc);
  EXPECT_EQ(got.alpha, x.alpha);
  EXPECT_EQ(got.a, x.a);
  EXPECT_EQ(got.b, x.b);
  EXPECT_EQ(got.beta, x.beta);
  EXPECT_EQ(got.c, x.c);
  if (is_strided(symbol)) {
    EXPECT_EQ(got.stride_a, x.stride_a);
    EXPECT_EQ(got.stride_b, x.stride_b);
    EXPECT_EQ(got.stride_c, x.stride_c);
  }
  if (is_batched(symbol)) {
    EXPECT_EQ(got.batch, x.batch);
  }
}

void expect_same_ex(const FakeCublasCall& got, cudaDataType at, cudaDataType bt, cudaDataType ct,
                    cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  EXPECT_EQ(got.atype, at);
  EXPECT_EQ(got.btype, bt);
  EXPECT_EQ(got.ctype, ct);
  EXPECT_EQ(got.compute, compute);
  EXPECT_EQ(got.algo, algo);
}

// Why a valid call with a readable handle is forwarded on this machine: decided in dispatch.
void expect_dispatch_reason(const std::string& what) {
  if (ptxblas_disable_set()) {
    EXPECT_EQ(what, "forwarded: PTXBLAS_DISABLE is set");
  } else if (!driver_loadable()) {
    EXPECT_EQ(what, "forwarded: no CUDA driver (libcuda.so.1 not found)");
  } else {  // a driver but no GPU (cuInit fails), or no current context (the tests create none)
    EXPECT_EQ(what.rfind("forwarded: ", 0), 0u) << what;
    EXPECT_NE(what, "forwarded: handle state unreadable");
    EXPECT_NE(what, "forwarded: pedantic math mode with f16 compute");
  }
}

// Calls entry e with x and checks that cuBLAS got exactly that call, once, that its status came
// back and that the call counted as forwarded, not served; returns ptxblas's record of the call.
std::string expect_forwarded_as_given(const EntrySpec& e, const GemmArgs& x) {
  FakeCublas& f = fake_cublas();
  const std::uint64_t gemms0 = f.gemm_calls;
  const Counters before = counters();
  const cublasStatus_t s = call_gemm(e, x);
  const std::string what = last_call();
  const Counters after = counters();
  EXPECT_EQ(status_name(s), status_name(kCublasSays)) << "cuBLAS's status not passed through";
  EXPECT_EQ(f.gemm_calls, gemms0 + 1) << what;
  if (f.gemm_calls != gemms0 + 1) return what;  // f.last is not this call
  expect_same_call(f.last, e.symbol, x);
  if (e.ex) expect_same_ex(f.last, e.type, e.type, e.type, e.compute, CUBLAS_GEMM_DEFAULT);
  EXPECT_EQ(after.forwarded, before.forwarded + 1);
  EXPECT_EQ(after.served, before.served);
  return what;
}

class Forwarding : public ::testing::TestWithParam<std::string> {
 protected:
  void call_and_check(const GemmArgs& x, const std::function<void(const std::string&)>& check_reason,
                      bool expect_handle_read) {
    const std::uint64_t queries0 = fake_cublas().handle_queries;
    check_reason(expect_forwarded_as_given(gemm_entry(GetParam()), x));
    if (expect_handle_read && !ptxblas_disable_set()) {
      EXPECT_GT(fake_cublas().handle_queries, queries0);
    }
  }
};

// cuBLAS refuses the handle (as a stand-in for any unreadable handle state): forwarded.
TEST_P(Forwarding, HandleRefused) {
  const EntrySpec& e = gemm_entry(GetParam());
  configure(fake_cublas(), CUBLAS_STATUS_NOT_INITIALIZED);
  const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
  call_and_check(
      valid_call(one, zero),
      [](const std::string& what) {
        EXPECT_EQ(what, ptxblas_disable_set() ? "forwarded: PTXBLAS_DISABLE is set"
                                              : "forwarded: handle state unreadable");
      },
      true);
}

// A readable handle, no GPU: dispatch declines (no driver, cuInit fails, or no context) and the
// call is forwarded; nothing crashes.
TEST_P(Forwarding, NoDriverOrContext) {
  const EntrySpec& e = gemm_entry(GetParam());
  configure(fake_cublas(), CUBLAS_STATUS_SUCCESS);
  const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
  call_and_check(valid_call(one, zero), expect_dispatch_reason, true);
}

// Pedantic math prescribes f16 arithmetic for f16 compute, which ptxblas does not do: those
// calls are forwarded at once; the others go on to dispatch. Extra math-mode flag bits do not
// hide the pedantic mode.
TEST_P(Forwarding, PedanticMath) {
  if (ptxblas_disable_set()) GTEST_SKIP() << "PTXBLAS_DISABLE is set";
  const EntrySpec& e = gemm_entry(GetParam());
  const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
  for (int math : {static_cast<int>(CUBLAS_PEDANTIC_MATH),
                   CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION}) {
    SCOPED_TRACE("math mode " + std::to_string(math));
    configure(fake_cublas(), CUBLAS_STATUS_SUCCESS, math);
    if (e.scal == Scal::F16)
      call_and_check(
          valid_call(one, zero),
          [](const std::string& what) { EXPECT_EQ(what, "forwarded: pedantic math mode with f16 compute"); }, true);
    else
      call_and_check(valid_call(one, zero), expect_dispatch_reason, true);
  }
}

INSTANTIATE_TEST_SUITE_P(AllEntries, Forwarding, ::testing::ValuesIn(gemm_entry_names()),
                         [](const auto& info) { return info.param; });

// cublas?gemmBatched: a, b and c are the arrays of pointers, which must reach cuBLAS as given.
INSTANTIATE_TEST_SUITE_P(PointerArrayEntries, Forwarding, ::testing::ValuesIn(pointer_gemm_entry_names()),
                         [](const auto& info) { return info.param; });

struct ExCase {
  const char* what;
  cudaDataType at, bt, ct;
  cublasComputeType_t compute;
  cublasGemmAlgo_t algo;
  const char* reason;  // last_call()
};

// The four entry points that take types: cublasGemmEx, cublasGemmStridedBatchedEx, their _64 forms.
const char* const kExSymbols[] = {"cublasGemmEx", "cublasGemmEx_64", "cublasGemmStridedBatchedEx",
                                  "cublasGemmStridedBatchedEx_64"};

// GemmEx combinations ptxblas does not serve go straight to cuBLAS: no validation of its own, no
// handle query (strided-batched: strides and batch count as given).
TEST(ForwardingGemmEx, UnservedCombinations) {
  const char* kCombo = "forwarded: GemmEx type/compute combination not served";
  const ExCase cases[] = {
      {"TF32 compute", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT, kCombo},
      {"pedantic f32 compute", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT,
       kCombo},
      {"f16 in, f32 out", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, kCombo},
      {"A and B differ", CUDA_R_16F, CUDA_R_16BF, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, kCombo},
      {"int8", CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT, kCombo},
      {"f64 data, f32 compute", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, kCombo},
      {"explicit algorithm", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_ALGO0,
       "forwarded: explicit algorithm requested"},
      {"explicit tensor-op algorithm", CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUBLAS_COMPUTE_64F,
       CUBLAS_GEMM_ALGO3_TENSOR_OP, "forwarded: explicit algorithm requested"},
  };
  FakeCublas& f = fake_cublas();
  configure(f, CUBLAS_STATUS_NOT_INITIALIZED);
  const double scalars[4] = {1, 0, 0, 0};  // large enough for every scalar type
  for (const char* symbol : kExSymbols) {
    for (const ExCase& c : cases) {
      SCOPED_TRACE(std::string(symbol) + ": " + c.what);
      GemmArgs x;
      x.alpha = &scalars[0];
      x.beta = &scalars[2];
      x.stride_c = 0;  // overlapping C entries: still cuBLAS's to judge
      const std::uint64_t gemms0 = f.gemm_calls, queries0 = f.handle_queries;
      const Counters before = counters();
      const cublasStatus_t s = call_ex(symbol, x, c.at, c.bt, c.ct, c.compute, c.algo);
      const Counters after = counters();
      EXPECT_EQ(status_name(s), status_name(kCublasSays));
      EXPECT_EQ(last_call(), c.reason);
      ASSERT_EQ(f.gemm_calls, gemms0 + 1);
      expect_same_call(f.last, symbol, x);
      expect_same_ex(f.last, c.at, c.bt, c.ct, c.compute, c.algo);
      EXPECT_EQ(f.handle_queries, queries0);
      EXPECT_EQ(after.forwarded, before.forwarded + 1);
      EXPECT_EQ(after.served, before.served);
    }
  }
}

// Unserved combinations leave argument checks to cuBLAS: even a null handle is passed on (and a
// negative batchCount).
TEST(ForwardingGemmEx, UnservedCombinationIsNotValidatedByPtxblas) {
  FakeCublas& f = fake_cublas();
  configure(f, CUBLAS_STATUS_NOT_INITIALIZED);
  const float one = 1, zero = 0;
  for (const char* symbol : kExSymbols) {
    SCOPED_TRACE(symbol);
    GemmArgs x;
    x.handle = nullptr;
    x.m = -1;
    x.alpha = &one;
    x.beta = &zero;
    x.batch = -1;
    const std::uint64_t gemms0 = f.gemm_calls;
    const cublasStatus_t s =
        call_ex(symbol, x, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    EXPECT_EQ(status_name(s), status_name(kCublasSays));
    ASSERT_EQ(f.gemm_calls, gemms0 + 1);
    EXPECT_EQ(f.last.handle, nullptr);
    EXPECT_EQ(f.last.m, -1);
    if (is_batched(symbol)) {
      EXPECT_EQ(f.last.batch, -1);
    }
  }
}

// Strided batches whose C entries overlap (strideC < ldc * n; 0: one C for all) are valid cuBLAS
// calls that ptxblas does not run: forwarded, every argument as given.
TEST(ForwardingBatched, OverlappingCEntries) {
  FakeCublas& f = fake_cublas();
  for (const std::string& name : batched_gemm_entry_names()) {
    const EntrySpec& e = gemm_entry(name);
    const Scalar one = scalar(e.scal, 1), zero = scalar(e.scal, 0);
    for (long long stride_c : {0ll, 9ll * 5 - 1}) {
      SCOPED_TRACE(name + " strideC " + std::to_string(stride_c));
      configure(f, CUBLAS_STATUS_SUCCESS);
      GemmArgs x = valid_call(one, zero);
      x.stride_c = stride_c;
      const std::string what = expect_forwarded_as_given(e, x);
      EXPECT_EQ(what.rfind("forwarded: ", 0), 0u) << what;
    }
  }
}

// Pointer-array batches ptxblas does not run here (handle refused; readable handle but no GPU)
// reach cuBLAS with every argument as given: more entries than one grid holds (70000), batch
// count 1, 2 and a _64 form's sizes. The arrays of pointers are fake addresses: never read.
TEST(ForwardingPointerArrays, ArgumentsIntact) {
  FakeCublas& f = fake_cublas();
  for (const std::string& name : pointer_gemm_entry_names()) {
    const EntrySpec& e = gemm_entry(name);
    const Scalar alpha = scalar(e.scal, -1.5, 0.25), beta = scalar(e.scal, 0.5, -1);
    for (int handle_status : {CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS})
      for (std::int64_t batch : {1, 2, 70000}) {
        SCOPED_TRACE(name + " batch " + std::to_string(batch) + " handle status " + std::to_string(handle_status));
        configure(f, static_cast<cublasStatus_t>(handle_status));
        GemmArgs x = valid_call(alpha, beta);
        x.transa = CUBLAS_OP_N;
        x.transb = CUBLAS_OP_T;
        x.m = 33;
        x.n = 17;
        x.k = 45;
        x.lda = 40;  // >= m
        x.ldb = 18;  // >= n
        x.ldc = 35;  // >= m
        x.a = fake_ptr(0x7A0010);
        x.b = fake_ptr(0x7B0020);
        x.c = fake_ptr(0x7C0030);
        x.batch = batch;
        const std::uint64_t gemms0 = f.gemm_calls;
        const std::string what = expect_forwarded_as_given(e, x);
        EXPECT_EQ(what.rfind("forwarded: ", 0), 0u) << what;
        ASSERT_EQ(f.gemm_calls, gemms0 + 1) << what;
        EXPECT_EQ(f.last.stride_a, 0);
        EXPECT_EQ(f.last.stride_c, 0);
        EXPECT_EQ(f.last.atype, -1);
      }
  }
}

// CUBLAS_GEMM_DEFAULT_TENSOR_OP counts as the default algorithm: the call takes the serving path
// (here: refused handle, so forwarded for that reason) and reaches cuBLAS with the algorithm as given.
TEST(ForwardingGemmEx, DefaultTensorOpTakesTheServingPath) {
  FakeCublas& f = fake_cublas();
  configure(f, CUBLAS_STATUS_NOT_INITIALIZED);
  const float one = 1, zero = 0;
  GemmArgs x;
  x.alpha = &one;
  x.beta = &zero;
  for (const char* symbol : kExSymbols) {
    SCOPED_TRACE(symbol);
    const std::uint64_t gemms0 = f.gemm_calls;
    const cublasStatus_t s =
        call_ex(symbol, x, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
    EXPECT_EQ(status_name(s), status_name(kCublasSays));
    EXPECT_EQ(last_call(), ptxblas_disable_set() ? "forwarded: PTXBLAS_DISABLE is set"
                                                 : "forwarded: handle state unreadable");
    ASSERT_EQ(f.gemm_calls, gemms0 + 1);
    EXPECT_EQ(f.last.algo, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  }
}

[[noreturn]] void quit(int code, const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::exit(code);
}

// Runs in a fresh process, so that PTXBLAS_DISABLE is read for the first time after setenv.
void disabled_call() {
  setenv("PTXBLAS_DISABLE", "1", 1);
  FakeCublas& f = fake_cublas();
  configure(f, CUBLAS_STATUS_SUCCESS);
  const float one = 1, zero = 0;
  GemmArgs x;
  x.alpha = &one;
  x.beta = &zero;
  const cublasStatus_t s = call_gemm(gemm_entry("Sgemm_v2"), x);
  if (s != kCublasSays) quit(3, "status " + status_name(s));
  if (last_call() != "forwarded: PTXBLAS_DISABLE is set") quit(4, "last call: " + last_call());
  if (f.gemm_calls != 1) quit(5, "cuBLAS GEMM calls: " + std::to_string(f.gemm_calls));
  if (f.handle_queries != 0) quit(6, "handle queried although disabled");
  // Rejections still come from ptxblas.
  x.m = -1;
  if (call_gemm(gemm_entry("Sgemm_v2"), x) != CUBLAS_STATUS_INVALID_VALUE) quit(7, "m < 0 not rejected");
  std::exit(0);
}

TEST(ForwardingDeathTest, PtxblasDisableForwardsEveryValidCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(disabled_call(), ::testing::ExitedWithCode(0), "");
}

// The same for the pointer-array entries, in a fresh process: each valid call forwarded with its
// arguments intact and the handle never read; batchCount < 0 and the GEMM errors still rejected
// by ptxblas, batchCount 0 still answered by it, neither reaching cuBLAS.
void disabled_pointer_array_calls() {
  setenv("PTXBLAS_DISABLE", "1", 1);
  FakeCublas& f = fake_cublas();
  configure(f, CUBLAS_STATUS_SUCCESS);
  std::uint64_t gemms = f.gemm_calls;
  for (const std::string& name : pointer_gemm_entry_names()) {
    const EntrySpec& e = gemm_entry(name);
    const Scalar alpha = scalar(e.scal, 2, -1), beta = scalar(e.scal, 0.5);
    GemmArgs x = valid_call(alpha, beta);
    x.a = fake_ptr(0xAA00);
    x.b = fake_ptr(0xBB00);
    x.c = fake_ptr(0xCC00);
    x.batch = 70000;
    const cublasStatus_t s = call_gemm(e, x);
    if (s != kCublasSays) quit(3, name + ": status " + status_name(s));
    if (last_call() != "forwarded: PTXBLAS_DISABLE is set") quit(4, name + ": last call: " + last_call());
    if (f.gemm_calls != ++gemms) quit(5, name + ": cuBLAS GEMM calls: " + std::to_string(f.gemm_calls));
    const FakeCublasCall& c = f.last;
    if (std::string(c.entry) != e.symbol || c.handle != x.handle || c.transa != x.transa || c.transb != x.transb ||
        c.m != x.m || c.n != x.n || c.k != x.k || c.lda != x.lda || c.ldb != x.ldb || c.ldc != x.ldc ||
        c.alpha != x.alpha || c.beta != x.beta || c.a != x.a || c.b != x.b || c.c != x.c || c.batch != x.batch)
      quit(6, name + ": arguments changed on the way to cuBLAS");
    if (f.handle_queries != 0) quit(7, name + ": handle queried although disabled");
    GemmArgs bad = x;
    bad.batch = -1;
    if (call_gemm(e, bad) != CUBLAS_STATUS_INVALID_VALUE) quit(8, name + ": batchCount < 0 not rejected");
    bad = x;
    bad.ldc = x.m - 1;
    if (call_gemm(e, bad) != CUBLAS_STATUS_INVALID_VALUE) quit(9, name + ": ldc < m not rejected");
    bad = x;
    bad.batch = 0;
    if (call_gemm(e, bad) != CUBLAS_STATUS_SUCCESS) quit(10, name + ": batchCount 0 not a success");
    if (f.gemm_calls != gemms) quit(11, name + ": a rejected or empty call reached cuBLAS");
  }
  std::exit(0);
}

TEST(ForwardingDeathTest, PtxblasDisableForwardsPointerArrayCalls) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(disabled_pointer_array_calls(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cpushim
