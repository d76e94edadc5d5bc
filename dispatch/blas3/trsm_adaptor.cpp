// TRSM, recursive: B is scaled by alpha once; the triangle is split in halves (whole leaves of
// nb, up to 256 on the GPU), the half the triangle dictates is solved first, the other half of B
// is updated with one large GEMM, then solved. A leaf is X_i = inv(op(A_ii)) B_i (a banded GEMM:
// the inverse is triangular), with every leaf's inverse taken up front in one engine step (on
// the GPU one launch; the many small launches of per-leaf inverses were most of TRSM's time,
// perf-notes §16). When B fits Blocking::solution_bytes, a B-shaped scratch S (B's leading
// dimension) holds the rows (left; right: columns) of B that updates have changed: an update
// writes its result into S (out of place the first time it changes those rows, reading B), a
// leaf reads its rows from S and writes X into B, and the updates read X from B. So each leaf is
// one engine step, and no copy of the solution is needed at the end (perf notes §18, §65); only the
// one leaf no update reaches is copied into S first. Otherwise each leaf solves into a one-leaf
// scratch and copies X back, and the updates work in B.
// inv(op(D)) == op(inv(D)), so the inverse is taken of the stored block and applied with the
// same op.
#include <algorithm>
#include <bit>
#include <cstdint>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

struct Trsm {
  Engine& e;
  bool left;
  Uplo uplo;
  Op transa;
  Diag diag;
  std::int64_t m, n;
  MatView a, b, inverses, scratch;  // inverses: leaf i's in rows [i, i + nb) of a dim x nb strip
  bool whole;                       // scratch is S (B-shaped, B's ld); else one leaf's X
  std::int64_t nb;
  bool forward;  // the first half is solved first (left: op(A) lower; right: op(A) upper)
  DataType t;
  std::int64_t dim;  // rows (left) or columns (right) of B

  // Where op(A)'s block at (r0, c0) is stored (op applied by the GEMM).
  MatView op_a(std::int64_t r0, std::int64_t c0) const {
    return transa == Op::N ? sub(a, r0, c0, t) : sub(a, c0, r0, t);
  }

  // Rows (left) or columns (right) [i, ...) of a matrix shaped like B.
  MatView at(MatView v, std::int64_t i) const { return left ? sub(v, i, 0, t) : sub(v, 0, i, t); }
  // Whether the current values of the rows (columns) of run(i, d) are in S (whole): an ancestor's
  // update, which runs before run(i, d), reached them unless they are of the half solved first
  // at every level (forward: from row 0; backward: up to dim).
  bool in_scratch(std::int64_t i, std::int64_t d) const { return forward ? i > 0 : i + d < dim; }

  // op(inv) is triangular like op(A) (the inverse block holds explicit zeros off its triangle), so
  // the leaf is a banded GEMM: each block of X sums only the K its rows (left) or columns (right)
  // of op(inv) reach, about 5/8 of the work with 32-wide blocks on a 128-wide leaf (perf notes §39).
  void leaf(std::int64_t i, std::int64_t d) {
    const Scalar one{1, 0};
    const MatView inv = sub(inverses, i, 0, t);
    const std::int64_t rows = left ? d : m, cols = left ? n : d;
    // whole: from S into B (the leaf no update reached is copied into S first); else from B into
    // the one-leaf scratch, then back.
    if (whole && !in_scratch(i, d)) e.copy(rows, cols, at(b, i), at(scratch, i));
    const MatView in = whole ? at(scratch, i) : at(b, i), out = whole ? at(b, i) : scratch;
    const bool op_lower = left == forward;  // left: forward means op(A) lower; right: upper
    if (left)
      e.gemm_band(op_lower ? gen::kBandALower : gen::kBandAUpper, transa, Op::N, d, n, d, one, inv, in, Scalar{},
                  out);
    else
      e.gemm_band(op_lower ? gen::kBandBLower : gen::kBandBUpper, Op::N, transa, m, d, d, one, in, inv, Scalar{},
                  out);
    if (!whole) e.copy(rows, cols, out, at(b, i));
  }

  // B's rows (left) or columns (right) [to, to + dt) -= the coupling block times the solved X of
  // [from, from + df) (in B). whole: the result goes to S, out of place when those rows were
  // still only in B.
  void update(std::int64_t to, std::int64_t dt, std::int64_t from, std::int64_t df) {
    const Scalar one{1, 0}, minus_one{-1, 0};
    // Those rows are in S exactly when the rows of the run the two halves form are.
    const bool held = whole && in_scratch(std::min(to, from), dt + df);
    const MatView c = held ? at(scratch, to) : at(b, to), d = whole ? at(scratch, to) : c;
    if (left)
      e.gemm_into(transa, Op::N, dt, n, df, minus_one, op_a(to, from), at(b, from), one, c, d);
    else
      e.gemm_into(Op::N, transa, m, dt, df, minus_one, at(b, from), op_a(from, to), one, c, d);
  }

  void run(std::int64_t i, std::int64_t d) {
    if (d <= nb) return leaf(i, d);
    const std::int64_t leaves = (d + nb - 1) / nb;
    const std::int64_t d1 = nb * ((leaves + 1) / 2), d2 = d - d1, j = i + d1;
    if (forward) {
      run(i, d1);
      update(j, d2, i, d1);
      run(j, d2);
    } else {
      run(j, d2);
      update(i, d1, j, d2);
      run(i, d1);
    }
  }
};

}  // namespace

// As wide as blk.nb and the engine allow (fewer, larger steps: the GPU's TRSM is bound by host
// time per step, perf-notes §16, §18, §31, and its small steps run far below GEMM speed, §57), as
// a power of two from 32 on (the GPU inverts blocks of 32 and 64 with its kernel and doubles
// 64-wide inverses up to 256), and halved down to 32 while the triangle is shorter than 4 such
// leaves, since a W-wide inverse's substitution is a chain of ~W^2 / 2 dependent steps.
std::int64_t trsm_leaf_width(std::int64_t dim, std::int64_t nb, std::int64_t max_inverse) {
  nb = std::min(nb, max_inverse);
  if (nb > 32) nb = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(nb)));
  while (nb > 32 && dim < 4 * nb) nb /= 2;
  return std::max<std::int64_t>(1, std::min(nb, dim));
}

void trsm(Engine& e, Side side, Uplo uplo, Op transa, Diag diag, std::int64_t m, std::int64_t n, Scalar alpha,
          MatView a, MatView b, Blocking blk) {
  if (m == 0 || n == 0) return;
  if (alpha.is_zero()) {  // B = 0, A not referenced
    e.scale(m, n, alpha, b);
    return;
  }
  const DataType t = e.data();
  const bool left = side == Side::Left;
  const std::int64_t dim = left ? m : n;
  // Left: op(A) lower-triangular solves top-down; right: op(A) upper-triangular solves left to right.
  const bool op_lower = (uplo == Uplo::Lower) == (transa == Op::N);
  const std::int64_t nb = trsm_leaf_width(dim, blk.nb, e.max_inverse());
  const bool whole = dim > nb && b.ld * n * gen::storage_bytes(t) <= blk.solution_bytes;
  Scratch inverses(e, dim, nb);
  Scratch scratch(e, whole ? b.ld : left ? nb : m, whole || left ? n : nb);  // whole: S with B's ld
  e.invert_diagonal_blocks(uplo, diag, dim, nb, a, inverses.view());
  if (!alpha.is_one()) e.scale(m, n, alpha, b);  // after the inverses: a refusal before here changed nothing
  const bool forward = left ? op_lower : !op_lower;
  Trsm{e,  left, uplo, transa, diag, m, n, a, b, inverses.view(), scratch.view(), whole, nb, forward, t,
       dim}
      .run(0, dim);
}

}  // namespace ptxblas::blas3
