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
  std::string name;    // gtest-safe: "Sgemm_v2_64", "GemmEx_R16F_Compute32F", "SgemmStridedBatched", ...
  std::string symbol;  // the exported cuBLAS name
  Scal scal;
  bool ex = false;     // GemmEx / GemmStridedBatchedEx and their _64: the types below are passed
  cudaDataType type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  bool batched = false;  // a batched entry: GemmArgs' batch is passed (and, unless `pointers`, its strides)
  bool pointers = false; // cublas?gemmBatched[_64]: GemmArgs' a, b and c are passed as Aarray, Barray, Carray
};

// The 10 typed entries, cublasGemmEx and cublasGemmEx_64 once per served type combination, then
// the same for the strided-batched entries (cublas?gemmStridedBatched[_64],
// cublasGemmStridedBatchedEx[_64]), then the 8 pointer-array entries (cublas{S,D,C,Z}gemmBatched
// and their _64 forms; cublasHgemmBatched and cublasGemmBatchedEx are not ptxblas's).
const std::vector<EntrySpec>& gemm_entries();
std::vector<std::string> gemm_entry_names();          // all but the pointer-array ones
std::vector<std::string> batched_gemm_entry_names();  // the strided-batched ones only
std::vector<std::string> pointer_gemm_entry_names();  // the pointer-array ones only ("SgemmBatched", ...)
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
  // Strided-batched entries only (the others ignore them): each operand's stride in elements, all
  // apart (C's entries do not overlap), and batchCount (pointer-array entries: batchCount, with a,
  // b and c standing for the device arrays of pointers, which the CPU tests never dereference).
  long long stride_a = 1 << 12, stride_b = 1 << 13, stride_c = 1 << 14;
  std::int64_t batch = 3;
};

// Calls e's entry point in libptxblas.so (32-bit entries get the sizes narrowed). An entry point
// the library does not export fails the calling test and returns CUBLAS_STATUS_NOT_SUPPORTED.
cublasStatus_t call_gemm(const EntrySpec& e, const GemmArgs& x, cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT);

// cublasGemmEx, cublasGemmStridedBatchedEx or their _64 forms (`symbol`) in libptxblas.so with
// any type combination.
cublasStatus_t call_ex(const std::string& symbol, const GemmArgs& x, cudaDataType at, cudaDataType bt,
                       cudaDataType ct, cublasComputeType_t compute, cublasGemmAlgo_t algo);

}  // namespace cpushim
