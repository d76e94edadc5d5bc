// ptxblas_describe_gemm: what would be generated, answerable without a GPU (demo, tests).
#include <cstdio>
#include <cstring>
#include <exception>

#include "export.hpp"
#include "gemm_call.hpp"
#include "ptxblas/ptxblas.h"
#include "simt_gemm_ptx.hpp"

namespace {

// Multiprocessors assumed when no device is there to ask: the reference H100's.
constexpr int kReferenceSMs = 132;

bool parse_type(const char* t, ptxblas::gen::DataType& data, bool& f16_scalars) {
  using ptxblas::gen::DataType;
  f16_scalars = false;
  if (!t) return false;
  if (!std::strcmp(t, "S")) data = DataType::F32;
  else if (!std::strcmp(t, "D")) data = DataType::F64;
  else if (!std::strcmp(t, "C")) data = DataType::C32;
  else if (!std::strcmp(t, "Z")) data = DataType::C64;
  else if (!std::strcmp(t, "H")) data = DataType::F16, f16_scalars = true;
  else if (!std::strcmp(t, "H32")) data = DataType::F16;
  else if (!std::strcmp(t, "B")) data = DataType::BF16;
  else return false;
  return true;
}

bool parse_op(char c, ptxblas::gen::Op& op) {
  switch (c) {
    case 'N': case 'n': op = ptxblas::gen::Op::N; return true;
    case 'T': case 't': op = ptxblas::gen::Op::T; return true;
    case 'C': case 'c': op = ptxblas::gen::Op::C; return true;
    default: return false;
  }
}

}  // namespace

PTXBLAS_EXPORT int ptxblas_describe_gemm(const char* type, char transa, char transb, int64_t m, int64_t n,
                                         int64_t k, char* buf, size_t buflen) {
  using namespace ptxblas;
  gen::DataType data;
  bool f16_scalars;
  gen::Op oa, ob;
  if (!parse_type(type, data, f16_scalars) || !parse_op(transa, oa) || !parse_op(transb, ob)) return -1;
  constexpr int64_t kMaxDim = 0x7fffffff - 1024;  // what the kernels index with 32-bit rows and columns
  if (m < 0 || n < 0 || k < 0 || m > kMaxDim || n > kMaxDim || k > kMaxDim) return -1;
  try {
    const dispatch::Plan plan = dispatch::plan_gemm(data, f16_scalars, oa, ob, m, n, k, kReferenceSMs);
    const gen::GeneratedKernel kern = gen::generate_simt_gemm(plan.config, 90);
    if (buf && buflen)
      std::snprintf(buf, buflen, "%s: %zu bytes of PTX, %d threads, %d B shared, ~%d registers",
                    dispatch::describe(plan).c_str(), kern.ptx.size(), kern.resources.threads,
                    kern.resources.smem_bytes, kern.resources.regs_predicted);
    return 0;
  } catch (const std::exception&) {
    return -1;
  }
}
