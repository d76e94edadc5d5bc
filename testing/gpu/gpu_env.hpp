// What every GPU test needs: is there a GPU, the dlopen'ed libptxblas.so, status checks.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace gputest {

// True when a CUDA device is usable; the reason otherwise (printed once).
bool have_gpu();

// Symbol `name` from libptxblas.so (aborts the test program if the library cannot be loaded).
void* ptxblas_symbol(const char* name);
// The same, but null where the library lacks the symbol (entry points still being added: the
// test that needs one fails, the others run).
void* ptxblas_symbol_if_present(const char* name);

std::string last_call();                 // ptxblas_last_call() of this thread

// ptxblas_force_tile(spec) for this thread's GEMMs while in scope ("simt|mma ML NL U MS NS VEC KG
// STORE_PAD STAGES"); cleared however the test ends.
class ForcedTile {
 public:
  explicit ForcedTile(const std::string& spec);
  ~ForcedTile();
  ForcedTile(const ForcedTile&) = delete;
  ForcedTile& operator=(const ForcedTile&) = delete;
  bool accepted() const { return accepted_; }  // the spec parsed (legality is judged per call)

 private:
  bool accepted_ = false;
};
void counters(std::uint64_t& served, std::uint64_t& forwarded);

// Seed for this process's random data: $PTXBLAS_TEST_SEED, or fresh (and printed).
std::uint64_t test_seed();

#define SKIP_WITHOUT_GPU() \
  do {                     \
    if (!::gputest::have_gpu()) GTEST_SKIP() << "no GPU"; \
  } while (0)

#define CUDA_OK(expr)                                                                              \
  do {                                                                                             \
    const cudaError_t e_ = (expr);                                                                 \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorString(e_);                         \
  } while (0)

#define CUBLAS_OK(expr)                                                                            \
  do {                                                                                             \
    const cublasStatus_t s_ = (expr);                                                              \
    ASSERT_EQ(s_, CUBLAS_STATUS_SUCCESS) << #expr << ": " << cublasGetStatusName(s_);             \
  } while (0)

// A cuBLAS handle for one test (created and destroyed by the real cuBLAS).
class Handle {
 public:
  Handle();
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace gputest
