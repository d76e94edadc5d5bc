// The path every Fortran and CBLAS level-3 call takes once its arguments are valid: the offload
// policy decides where it runs; the CPU side is the CPU BLAS loaded at run time or, when none can
// be opened, the level-3 adaptors on the plain-loop CPU engine. Errors go to xerbla_.
#pragma once

#include <functional>
#include <string>

#include "call_record.hpp"
#include "engine.hpp"

namespace ptxblas::shim {

struct HostCall {
  CallShape shape;
  const char* family;       // "gemm", "symm", ... (the ptxblas.toml offload key)
  const char* fortran;      // the CPU BLAS symbol, e.g. "dgemm_"
  gen::DataType data;
  double flops, bytes;      // for the offload policy
};

// cpu(fn): call the CPU BLAS function fn; loops(engine): the same on the CPU engine.
void run_host(const HostCall& call, const std::function<void(void*)>& cpu,
              const std::function<void(blas3::Engine&)>& loops) noexcept;

// Reports a bad argument the reference way: the process's xerbla_ (the program's own when it
// has one) with the routine's name (e.g. "DGEMM ") and the parameter number; without any
// xerbla_ in the process, the reference message on stderr.
void report_bad_argument(const char* name, int info) noexcept;

}  // namespace ptxblas::shim
