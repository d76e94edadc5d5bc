// libptxblas.so loads with dlopen on a machine without GPU or driver, and loading it (or asking
// it things that need no GPU) loads neither the CUDA driver nor cuBLAS: both wait for a GEMM.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "gemm_entries.hpp"
#include "ptxblas/ptxblas.h"
#include "shim_loader.hpp"

namespace cpushim {
namespace {

TEST(Loading, DlopenSucceedsWithoutDriver) {
  dlerror();  // clear any earlier error
  void* h = dlopen(library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* err = dlerror();
  ASSERT_NE(h, nullptr) << library_path() << ": " << (err ? err : "?");
  EXPECT_EQ(err, nullptr) << err;
  EXPECT_EQ(dlclose(h), 0);
}

bool loaded(const char* soname) {
  void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

[[noreturn]] void quit(int code, const char* why) {
  std::fprintf(stderr, "%s\n", why);
  std::exit(code);
}

// Runs in a fresh process (threadsafe death test): without the stand-in cuBLAS, so nothing here
// may reach a cuBLAS function.
void load_fresh_and_check() {
  void* h = dlopen(library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) quit(3, dlerror());
  if (loaded("libcuda.so.1")) quit(4, "loading libptxblas.so loaded libcuda.so.1");
  if (loaded("libcublas.so.13")) quit(5, "loading libptxblas.so loaded libcublas.so.13");

  const auto describe = reinterpret_cast<decltype(&ptxblas_describe_gemm)>(dlvsym(h, "ptxblas_describe_gemm", "PTXBLAS_0"));
  const auto sgemm = reinterpret_cast<decltype(&cublasSgemm_v2)>(dlvsym(h, "cublasSgemm_v2", "libcublas.so.13"));
  if (!describe || !sgemm) quit(6, "entry points missing");
  char buf[256];
  if (describe("S", 'N', 'N', 256, 256, 256, buf, sizeof buf) != 0) quit(7, "ptxblas_describe_gemm failed");
  const float one = 1, zero = 0;
  auto* p = static_cast<float*>(fake_ptr(0xA000));
  // Rejected (null handle) and empty (m = 0) calls return before looking for cuBLAS.
  if (sgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, p, 4, p, 4, &zero, p, 4) !=
      CUBLAS_STATUS_NOT_INITIALIZED)
    quit(8, "null handle not rejected");
  if (sgemm(fake_handle(), CUBLAS_OP_N, CUBLAS_OP_N, 0, 4, 4, &one, p, 1, p, 4, &zero, p, 1) != CUBLAS_STATUS_SUCCESS)
    quit(9, "m = 0 not a quick return");
  if (loaded("libcuda.so.1")) quit(10, "describing or rejecting a GEMM loaded libcuda.so.1");
  if (loaded("libcublas.so.13")) quit(11, "describing or rejecting a GEMM loaded libcublas.so.13");
  std::exit(0);
}

TEST(LoadingDeathTest, LoadsNeitherDriverNorCublasUntilNeeded) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(load_fresh_and_check(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cpushim
