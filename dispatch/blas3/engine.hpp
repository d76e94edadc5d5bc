// The few primitives every level-3 adaptor is built from (OA's idea: BLAS3 = GEMM + small
// helpers). Two implementations: the GPU one (generated GEMM kernels and helper kernels on a
// stream) and a CPU one (plain loops) on which CI checks the adaptors' arithmetic without a GPU.
// All matrices are column-major views into the engine's memory (device or host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernel_abi.hpp"
#include "kernel_config.hpp"

namespace ptxblas::blas3 {

using gen::DataType;
using gen::Op;

enum class Uplo { Lower, Upper };
enum class Side { Left, Right };
enum class Diag { NonUnit, Unit };

struct Scalar {
  double re = 0, im = 0;
  bool is_zero() const { return re == 0 && im == 0; }
  bool is_one() const { return re == 1 && im == 0; }
};

// Element (i, j) of a column-major matrix with leading dimension ld.
struct MatView {
  void* p = nullptr;
  std::int64_t ld = 1;
};

// A step the engine could not run (launch or allocation failure): the routine stops there.
struct EngineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual DataType data() const = 0;
  // For logs: what ran the GEMM steps (e.g. the first generated kernel's name).
  virtual std::string summary() const = 0;
  // Whether a step has written memory outside the engine's scratch (the caller's matrices): until
  // then a failed routine left nothing changed and can still be run elsewhere.
  virtual bool wrote_caller_memory() const = 0;
  // Largest diagonal block invert_diagonal_blocks takes.
  virtual std::int64_t max_inverse() const = 0;

  // C = alpha op(A) op(B) + beta C; beta == 0: C is not read; alpha == 0 or k == 0: A and B are not.
  virtual void gemm(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
                    MatView b, Scalar beta, MatView c) = 0;

  // gemm with the result in D instead of over C: D = alpha op(A) op(B) + beta C, C only read (not
  // at all when beta == 0). D is m x n with C's leading dimension (the GPU's kernels address it as
  // C plus an offset) and does not overlap C; D == C is gemm.
  virtual void gemm_into(Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
                         MatView b, Scalar beta, MatView c, MatView d) = 0;

  // gemm where op(A) (band gen::kBandALower / kBandAUpper) or op(B) (kBandBLower / kBandBUpper) is
  // triangular and holds explicit zeros in its other triangle (a materialised triangle): the
  // engine may leave out the products with those zeros (the GPU's kernels narrow each block's K
  // range to whole K-steps around the triangle, about half a GEMM's work for a square triangle;
  // the CPU engine keeps exactly the triangle's terms). The result is gemm's for finite operands;
  // an Inf or NaN in the other operand reaches the elements whose kept terms pair it with a zero
  // (on the GPU within a diagonal tile, as the 8 panels did within a diagonal panel).
  virtual void gemm_band(int band, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha,
                         MatView a, MatView b, Scalar beta, MatView c) = 0;

  // The `uplo` triangle of C (n x n) = that of alpha op(A) op(B) + beta C, op(A) n x k, with gemm's
  // rules for zero scalars; the other triangle of C is never read or written (SYRK-type output).
  // hermitian: diagonal imaginary parts become 0.
  virtual void gemm_triangle(Uplo uplo, bool hermitian, Op ta, Op tb, std::int64_t n, std::int64_t k, Scalar alpha,
                             MatView a, MatView b, Scalar beta, MatView c) = 0;

  // A rows x cols scratch matrix (ld == rows), valid until release.
  virtual MatView scratch(std::int64_t rows, std::int64_t cols) = 0;
  virtual void release(MatView w) = 0;

  // W (n x n) = the symmetric (hermitian: Hermitian, real diagonal) matrix whose `uplo` triangle A holds.
  virtual void symmetrize(Uplo uplo, bool hermitian, std::int64_t n, MatView a, MatView w) = 0;
  // W (n x n) = the triangular matrix A's `uplo` triangle holds (other triangle 0, unit: diagonal 1).
  virtual void triangle(Uplo uplo, Diag diag, std::int64_t n, MatView a, MatView w) = 0;
  // The inverses of the diagonal blocks of that triangular matrix (n x n), all in one step: rows
  // [b bs, b bs + w) of W (an n x min(n, bs) strip), columns [0, w), = the inverse of the block at
  // (b bs, b bs), w = min(bs, n - b bs), with the same shape. bs <= max_inverse(); an engine may
  // take only some widths when n > bs (the GPU's: powers of two from 32 to twice its widest kernel).
  virtual void invert_diagonal_blocks(Uplo uplo, Diag diag, std::int64_t n, std::int64_t bs, MatView a,
                                      MatView w) = 0;
  // C (m x n) = alpha C (alpha == 0: C becomes 0 without being read).
  virtual void scale(std::int64_t m, std::int64_t n, Scalar alpha, MatView c) = 0;
  // B (m x n) = A.
  virtual void copy(std::int64_t m, std::int64_t n, MatView a, MatView b) = 0;

  // For the factorizations, whose panels the host's LAPACK factors (factorizations.hpp); engines
  // without them throw EngineError.
  // The interchanges of LAPACK's laswp (increment 1) on the n columns of a: for r = 0 .. count - 1
  // in turn, rows r and pivots[r] (0-based, relative to a's first row, >= r) are swapped. pivots:
  // host memory (best from host_buffer), unchanged until the next wait_host().
  virtual void swap_rows(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count);
  // swap_rows with the pivots in the engine's memory (as lu_columns writes them).
  virtual void swap_rows_engine(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count);
  // Whether lu_columns runs here (then getrf factors its panels on the engine, no host LAPACK).
  virtual bool has_lu_columns() const { return false; }
  // LAPACK's unblocked LU (getf2) of the m x w block a (m >= w), column by column in order: the
  // pivot (largest |re| + |im| in the column at or below the diagonal, the first of equals, NaN
  // only when nothing else), its row swapped with the diagonal's across the panel's `width`
  // columns, which start `left` columns before a; the column below divided by the pivot (not when
  // it is 0; reals as LAPACK: times its reciprocal unless below the safe minimum); the rank-1
  // update of the block's columns to the right. pivots[i] = offset + column i's pivot row
  // (relative to a's first row), in the engine's memory (e.g. scratch).
  virtual void lu_columns(std::int64_t m, std::int64_t w, MatView a, std::int32_t* pivots, std::int64_t offset,
                          std::int64_t left, std::int64_t width);
  // Host memory for panels: page-locked where the engine can (copies then overlap its steps).
  virtual void* host_buffer(std::size_t bytes);
  virtual void release_host_buffer(void* p);
  // Copies the m x n view into host memory (column-major, ld), after the engine's earlier steps;
  // the host copy is complete once wait_host() returns.
  virtual void to_host(std::int64_t m, std::int64_t n, MatView src, void* host, std::int64_t ld);
  // Copies host memory into the m x n view, before the engine's later steps; the host memory must
  // not change until the next wait_host().
  virtual void from_host(std::int64_t m, std::int64_t n, const void* host, std::int64_t ld, MatView dst);
  virtual void wait_host();
  // Steps planned by the heuristic rather than the model (GemmCall::quick_plan): for routines
  // whose step shapes are new on every call.
  virtual void set_quick_plans(bool) {}
};

inline void Engine::swap_rows(std::int64_t, MatView, const std::int32_t*, std::int64_t) {
  throw EngineError("this engine has no row interchanges");
}
inline void Engine::swap_rows_engine(std::int64_t, MatView, const std::int32_t*, std::int64_t) {
  throw EngineError("this engine has no row interchanges");
}
inline void Engine::lu_columns(std::int64_t, std::int64_t, MatView, std::int32_t*, std::int64_t, std::int64_t,
                               std::int64_t) {
  throw EngineError("this engine has no LU column steps");
}
inline void* Engine::host_buffer(std::size_t) { throw EngineError("this engine has no host buffers"); }
inline void Engine::release_host_buffer(void*) {}
inline void Engine::to_host(std::int64_t, std::int64_t, MatView, void*, std::int64_t) {
  throw EngineError("this engine has no host copies");
}
inline void Engine::from_host(std::int64_t, std::int64_t, const void*, std::int64_t, MatView) {
  throw EngineError("this engine has no host copies");
}
inline void Engine::wait_host() {}

// View of the sub-matrix starting at (i, j).
inline MatView sub(MatView v, std::int64_t i, std::int64_t j, DataType t) {
  auto* base = static_cast<unsigned char*>(v.p);
  return {base + (i + j * v.ld) * gen::storage_bytes(t), v.ld};
}

// Scratch released on scope exit.
class Scratch {
 public:
  Scratch(Engine& e, std::int64_t rows, std::int64_t cols) : e_(e), v_(e.scratch(rows, cols)) {}
  ~Scratch() { e_.release(v_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  MatView view() const { return v_; }

 private:
  Engine& e_;
  MatView v_;
};

}  // namespace ptxblas::blas3
