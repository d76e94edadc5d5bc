#include "entries.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>

#include "gpu_env.hpp"

namespace gputest {
namespace {

template <class T, class I>
using TypedGemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                     const T*, I, const T*, I, const T*, T*, I);

template <class T, class I>
GemmFn typed(TypedGemm<T, I> f) {
  return [f](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
             std::int64_t k, const void* alpha, const void* a, std::int64_t lda, const void* b, std::int64_t ldb,
             const void* beta, void* c, std::int64_t ldc) {
    return f(h, ta, tb, static_cast<I>(m), static_cast<I>(n), static_cast<I>(k), static_cast<const T*>(alpha),
             static_cast<const T*>(a), static_cast<I>(lda), static_cast<const T*>(b), static_cast<I>(ldb),
             static_cast<const T*>(beta), static_cast<T*>(c), static_cast<I>(ldc));
  };
}

template <class T, class I>
Entry typed_entry(const char* symbol, const char* name, TypedGemm<T, I> real, Elem e, Scal s, bool f16) {
  return Entry{name, e, s, f16, typed<T, I>(reinterpret_cast<TypedGemm<T, I>>(ptxblas_symbol(symbol))),
               typed<T, I>(real)};
}

template <class I>
using ExGemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                  const void*, cudaDataType, I, const void*, cudaDataType, I, const void*, void*,
                                  cudaDataType, I, cublasComputeType_t, cublasGemmAlgo_t);

template <class I>
GemmFn ex(ExGemm<I> f, cudaDataType t, cublasComputeType_t comp) {
  return [f, t, comp](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
                      std::int64_t k, const void* alpha, const void* a, std::int64_t lda, const void* b,
                      std::int64_t ldb, const void* beta, void* c, std::int64_t ldc) {
    return f(h, ta, tb, static_cast<I>(m), static_cast<I>(n), static_cast<I>(k), alpha, a, t, static_cast<I>(lda),
             b, t, static_cast<I>(ldb), beta, c, t, static_cast<I>(ldc), comp, CUBLAS_GEMM_DEFAULT);
  };
}

struct ExCombo {
  const char* tag;
  cudaDataType type;
  cublasComputeType_t comp;
  Elem elem;
  Scal scal;
};

constexpr ExCombo kExCombos[] = {
    {"R32F_C32F", CUDA_R_32F, CUBLAS_COMPUTE_32F, Elem::F32, Scal::F32},
    {"R64F_C64F", CUDA_R_64F, CUBLAS_COMPUTE_64F, Elem::F64, Scal::F64},
    {"R16F_C16F", CUDA_R_16F, CUBLAS_COMPUTE_16F, Elem::F16, Scal::F16},
    {"R16F_C32F", CUDA_R_16F, CUBLAS_COMPUTE_32F, Elem::F16, Scal::F32},
    {"R16BF_C32F", CUDA_R_16BF, CUBLAS_COMPUTE_32F, Elem::BF16, Scal::F32},
    {"C32F_C32F", CUDA_C_32F, CUBLAS_COMPUTE_32F, Elem::C32, Scal::C32},
    {"C64F_C64F", CUDA_C_64F, CUBLAS_COMPUTE_64F, Elem::C64, Scal::C64},
};

std::vector<Entry> build() {
  std::vector<Entry> v;
  v.push_back(typed_entry<float, int>("cublasSgemm_v2", "Sgemm", cublasSgemm_v2, Elem::F32, Scal::F32, false));
  v.push_back(typed_entry<double, int>("cublasDgemm_v2", "Dgemm", cublasDgemm_v2, Elem::F64, Scal::F64, false));
  v.push_back(typed_entry<cuComplex, int>("cublasCgemm_v2", "Cgemm", cublasCgemm_v2, Elem::C32, Scal::C32, false));
  v.push_back(typed_entry<cuDoubleComplex, int>("cublasZgemm_v2", "Zgemm", cublasZgemm_v2, Elem::C64, Scal::C64,
                                                false));
  v.push_back(typed_entry<__half, int>("cublasHgemm", "Hgemm", cublasHgemm, Elem::F16, Scal::F16, true));
  v.push_back(typed_entry<float, std::int64_t>("cublasSgemm_v2_64", "Sgemm_64", cublasSgemm_v2_64, Elem::F32,
                                               Scal::F32, false));
  v.push_back(typed_entry<double, std::int64_t>("cublasDgemm_v2_64", "Dgemm_64", cublasDgemm_v2_64, Elem::F64,
                                                Scal::F64, false));
  v.push_back(typed_entry<cuComplex, std::int64_t>("cublasCgemm_v2_64", "Cgemm_64", cublasCgemm_v2_64, Elem::C32,
                                                   Scal::C32, false));
  v.push_back(typed_entry<cuDoubleComplex, std::int64_t>("cublasZgemm_v2_64", "Zgemm_64", cublasZgemm_v2_64,
                                                         Elem::C64, Scal::C64, false));
  v.push_back(typed_entry<__half, std::int64_t>("cublasHgemm_64", "Hgemm_64", cublasHgemm_64, Elem::F16, Scal::F16,
                                                true));
  const auto ptx_ex = reinterpret_cast<ExGemm<int>>(ptxblas_symbol("cublasGemmEx"));
  const auto ptx_ex64 = reinterpret_cast<ExGemm<std::int64_t>>(ptxblas_symbol("cublasGemmEx_64"));
  for (const ExCombo& c : kExCombos) {
    const bool f16 = c.comp == CUBLAS_COMPUTE_16F;
    v.push_back(Entry{std::string("GemmEx_") + c.tag, c.elem, c.scal, f16, ex<int>(ptx_ex, c.type, c.comp),
                      ex<int>(cublasGemmEx, c.type, c.comp)});
    v.push_back(Entry{std::string("GemmEx_64_") + c.tag, c.elem, c.scal, f16,
                      ex<std::int64_t>(ptx_ex64, c.type, c.comp), ex<std::int64_t>(cublasGemmEx_64, c.type, c.comp)});
  }
  return v;
}

template <class T, class I>
using TypedBatched = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const T*,
                                        const T*, I, long long, const T*, I, long long, const T*, T*, I, long long, I);

template <class T, class I>
BatchedFn typed_batched(TypedBatched<T, I> f) {
  if (!f) return {};
  return [f](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
             std::int64_t k, const void* alpha, const void* a, std::int64_t lda, long long sa, const void* b,
             std::int64_t ldb, long long sb, const void* beta, void* c, std::int64_t ldc, long long sc,
             std::int64_t batch) {
    return f(h, ta, tb, static_cast<I>(m), static_cast<I>(n), static_cast<I>(k), static_cast<const T*>(alpha),
             static_cast<const T*>(a), static_cast<I>(lda), sa, static_cast<const T*>(b), static_cast<I>(ldb), sb,
             static_cast<const T*>(beta), static_cast<T*>(c), static_cast<I>(ldc), sc, static_cast<I>(batch));
  };
}

// Named after the symbol without its "cublas" prefix.
template <class T, class I>
BatchedEntry typed_batched_entry(const char* symbol, TypedBatched<T, I> real, Elem e, Scal s, bool f16) {
  const auto ptx = reinterpret_cast<TypedBatched<T, I>>(ptxblas_symbol_if_present(symbol));
  return BatchedEntry{symbol + 6, symbol, e, s, f16, typed_batched<T, I>(ptx), typed_batched<T, I>(real)};
}

template <class I>
using ExBatched = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I, const void*,
                                     const void*, cudaDataType, I, long long, const void*, cudaDataType, I, long long,
                                     const void*, void*, cudaDataType, I, long long, I, cublasComputeType_t,
                                     cublasGemmAlgo_t);

template <class I>
BatchedFn ex_batched(ExBatched<I> f, cudaDataType t, cublasComputeType_t comp) {
  if (!f) return {};
  return [f, t, comp](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
                      std::int64_t k, const void* alpha, const void* a, std::int64_t lda, long long sa, const void* b,
                      std::int64_t ldb, long long sb, const void* beta, void* c, std::int64_t ldc, long long sc,
                      std::int64_t batch) {
    return f(h, ta, tb, static_cast<I>(m), static_cast<I>(n), static_cast<I>(k), alpha, a, t, static_cast<I>(lda),
             sa, b, t, static_cast<I>(ldb), sb, beta, c, t, static_cast<I>(ldc), sc, static_cast<I>(batch), comp,
             CUBLAS_GEMM_DEFAULT);
  };
}

std::vector<BatchedEntry> build_batched() {
  std::vector<BatchedEntry> v;
  v.push_back(typed_batched_entry<float, int>("cublasSgemmStridedBatched", cublasSgemmStridedBatched, Elem::F32,
                                              Scal::F32, false));
  v.push_back(typed_batched_entry<double, int>("cublasDgemmStridedBatched", cublasDgemmStridedBatched, Elem::F64,
                                               Scal::F64, false));
  v.push_back(typed_batched_entry<cuComplex, int>("cublasCgemmStridedBatched", cublasCgemmStridedBatched, Elem::C32,
                                                  Scal::C32, false));
  v.push_back(typed_batched_entry<cuDoubleComplex, int>("cublasZgemmStridedBatched", cublasZgemmStridedBatched,
                                                        Elem::C64, Scal::C64, false));
  v.push_back(typed_batched_entry<__half, int>("cublasHgemmStridedBatched", cublasHgemmStridedBatched, Elem::F16,
                                               Scal::F16, true));
  v.push_back(typed_batched_entry<float, std::int64_t>("cublasSgemmStridedBatched_64", cublasSgemmStridedBatched_64,
                                                       Elem::F32, Scal::F32, false));
  v.push_back(typed_batched_entry<double, std::int64_t>("cublasDgemmStridedBatched_64", cublasDgemmStridedBatched_64,
                                                        Elem::F64, Scal::F64, false));
  v.push_back(typed_batched_entry<cuComplex, std::int64_t>("cublasCgemmStridedBatched_64",
                                                           cublasCgemmStridedBatched_64, Elem::C32, Scal::C32, false));
  v.push_back(typed_batched_entry<cuDoubleComplex, std::int64_t>(
      "cublasZgemmStridedBatched_64", cublasZgemmStridedBatched_64, Elem::C64, Scal::C64, false));
  v.push_back(typed_batched_entry<__half, std::int64_t>("cublasHgemmStridedBatched_64", cublasHgemmStridedBatched_64,
                                                        Elem::F16, Scal::F16, true));
  for (bool is64 : {false, true})
    for (const ExCombo& c : kExCombos) v.push_back(batched_ex_entry(is64, c.tag, c.type, c.comp, c.elem, c.scal));
  return v;
}

template <class T, class I>
using TypedPointerBatched = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, I, I, I,
                                               const T*, const T* const[], I, const T* const[], I, const T*,
                                               T* const[], I, I);

template <class T, class I>
PointerBatchedFn typed_pointer_batched(TypedPointerBatched<T, I> f) {
  if (!f) return {};
  return [f](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
             std::int64_t k, const void* alpha, const void* const* a, std::int64_t lda, const void* const* b,
             std::int64_t ldb, const void* beta, void* const* c, std::int64_t ldc, std::int64_t batch) {
    return f(h, ta, tb, static_cast<I>(m), static_cast<I>(n), static_cast<I>(k), static_cast<const T*>(alpha),
             reinterpret_cast<const T* const*>(a), static_cast<I>(lda), reinterpret_cast<const T* const*>(b),
             static_cast<I>(ldb), static_cast<const T*>(beta), reinterpret_cast<T* const*>(c), static_cast<I>(ldc),
             static_cast<I>(batch));
  };
}

template <class T, class I>
PointerBatchedEntry pointer_batched_entry(const char* symbol, TypedPointerBatched<T, I> real, Elem e, Scal s) {
  const auto ptx = reinterpret_cast<TypedPointerBatched<T, I>>(ptxblas_symbol_if_present(symbol));
  return PointerBatchedEntry{symbol + 6, symbol, e, s, typed_pointer_batched<T, I>(ptx),
                             typed_pointer_batched<T, I>(real)};
}

std::vector<PointerBatchedEntry> build_pointer_batched() {
  std::vector<PointerBatchedEntry> v;
  v.push_back(pointer_batched_entry<float, int>("cublasSgemmBatched", cublasSgemmBatched, Elem::F32, Scal::F32));
  v.push_back(pointer_batched_entry<double, int>("cublasDgemmBatched", cublasDgemmBatched, Elem::F64, Scal::F64));
  v.push_back(
      pointer_batched_entry<cuComplex, int>("cublasCgemmBatched", cublasCgemmBatched, Elem::C32, Scal::C32));
  v.push_back(pointer_batched_entry<cuDoubleComplex, int>("cublasZgemmBatched", cublasZgemmBatched, Elem::C64,
                                                          Scal::C64));
  v.push_back(pointer_batched_entry<float, std::int64_t>("cublasSgemmBatched_64", cublasSgemmBatched_64, Elem::F32,
                                                         Scal::F32));
  v.push_back(pointer_batched_entry<double, std::int64_t>("cublasDgemmBatched_64", cublasDgemmBatched_64, Elem::F64,
                                                          Scal::F64));
  v.push_back(pointer_batched_entry<cuComplex, std::int64_t>("cublasCgemmBatched_64", cublasCgemmBatched_64,
                                                             Elem::C32, Scal::C32));
  v.push_back(pointer_batched_entry<cuDoubleComplex, std::int64_t>("cublasZgemmBatched_64", cublasZgemmBatched_64,
                                                                   Elem::C64, Scal::C64));
  return v;
}

}  // namespace

const std::vector<PointerBatchedEntry>& pointer_batched_entries() {
  static const std::vector<PointerBatchedEntry> v = build_pointer_batched();
  return v;
}

const PointerBatchedEntry& pointer_batched_entry_named(const std::string& name) {
  for (const PointerBatchedEntry& e : pointer_batched_entries())
    if (e.name == name) return e;
  throw std::invalid_argument("no pointer-array batched entry " + name);
}

// Names only (gtest parameters are made before main).
std::vector<std::string> pointer_batched_entry_names() {
  std::vector<std::string> v;
  for (const char* suffix : {"", "_64"})
    for (const char* t : {"S", "D", "C", "Z"}) v.push_back(std::string(t) + "gemmBatched" + suffix);
  return v;
}

BatchedEntry batched_ex_entry(bool is64, const std::string& tag, cudaDataType type, cublasComputeType_t comp,
                              Elem elem, Scal scal) {
  const char* symbol = is64 ? "cublasGemmStridedBatchedEx_64" : "cublasGemmStridedBatchedEx";
  const bool f16 = comp == CUBLAS_COMPUTE_16F;
  void* ptx = ptxblas_symbol_if_present(symbol);
  BatchedEntry e{std::string(symbol + 6) + "_" + tag, symbol, elem, scal, f16, {}, {}};
  if (is64) {
    e.ptx = ex_batched<std::int64_t>(reinterpret_cast<ExBatched<std::int64_t>>(ptx), type, comp);
    e.real = ex_batched<std::int64_t>(cublasGemmStridedBatchedEx_64, type, comp);
  } else {
    e.ptx = ex_batched<int>(reinterpret_cast<ExBatched<int>>(ptx), type, comp);
    e.real = ex_batched<int>(cublasGemmStridedBatchedEx, type, comp);
  }
  return e;
}

const std::vector<BatchedEntry>& batched_entries() {
  static const std::vector<BatchedEntry> v = build_batched();
  return v;
}

const BatchedEntry& batched_entry_named(const std::string& name) {
  for (const BatchedEntry& e : batched_entries())
    if (e.name == name) return e;
  throw std::invalid_argument("no batched entry " + name);
}

std::vector<std::string> batched_entry_names() {
  std::vector<std::string> v;
  for (const char* t : {"S", "D", "C", "Z", "H"}) v.push_back(std::string(t) + "gemmStridedBatched");
  for (const char* t : {"S", "D", "C", "Z", "H"}) v.push_back(std::string(t) + "gemmStridedBatched_64");
  for (const char* prefix : {"GemmStridedBatchedEx_", "GemmStridedBatchedEx_64_"})
    for (const ExCombo& c : kExCombos) v.push_back(prefix + std::string(c.tag));
  return v;
}

const std::vector<Entry>& all_entries() {
  static const std::vector<Entry> v = build();
  return v;
}

const Entry& entry_named(const std::string& name) {
  for (const Entry& e : all_entries())
    if (e.name == name) return e;
  throw std::invalid_argument("no entry " + name);
}

// Names only: gtest instantiates parameters before main, when no library should be loaded yet.
std::vector<std::string> entry_names() {
  std::vector<std::string> v = {"Sgemm",    "Dgemm",    "Cgemm",    "Zgemm",    "Hgemm",
                                "Sgemm_64", "Dgemm_64", "Cgemm_64", "Zgemm_64", "Hgemm_64"};
  for (const ExCombo& c : kExCombos) {
    v.push_back(std::string("GemmEx_") + c.tag);
    v.push_back(std::string("GemmEx_64_") + c.tag);
  }
  return v;
}

bool is_complex(Elem e) { return e == Elem::C32 || e == Elem::C64; }

std::size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return 2;
    case Elem::F32: return 4;
    case Elem::F64:
    case Elem::C32: return 8;
    case Elem::C64: return 16;
  }
  return 0;
}

std::size_t scal_bytes(Scal s) {
  switch (s) {
    case Scal::F16: return 2;
    case Scal::F32: return 4;
    case Scal::F64:
    case Scal::C32: return 8;
    case Scal::C64: return 16;
  }
  return 0;
}

}  // namespace gputest
