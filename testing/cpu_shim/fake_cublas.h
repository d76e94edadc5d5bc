// The stand-in libcublas.so.13 the CPU shim tests load before libptxblas.so: it answers the
// handle queries ptxblas makes (stream, pointer mode, math mode) as told, and records the GEMM
// calls forwarded to it instead of running them. Shared by fake_cublas.cpp and the tests.
#pragma once

#include <cstdint>

extern "C" {

struct FakeCublasCall {
  char entry[48];  // the cuBLAS name that was called, e.g. "cublasSgemm_v2_64"
  const void* handle;
  int transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
  const void *alpha, *a, *b, *beta;
  void* c;
  int atype, btype, ctype, compute, algo;  // GemmEx only; -1 otherwise
  long long stride_a, stride_b, stride_c;  // strided-batched entries only; 0 otherwise
  std::int64_t batch;                      // batchCount of a batched entry (strided or arrays of pointers); 0 otherwise
  // cublas?gemmBatched[_64]: a, b and c are the device arrays of the entries' pointers (Aarray,
  // Barray, Carray) as passed, never read.
};

struct FakeCublas {
  int handle_status;  // cublasStatus_t the handle queries return (anything but SUCCESS: a refused handle)
  void* stream;       // what cublasGetStream_v2 reports
  int pointer_mode;   // cublasPointerMode_t cublasGetPointerMode_v2 reports
  int math_mode;      // cublasMath_t cublasGetMathMode reports
  int gemm_status;    // cublasStatus_t every GEMM returns
  std::uint64_t handle_queries;
  std::uint64_t gemm_calls;
  FakeCublasCall last;
};

// The one state object (not thread safe: the tests forward from one thread at a time).
FakeCublas* fake_cublas_state(void);

}  // extern "C"
