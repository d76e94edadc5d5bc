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

// The strided-batched entry points (cublas?gemmStridedBatched, cublasGemmStridedBatchedEx and
// their _64 forms): a GemmFn's arguments with each operand's stride (elements) after its leading
// dimension, and the batch count last.
using BatchedFn = std::function<cublasStatus_t(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, std::int64_t, std::int64_t, std::int64_t, const void*,
    const void*, std::int64_t, long long, const void*, std::int64_t, long long, const void*, void*, std::int64_t,
    long long, std::int64_t)>;

struct BatchedEntry {
  std::string name;    // gtest-safe, e.g. "SgemmStridedBatched_64" or "GemmStridedBatchedEx_R16BF_C32F"
  std::string symbol;  // the cuBLAS name, e.g. "cublasGemmStridedBatchedEx"
  Elem elem;
  Scal scal;
  bool compute_f16;
  BatchedFn ptx;       // empty where libptxblas.so does not export `symbol`
  BatchedFn real;
  // The types as the single-GEMM helpers (reference(), describe()) take them.
  Entry types() const { return Entry{name, elem, scal, compute_f16, {}, {}}; }
};

// The 10 typed strided-batched entries, then cublasGemmStridedBatchedEx and its _64 form once per
// type combination served for GemmEx.
const std::vector<BatchedEntry>& batched_entries();
const BatchedEntry& batched_entry_named(const std::string& name);
std::vector<std::string> batched_entry_names();
// cublasGemmStridedBatchedEx (or _64) with one data type for A, B and C and any compute type,
// named "GemmStridedBatchedEx[_64]_<tag>" (also for combinations ptxblas forwards).
BatchedEntry batched_ex_entry(bool is64, const std::string& tag, cudaDataType type, cublasComputeType_t comp,
                              Elem elem, Scal scal);

// The pointer-array batched entry points (cublas{S,D,C,Z}gemmBatched and their _64 forms): a
// GemmFn's arguments with A, B and C as device arrays of the entries' device pointers (Aarray,
// Barray, Carray), batchCount last. (cublasHgemmBatched and cublasGemmBatchedEx are cuBLAS's.)
using PointerBatchedFn = std::function<cublasStatus_t(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, std::int64_t, std::int64_t, std::int64_t, const void*,
    const void* const*, std::int64_t, const void* const*, std::int64_t, const void*, void* const*, std::int64_t,
    std::int64_t)>;

struct PointerBatchedEntry {
  std::string name;    // the symbol without "cublas": "SgemmBatched", "ZgemmBatched_64"
  std::string symbol;  // "cublasSgemmBatched"
  Elem elem;
  Scal scal;
  PointerBatchedFn ptx;  // empty where libptxblas.so does not export `symbol`
  PointerBatchedFn real;
  Entry types() const { return Entry{name, elem, scal, false, {}, {}}; }
};

// S, D, C, Z, then their _64 forms.
const std::vector<PointerBatchedEntry>& pointer_batched_entries();
const PointerBatchedEntry& pointer_batched_entry_named(const std::string& name);
std::vector<std::string> pointer_batched_entry_names();

bool is_complex(Elem e);
std::size_t elem_bytes(Elem e);
std::size_t scal_bytes(Scal s);

}  // namespace gputest
