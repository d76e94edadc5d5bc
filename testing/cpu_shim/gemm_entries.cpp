#include "gemm_entries.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
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

// Typed by cublas_api.h's own declaration of `sym`.
#define PTXBLAS_TYPED(sym) \
  if (symbol == #sym) return adapt(reinterpret_cast<decltype(&sym)>(cublas_symbol(#sym)))

GemmFn resolve_typed(const std::string& symbol) {
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
  throw std::invalid_argument("not a typed GEMM entry: " + symbol);
}
#undef PTXBLAS_TYPED

template <class I>
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                    const void*, cudaDataType, I, const void*, cudaDataType, I, const void*, void*,
                                    cudaDataType, I, cublasComputeType_t, cublasGemmAlgo_t);
// cublas_api.h also declares C++ overloads of cublasGemmEx (cudaDataType compute type); these
// casts pick, and so check, the C signatures ptxblas exports.
static_assert(std::is_same_v<decltype(static_cast<GemmExFn<int>>(&cublasGemmEx)), GemmExFn<int>>);
static_assert(std::is_same_v<decltype(static_cast<GemmExFn<std::int64_t>>(&cublasGemmEx_64)),
                             GemmExFn<std::int64_t>>);

template <class I>
cublasStatus_t gemm_ex(const char* symbol, const GemmArgs& x, cudaDataType at, cudaDataType bt, cudaDataType ct,
                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static const auto f = reinterpret_cast<GemmExFn<I>>(cublas_symbol(symbol));
  return f(x.handle, x.transa, x.transb, static_cast<I>(x.m), static_cast<I>(x.n), static_cast<I>(x.k), x.alpha,
           x.a, at, static_cast<I>(x.lda), x.b, bt, static_cast<I>(x.ldb), x.beta, x.c, ct, static_cast<I>(x.ldc),
           compute, algo);
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
  std::vector<EntrySpec> v = {
      {"Sgemm_v2", "cublasSgemm_v2", Scal::F32},       {"Dgemm_v2", "cublasDgemm_v2", Scal::F64},
      {"Cgemm_v2", "cublasCgemm_v2", Scal::C32},       {"Zgemm_v2", "cublasZgemm_v2", Scal::C64},
      {"Hgemm", "cublasHgemm", Scal::F16},             {"Sgemm_v2_64", "cublasSgemm_v2_64", Scal::F32},
      {"Dgemm_v2_64", "cublasDgemm_v2_64", Scal::F64}, {"Cgemm_v2_64", "cublasCgemm_v2_64", Scal::C32},
      {"Zgemm_v2_64", "cublasZgemm_v2_64", Scal::C64}, {"Hgemm_64", "cublasHgemm_64", Scal::F16},
  };
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
  for (const char* sym : {"cublasGemmEx", "cublasGemmEx_64"})
    for (const Combo& c : combos)
      v.push_back({std::string(sym + 6) + "_" + c.name, sym, c.scal, true, c.type, c.compute});
  return v;
}

}  // namespace

const std::vector<EntrySpec>& gemm_entries() {
  static const std::vector<EntrySpec> v = make_entries();
  return v;
}

std::vector<std::string> gemm_entry_names() {
  std::vector<std::string> names;
  for (const EntrySpec& e : gemm_entries()) names.push_back(e.name);
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

cublasStatus_t call_gemm_ex(bool is64, const GemmArgs& x, cudaDataType at, cudaDataType bt, cudaDataType ct,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return is64 ? gemm_ex<std::int64_t>("cublasGemmEx_64", x, at, bt, ct, compute, algo)
              : gemm_ex<int>("cublasGemmEx", x, at, bt, ct, compute, algo);
}

cublasStatus_t call_gemm(const EntrySpec& e, const GemmArgs& x, cublasGemmAlgo_t algo) {
  if (e.ex) return call_gemm_ex(e.symbol == "cublasGemmEx_64", x, e.type, e.type, e.type, e.compute, algo);
  static std::mutex mu;
  static std::map<std::string, GemmFn> resolved;
  GemmFn f;
  {
    const std::lock_guard<std::mutex> lock(mu);
    auto it = resolved.find(e.symbol);
    if (it == resolved.end()) it = resolved.emplace(e.symbol, resolve_typed(e.symbol)).first;
    f = it->second;
  }
  return f(x);
}

}  // namespace cpushim
