// LAPACK's Cholesky (potrf) and LU (getrf) factorizations as level-3 steps on an Engine, with
// only the panels factored by the host's LAPACK (BTO's idea: a whole sequence of BLAS calls kept
// on the device, MAGMA's hybrid split). The matrix stays in the engine's memory; each step copies
// one panel to the host and back, and the next panel's copy and factorization overlap the GEMM of
// the rest (look-ahead). getrf's panels can also stay on the engine (LuPanels::Engine, its own
// column kernel; perf notes §80). Results are LAPACK's up to rounding, with its INFO and IPIV
// conventions.
#pragma once

#include <functional>

#include "engine.hpp"

namespace ptxblas::blas3 {

// The host's LAPACK on host memory (column-major, leading dimension ld); each returns LAPACK's INFO.
struct HostFactor {
  // Cholesky of the n x n matrix's `uplo` triangle.
  std::function<int(Uplo uplo, std::int64_t n, void* a, std::int64_t ld)> potrf;
  // LU with partial pivoting of the m x n matrix; ipiv[i] (1-based, min(m, n) of them) as LAPACK's.
  std::function<int(std::int64_t m, std::int64_t n, void* a, std::int64_t ld, int* ipiv)> getrf;
};

// Where a factorization's time went on the host (for the log line): in all, in the host LAPACK's
// panel steps, and waiting for the engine (its copies and the steps before them); the rest went
// to issuing the engine's steps.
struct FactorTimes {
  double total_seconds = 0, host_seconds = 0, wait_seconds = 0;
  int panels = 0;
};

// A = L L^H (Lower) or U^H U (Upper) over A's `uplo` triangle (the other is never touched),
// left-looking in blocks of nb as the reference dpotrf. Returns INFO: 0, or j + 1 where the
// leading minor of order j + 1 is not positive definite (the factorization stops there).
int potrf(Engine& e, const HostFactor& host, Uplo uplo, std::int64_t n, MatView a, std::int64_t nb,
          FactorTimes* times = nullptr);

// Where getrf factors its m x nb panels: on the engine (recursively, the columns by
// Engine::lu_columns; engines without it use the host) or by the host's LAPACK (hybrid, with
// look-ahead).
enum class LuPanels { Engine, Host };

// P A = L U (m x n), right-looking in blocks of nb as the reference dgetrf; ipiv as LAPACK's.
// Returns INFO: 0, or i + 1 for the first exactly zero U(i, i) (the factorization completes).
int getrf(Engine& e, const HostFactor& host, std::int64_t m, std::int64_t n, MatView a, int* ipiv, std::int64_t nb,
          FactorTimes* times = nullptr, LuPanels panels = LuPanels::Engine);

}  // namespace ptxblas::blas3
