// The two implementations of each GEMM entry point: ptxblas's, dlsym'ed from libptxblas.so opened
// with RTLD_LOCAL (so it interposes on nothing), and the real cuBLAS's, linked. ptxblas finds that
// same cuBLAS with RTLD_NOLOAD, so one handle serves both.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "suite.hpp"

namespace bench {

enum class Impl { Ptxblas, Cublas };

// --library default: $PTXBLAS_LIBRARY, else libptxblas.so beside this executable.
std::string default_library_path();

// Loads the library and resolves its entry points; prints why and exits 2 if it cannot.
void load_ptxblas(const std::string& path);

// ptxblas_last_call() of this thread: the kernel that served the last call, "forwarded: ...",
// "error: ..." or "none".
std::string last_ptxblas_call();

// ptxblas_force_tile on this thread ("" restores the dispatcher); false for a malformed spec.
bool force_ptxblas_tile(const std::string& spec);

struct Operands {
  const void* a;
  const void* b;
  void* c;
  bool accumulate = false;  // beta = 1 (C read and added to, as LAPACK's updates do) instead of 0
};

// C = 1 * op(A) op(B) + beta * C (beta = 0, or 1 with o.accumulate) with the shape's type and
// ops, host pointer mode.
cublasStatus_t run_gemm(Impl impl, cublasHandle_t h, const Shape& s, const Operands& o);

// The same for H as a strided batch of `batch` entries packed one after another
// (cublasHgemmStridedBatched).
cublasStatus_t run_h_strided_batch(Impl impl, cublasHandle_t h, const Shape& s, int batch, const Operands& o);

}  // namespace bench
