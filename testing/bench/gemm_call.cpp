#include "gemm_call.hpp"

#include <cuda_fp16.h>
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "ptxblas/ptxblas.h"

namespace bench {
namespace {

// cublasGemmEx's C entry (C++ sees an overload too).
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct PtxblasEntries {
  decltype(&cublasSgemm_v2) s = nullptr;
  decltype(&cublasDgemm_v2) d = nullptr;
  decltype(&cublasCgemm_v2) c = nullptr;
  decltype(&cublasZgemm_v2) z = nullptr;
  decltype(&cublasHgemm) h = nullptr;
  GemmExFn gemm_ex = nullptr;
  decltype(&cublasHgemmStridedBatched) h_strided = nullptr;
  decltype(&::ptxblas_last_call) last_call = nullptr;
  decltype(&::ptxblas_force_tile) force_tile = nullptr;
};
PtxblasEntries g_ptx;

template <class Fn>
void resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) {
    std::fprintf(stderr, "libptxblas.so lacks %s\n", name);
    std::exit(2);
  }
}

template <class T>
struct Scalars;
template <>
struct Scalars<float> {
  static constexpr float one = 1.0f, zero = 0.0f;
};
template <>
struct Scalars<double> {
  static constexpr double one = 1.0, zero = 0.0;
};
template <>
struct Scalars<cuComplex> {
  static constexpr cuComplex one{1.0f, 0.0f}, zero{0.0f, 0.0f};
};
template <>
struct Scalars<cuDoubleComplex> {
  static constexpr cuDoubleComplex one{1.0, 0.0}, zero{0.0, 0.0};
};
template <>
struct Scalars<__half> {
  static inline const __half one = __float2half(1.0f), zero = __float2half(0.0f);
};

cublasOperation_t op(char o) { return o == 'N' ? CUBLAS_OP_N : o == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

template <class T, class Fn>
cublasStatus_t call(Fn fn, cublasHandle_t h, const Shape& s, const Operands& o) {
  const Layout l = layout(s);
  return fn(h, op(s.transa), op(s.transb), static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k),
            &Scalars<T>::one, static_cast<const T*>(o.a), static_cast<int>(l.lda), static_cast<const T*>(o.b),
            static_cast<int>(l.ldb), o.accumulate ? &Scalars<T>::one : &Scalars<T>::zero, static_cast<T*>(o.c),
            static_cast<int>(l.ldc));
}

// B: bf16 operands and C, f32 compute and scalars (cuBLAS has no bf16 entry of its own).
cublasStatus_t call_bf16(GemmExFn fn, cublasHandle_t h, const Shape& s, const Operands& o) {
  const Layout l = layout(s);
  const float one = 1.0f, zero = 0.0f;
  return fn(h, op(s.transa), op(s.transb), static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), &one,
            o.a, CUDA_R_16BF, static_cast<int>(l.lda), o.b, CUDA_R_16BF, static_cast<int>(l.ldb),
            o.accumulate ? &one : &zero, o.c, CUDA_R_16BF, static_cast<int>(l.ldc), CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT);
}

}  // namespace

std::string default_library_path() {
  if (const char* p = std::getenv("PTXBLAS_LIBRARY"); p && *p) return p;
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "libptxblas.so";
  const std::string exe(buf, static_cast<std::size_t>(n));
  return exe.substr(0, exe.rfind('/') + 1) + "libptxblas.so";
}

void load_ptxblas(const std::string& path) {
  if (dlsym(RTLD_DEFAULT, "ptxblas_last_call")) {
    std::fprintf(stderr, "libptxblas.so is already in the global scope (LD_PRELOAD?): both sides would be ptxblas\n");
    std::exit(2);
  }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
    std::exit(2);
  }
  resolve(lib, "cublasSgemm_v2", g_ptx.s);
  resolve(lib, "cublasDgemm_v2", g_ptx.d);
  resolve(lib, "cublasCgemm_v2", g_ptx.c);
  resolve(lib, "cublasZgemm_v2", g_ptx.z);
  resolve(lib, "cublasHgemm", g_ptx.h);
  resolve(lib, "cublasGemmEx", g_ptx.gemm_ex);
  resolve(lib, "cublasHgemmStridedBatched", g_ptx.h_strided);
  resolve(lib, "ptxblas_last_call", g_ptx.last_call);
  resolve(lib, "ptxblas_force_tile", g_ptx.force_tile);
}

bool force_ptxblas_tile(const std::string& spec) { return g_ptx.force_tile(spec.c_str()) == 0; }

std::string last_ptxblas_call() {
  const char* s = g_ptx.last_call ? g_ptx.last_call() : nullptr;
  return s ? s : "none";
}

cublasStatus_t run_gemm(Impl impl, cublasHandle_t h, const Shape& s, const Operands& o) {
  const bool ptx = impl == Impl::Ptxblas;
  switch (s.type) {
    case 'S': return call<float>(ptx ? g_ptx.s : &cublasSgemm_v2, h, s, o);
    case 'D': return call<double>(ptx ? g_ptx.d : &cublasDgemm_v2, h, s, o);
    case 'C': return call<cuComplex>(ptx ? g_ptx.c : &cublasCgemm_v2, h, s, o);
    case 'Z': return call<cuDoubleComplex>(ptx ? g_ptx.z : &cublasZgemm_v2, h, s, o);
    case 'H': return call<__half>(ptx ? g_ptx.h : &cublasHgemm, h, s, o);
    case 'B': return call_bf16(ptx ? g_ptx.gemm_ex : static_cast<GemmExFn>(&cublasGemmEx), h, s, o);
    default: return CUBLAS_STATUS_INVALID_VALUE;
  }
}

cublasStatus_t run_h_strided_batch(Impl impl, cublasHandle_t h, const Shape& s, int batch, const Operands& o) {
  const Layout l = layout(s);
  const auto fn = impl == Impl::Ptxblas ? g_ptx.h_strided : &cublasHgemmStridedBatched;
  const __half* beta = o.accumulate ? &Scalars<__half>::one : &Scalars<__half>::zero;
  return fn(h, op(s.transa), op(s.transb), static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k),
            &Scalars<__half>::one, static_cast<const __half*>(o.a), static_cast<int>(l.lda),
            static_cast<long long>(l.a_elems), static_cast<const __half*>(o.b), static_cast<int>(l.ldb),
            static_cast<long long>(l.b_elems), beta, static_cast<__half*>(o.c), static_cast<int>(l.ldc),
            static_cast<long long>(l.c_elems), batch);
}

}  // namespace bench
