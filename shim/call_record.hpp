// What each call did: the thread's last-call string, process counters, and the PTXBLAS_LOG line.
#pragma once

#include <string>

namespace ptxblas::shim {

struct CallShape {
  const char* entry;
  std::string flags;  // op letters (GEMM), or side/uplo/trans/diag letters (level 3)
  long long m, n, k;
};

// A call served by `kernel` (a GEMM: in kg K slices): the last-call string is written in place
// (no string is built per call unless logging is on).
// note: appended after the slices (dispatch::packed_note: which operands ran as aligned copies).
void record_served(const CallShape& s, const std::string& kernel, int kg = 1, const char* note = "");
void record_forwarded(const CallShape& s, const std::string& reason);
void record_error(const CallShape& s, const std::string& what);
// A host call sent straight to the CPU BLAS (below its offload threshold): counted, and the
// thread's last call set without building a string.
// what: a string literal.
void record_quick_forward(const char* what = "forwarded: CPU BLAS (below the offload threshold)") noexcept;

// PTXBLAS_LOG=1, or log.level = "info" in ptxblas.toml: one line per call on stderr.
bool log_enabled();

}  // namespace ptxblas::shim
