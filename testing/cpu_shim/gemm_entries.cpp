#include "gemm_entries.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "shim_loader.hpp"

namespace cpushim {
namespace {

using GemmFn = std::function<cublasStatus_t(const GemmArgs&)>;

// T and I deduced from the cuBLAS declaration the pointer was cast to.
template <class T, class I>
GemmFn adapt(cublasStatus_t (*f)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*, const T*,
                                 I, const T*, I, const T*, T*, I)) {
  return [f](const GemmArgs& x) {
    return f(x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n), static_cast<I>(x.k),
             static_cast<const T*>(x.alpha), static_cast<const T*>(x.a), static_cast<I>(x.lda),
             static_cast<const T*>(x.b), static_cast<I>(x.ldb), static_cast<const T*>(x.beta), static_cast<T*>(x.c),
             static_cast<I>(x.ldc));
  };
}

// The strided-batched form: each operand's stride after its leading dimension, batchCount last.
template <class T, class I>
GemmFn adapt(cublasStatus_t (*f)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*, const T*,
                                 I, long long, const T*, I, long long, const T*, T*, I, long long, I)) {
  return [f](const GemmArgs& x) {
    return f(x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n), static_cast<I>(x.k),
             static_cast<const T*>(x.alpha), static_cast<const T*>(x.a), static_cast<I>(x.lda), x.stride_a,
             static_cast<const T*>(x.b), static_cast<I>(x.ldb), x.stride_b, static_cast<const T*>(x.beta),
             static_cast<T*>(x.c), static_cast<I>(x.ldc), x.stride_c, static_cast<I>(x.batch));
  };
}

// The pointer-array form (cublas?gemmBatched): a, b and c are the device arrays of the entries'
// pointers, batchCount last.
template <class T, class I>
GemmFn adapt(cublasStatus_t (*f)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                 const T* const*, I, const T* const*, I, const T*, T* const*, I, I)) {
  return [f](const GemmArgs& x) {
    return f(x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n), static_cast<I>(x.k),
             static_cast<const T*>(x.alpha), static_cast<const T* const*>(x.a), static_cast<I>(x.lda),
             static_cast<const T* const*>(x.b), static_cast<I>(x.ldb), static_cast<const T*>(x.beta),
             static_cast<T* const*>(x.c), static_cast<I>(x.ldc), static_cast<I>(x.batch));
  };
}

// Typed by cublas_api.h's own declaration of `sym`; empty where the library lacks it.
#define PTXBLAS_TYPED(sym) \
  if (symbol == #sym) return p ? adapt(reinterpret_cast<decltype(&sym)>(p)) : GemmFn{}

GemmFn resolve_typed(const std::string& symbol) {
  void* p = cublas_symbol_if_present(symbol.c_str());
  PTXBLAS_TYPED(cublasSgemm_v2);
  PTXBLAS_TYPED(cublasDgemm_v2);
  PTXBLAS_TYPED(cublasCgemm_v2);
  PTXBLAS_TYPED(cublasZgemm_v2);
  PTXBLAS_TYPED(cublasHgemm);
  PTXBLAS_TYPED(cublasSgemm_v2_64);
  PTXBLAS_TYPED(cublasDgemm_v2_64);
  PTXBLAS_TYPED(cublasCgemm_v2_64);
  PTXBLAS_TYPED(cublasZgemm_v2_64);
  PTXBLAS_TYPED(cublasHgemm_64);
  PTXBLAS_TYPED(cublasSgemmStridedBatched);
  PTXBLAS_TYPED(cublasDgemmStridedBatched);
  PTXBLAS_TYPED(cublasCgemmStridedBatched);
  PTXBLAS_TYPED(cublasZgemmStridedBatched);
  PTXBLAS_TYPED(cublasHgemmStridedBatched);
  PTXBLAS_TYPED(cublasSgemmStridedBatched_64);
  PTXBLAS_TYPED(cublasDgemmStridedBatched_64);
  PTXBLAS_TYPED(cublasCgemmStridedBatched_64);
  PTXBLAS_TYPED(cublasZgemmStridedBatched_64);
  PTXBLAS_TYPED(cublasHgemmStridedBatched_64);
  PTXBLAS_TYPED(cublasSgemmBatched);
  PTXBLAS_TYPED(cublasDgemmBatched);
  PTXBLAS_TYPED(cublasCgemmBatched);
  PTXBLAS_TYPED(cublasZgemmBatched);
  PTXBLAS_TYPED(cublasSgemmBatched_64);
  PTXBLAS_TYPED(cublasDgemmBatched_64);
  PTXBLAS_TYPED(cublasCgemmBatched_64);
  PTXBLAS_TYPED(cublasZgemmBatched_64);
  throw std::invalid_argument("not a typed GEMM entry: " + symbol);
}
#undef PTXBLAS_TYPED

template <class I>
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                    const void*, cudaDataType, I, const void*, cudaDataType, I, const void*, void*,
                                    cudaDataType, I, cublasComputeType_t, cublasGemmAlgo_t);
template <class I>
using StridedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                       const void*, cudaDataType, I, long long, const void*, cudaDataType, I,
                                       long long, const void*, void*, cudaDataType, I, long long, I,
                                       cublasComputeType_t, cublasGemmAlgo_t);
// cublas_api.h also declares C++ overloads of cublasGemmEx and cublasGemmStridedBatchedEx
// (cudaDataType compute type); these casts pick, and so check, the C signatures ptxblas exports.
static_assert(std::is_same_v<decltype(static_cast<GemmExFn<int>>(&cublasGemmEx)), GemmExFn<int>>);
static_assert(std::is_same_v<decltype(static_cast<GemmExFn<std::int64_t>>(&cublasGemmEx_64)),
                             GemmExFn<std::int64_t>>);
static_assert(std::is_same_v<decltype(static_cast<StridedExFn<int>>(&cublasGemmStridedBatchedEx)),
                             StridedExFn<int>>);
static_assert(std::is_same_v<decltype(static_cast<StridedExFn<std::int64_t>>(&cublasGemmStridedBatchedEx_64)),
                             StridedExFn<std::int64_t>>);

template <class I>
cublasStatus_t gemm_ex(void* p, const GemmArgs& x, cudaDataType at, cudaDataType bt, cudaDataType ct,
                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return reinterpret_cast<GemmExFn<I>>(p)(x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n),
                                          static_cast<I>(x.k), x.alpha, x.a, at, static_cast<I>(x.lda), x.b, bt,
                                          static_cast<I>(x.ldb), x.beta, x.c, ct, static_cast<I>(x.ldc), compute,
                                          algo);
}

template <class I>
cublasStatus_t strided_ex(void* p, const GemmArgs& x, cudaDataType at, cudaDataType bt, cudaDataType ct,
                          cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return reinterpret_cast<StridedExFn<I>>(p)(
      x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n), static_cast<I>(x.k), x.alpha, x.a, at,
      static_cast<I>(x.lda), x.stride_a, x.b, bt, static_cast<I>(x.ldb), x.stride_b, x.beta, x.c, ct,
      static_cast<I>(x.ldc), x.stride_c, static_cast<I>(x.batch), compute, algo);
}

cublasStatus_t missing(const std::string& symbol) {
  ADD_FAILURE() << "libptxblas.so does not export " << symbol << "@libcublas.so.13";
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

std::uint16_t half_bits(double v) {  // exact for the small values the tests use
  if (v == 0) return 0;
  const std::uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);  // |v| = f * 2^e, f in [0.5, 1)
  const int biased = e - 1 + 15;
  const int mant = static_cast<int>((2 * f - 1) * 1024);
  return static_cast<std::uint16_t>(sign | (biased << 10) | mant);
}

std::vector<EntrySpec> make_entries() {
  struct Typed {
    const char* name;     // the cuBLAS name without "cublas" and "_64"
    const char* batched;  // its strided-batched form
    Scal scal;
  };
  const Typed typed[] = {{"Sgemm_v2", "SgemmStridedBatched", Scal::F32},
                         {"Dgemm_v2", "DgemmStridedBatched", Scal::F64},
                         {"Cgemm_v2", "CgemmStridedBatched", Scal::C32},
                         {"Zgemm_v2", "ZgemmStridedBatched", Scal::C64},
                         {"Hgemm", "HgemmStridedBatched", Scal::F16}};
  struct Combo {
    const char* name;
    cudaDataType type;
    cublasComputeType_t compute;
    Scal scal;
  };
  // shim/cublas_gemm_ex.cpp's served combinations (A, B and C of one type).
  const Combo combos[] = {
      {"R32F_Compute32F", CUDA_R_32F, CUBLAS_COMPUTE_32F, Scal::F32},
      {"R64F_Compute64F", CUDA_R_64F, CUBLAS_COMPUTE_64F, Scal::F64},
      {"R16F_Compute16F", CUDA_R_16F, CUBLAS_COMPUTE_16F, Scal::F16},
      {"R16F_Compute32F", CUDA_R_16F, CUBLAS_COMPUTE_32F, Scal::F32},
      {"R16BF_Compute32F", CUDA_R_16BF, CUBLAS_COMPUTE_32F, Scal::F32},
      {"C32F_Compute32F", CUDA_C_32F, CUBLAS_COMPUTE_32F, Scal::C32},
      {"C64F_Compute64F", CUDA_C_64F, CUBLAS_COMPUTE_64F, Scal::C64},
  };
  std::vector<EntrySpec> v;
  for (bool batched : {false, true}) {
    for (const char* suffix : {"", "_64"})
      for (const Typed& t : typed) {
        const std::string name = std::string(batched ? t.batched : t.name) + suffix;
        v.push_back({name, "cublas" + name, t.scal, false, CUDA_R_32F, CUBLAS_COMPUTE_32F, batched});
      }
    for (const char* suffix : {"", "_64"})
      for (const Combo& c : combos) {
        const std::string sym = std::string(batched ? "GemmStridedBatchedEx" : "GemmEx") + suffix;
        v.push_back({sym + "_" + c.name, "cublas" + sym, c.scal, true, c.type, c.compute, batched});
      }
  }
  for (const char* suffix : {"", "_64"})
    for (const Typed& t : typed) {
      if (t.scal == Scal::F16) continue;  // cublasHgemmBatched goes straight to cuBLAS
      const std::string name = std::string(1, t.name[0]) + "gemmBatched" + suffix;
      v.push_back({name, "cublas" + name, t.scal, false, CUDA_R_32F, CUBLAS_COMPUTE_32F, true, true});
    }
  return v;
}

}  // namespace

const std::vector<EntrySpec>& gemm_entries() {
  static const std::vector<EntrySpec> v = make_entries();
  return v;
}

std::vector<std::string> gemm_entry_names() {
  std::vector<std::string> names;
  for (const EntrySpec& e : gemm_entries())
    if (!e.pointers) names.push_back(e.name);
  return names;
}

std::vector<std::string> batched_gemm_entry_names() {
  std::vector<std::string> names;
  for (const EntrySpec& e : gemm_entries())
    if (e.batched && !e.pointers) names.push_back(e.name);
  return names;
}

std::vector<std::string> pointer_gemm_entry_names() {
  std::vector<std::string> names;
  for (const EntrySpec& e : gemm_entries())
    if (e.pointers) names.push_back(e.name);
  return names;
}

const EntrySpec& gemm_entry(const std::string& name) {
  for (const EntrySpec& e : gemm_entries())
    if (e.name == name) return e;
  throw std::invalid_argument("no GEMM entry named " + name);
}

Scalar scalar(Scal s, double re, double im) {
  Scalar out;
  switch (s) {
    case Scal::F16: {
      const std::uint16_t h = half_bits(re);
      std::memcpy(out.bytes, &h, sizeof h);
      break;
    }
    case Scal::F32: {
      const float f[2] = {static_cast<float>(re), static_cast<float>(im)};
      std::memcpy(out.bytes, f, sizeof(float));
      break;
    }
    case Scal::C32: {
      const float f[2] = {static_cast<float>(re), static_cast<float>(im)};
      std::memcpy(out.bytes, f, sizeof f);
      break;
    }
    case Scal::F64: std::memcpy(out.bytes, &re, sizeof re); break;
    case Scal::C64: {
      const double d[2] = {re, im};
      std::memcpy(out.bytes, d, sizeof d);
      break;
    }
  }
  return out;
}

cublasStatus_t call_ex(const std::string& symbol, const GemmArgs& x, cudaDataType at, cudaDataType bt,
                       cudaDataType ct, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  void* p = cublas_symbol_if_present(symbol.c_str());
  if (!p) return missing(symbol);
  const bool is64 = symbol.ends_with("_64");
  if (symbol.find("StridedBatched") != std::string::npos)
    return is64 ? strided_ex<std::int64_t>(p, x, at, bt, ct, compute, algo)
                : strided_ex<int>(p, x, at, bt, ct, compute, algo);
  return is64 ? gemm_ex<std::int64_t>(p, x, at, bt, ct, compute, algo) : gemm_ex<int>(p, x, at, bt, ct, compute, algo);
}

cublasStatus_t call_gemm(const EntrySpec& e, const GemmArgs& x, cublasGemmAlgo_t algo) {
  if (e.ex) return call_ex(e.symbol, x, e.type, e.type, e.type, e.compute, algo);
  const GemmFn f = resolve_typed(e.symbol);
  return f ? f(x) : missing(e.symbol);
}

}  // namespace cpushim
