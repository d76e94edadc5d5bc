// The GEMM entry points libptxblas.so exports, as data (for parameterized tests; nothing is
// loaded until a call) and behind one call signature with 64-bit sizes and untyped pointers.
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cpushim {

enum class Scal { F16, F32, F64, C32, C64 };  // storage type of alpha and beta

struct EntrySpec {
  std::string name;    // gtest-safe: "Sgemm_v2_64", "GemmEx_R16F_Compute32F", ...
  std::string symbol;  // the exported cuBLAS name
  Scal scal;
  bool ex = false;     // GemmEx / GemmEx_64: the types below are passed
  cudaDataType type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};

// The 10 typed entries, then cublasGemmEx and cublasGemmEx_64 once per served type combination.
const std::vector<EntrySpec>& gemm_entries();
std::vector<std::string> gemm_entry_names();
const EntrySpec& gemm_entry(const std::string& name);

// Pointers that are never dereferenced on the paths these tests take (the call is rejected,
// returns early, or is forwarded to the stand-in cuBLAS).
inline cublasHandle_t fake_handle() { return reinterpret_cast<cublasHandle_t>(std::uintptr_t{0x1}); }
inline void* fake_ptr(std::uintptr_t addr) { return reinterpret_cast<void*>(addr); }

// alpha/beta in one of the five storage types.
struct Scalar {
  alignas(16) unsigned char bytes[16] = {};
  const void* ptr() const { return bytes; }
};
Scalar scalar(Scal s, double re, double im = 0);

struct GemmArgs {
  cublasHandle_t handle = fake_handle();
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  std::int64_t m = 4, n = 4, k = 4;
  const void* alpha = nullptr;
  const void* a = fake_ptr(0xA000);
  std::int64_t lda = 4;
  const void* b = fake_ptr(0xB000);
  std::int64_t ldb = 4;
  const void* beta = nullptr;
  void* c = fake_ptr(0xC000);
  std::int64_t ldc = 4;
};

// Calls e's entry point in libptxblas.so (32-bit entries get the sizes narrowed).
cublasStatus_t call_gemm(const EntrySpec& e, const GemmArgs& x, cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT);

// cublasGemmEx (or cublasGemmEx_64) in libptxblas.so with any type combination.
cublasStatus_t call_gemm_ex(bool is64, const GemmArgs& x, cudaDataType at, cudaDataType bt, cudaDataType ct,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo);

}  // namespace cpushim
