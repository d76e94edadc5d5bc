// libptxblas.so as the CPU tests see it: dlopen'ed at run time (never linked), behind the
// stand-in cuBLAS (fake_cublas.h), with typed access to its ptxblas_* functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fake_cublas.h"

namespace cpushim {

// $PTXBLAS_LIBRARY, else libptxblas.so in this executable's folder.
std::string library_path();
// `file` in this executable's folder.
std::string beside_executable(const std::string& file);

// The library, dlopen'ed once (RTLD_NOW | RTLD_LOCAL) after the stand-in cuBLAS
// ($PTXBLAS_FAKE_CUBLAS, else beside this executable). Exits the program if either fails to load.
void* library();

// Exported functions, looked up with their version nodes; exits the program if one is missing.
void* cublas_symbol(const char* name);   // libcublas.so.13
void* ptxblas_symbol(const char* name);  // PTXBLAS_0
// libcublas.so.13's `name`, or null where the library lacks it (entry points still being added:
// the tests that call it fail, the others run).
void* cublas_symbol_if_present(const char* name);

// The stand-in's state (loads the library first, so the stand-in is in place).
FakeCublas& fake_cublas();

std::string last_call();  // ptxblas_last_call() of the calling thread

struct Counters {
  std::uint64_t served = 0, forwarded = 0;
};
Counters counters();  // ptxblas_counters()

// PTXBLAS_DISABLE as the library reads it (set, not empty, not "0"): every valid call forwarded.
bool ptxblas_disable_set();

// Whether libcuda.so.1 can be loaded here (it stays loaded).
bool driver_loadable();

int describe(const char* type, char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, char* buf,
             std::size_t buflen);  // ptxblas_describe_gemm()
int force_tile(const char* spec);  // ptxblas_force_tile()
int set_benchmark_top_k(int k);    // ptxblas_set_benchmark_top_k()

}  // namespace cpushim
