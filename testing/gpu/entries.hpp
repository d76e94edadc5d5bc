// The GEMM entry points under test: each as ptxblas's (dlsym'ed from libptxblas.so) and as the
// real cuBLAS's (linked), behind one signature with 64-bit sizes and untyped data.
#pragma once

#include <cublas_v2.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gputest {

enum class Elem { F16, BF16, F32, F64, C32, C64 };  // storage type of A, B, C
enum class Scal { F16, F32, F64, C32, C64 };        // storage type of alpha, beta

using GemmFn = std::function<cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, std::int64_t,
                                            std::int64_t, std::int64_t, const void*, const void*, std::int64_t,
                                            const void*, std::int64_t, const void*, void*, std::int64_t)>;

struct Entry {
  std::string name;     // gtest-safe, e.g. "Sgemm_64" or "GemmEx_R16F_C32F"
  Elem elem;
  Scal scal;
  bool compute_f16;     // COMPUTE_16F: cuBLAS may accumulate in half precision
  GemmFn ptx, real;
};

// All 12 exported entry points, GemmEx and GemmEx_64 once per served type combination.
const std::vector<Entry>& all_entries();
const Entry& entry_named(const std::string& name);
std::vector<std::string> entry_names();

bool is_complex(Elem e);
std::size_t elem_bytes(Elem e);
std::size_t scal_bytes(Scal s);

}  // namespace gputest
