#include "offload_split.hpp"

#include <algorithm>

namespace ptxblas::dispatch {
namespace {

using blas3::MatView;
using blas3::Scalar;
using gen::Op;

constexpr std::int64_t kMinStrip = 64;   // narrower strips leave most of the GPU idle
constexpr std::int64_t kMinBlock = 128;

std::size_t element_bytes(gen::DataType t) { return static_cast<std::size_t>(gen::storage_bytes(t)); }

// The pieces [start, start + width) of [0, extent), each made by make(start, count).
template <class Make>
std::vector<OffloadTile> strips(std::int64_t extent, std::int64_t width, Make make) {
  std::vector<OffloadTile> tiles;
  for (std::int64_t s = 0; s < extent; s += width) tiles.push_back(make(s, std::min(width, extent - s)));
  return tiles;
}

// A strip of a stored operand along op(X)'s rows (op N: X's rows, else its columns).
HostOperand op_rows(const HostOperand& x, Op op, std::int64_t first, std::int64_t count, std::size_t es) {
  return op == Op::N ? row_slice(x, first, count, es) : column_slice(x, first, count, es);
}
// ... along op(X)'s columns.
HostOperand op_cols(const HostOperand& x, Op op, std::int64_t first, std::int64_t count, std::size_t es) {
  return op == Op::N ? column_slice(x, first, count, es) : row_slice(x, first, count, es);
}

std::size_t host_bytes(const HostOperand& o) { return static_cast<std::size_t>(o.rows * o.cols); }

}  // namespace

std::vector<TiledWork> gemm_tiles(gen::DataType t, Op ta, Op tb, std::int64_t m, std::int64_t n, std::int64_t k,
                                  Scalar alpha, Scalar beta, const HostOperand& a, const HostOperand& b,
                                  const HostOperand& c) {
  const std::size_t es = element_bytes(t);
  TiledWork columns{{a}, n, kMinStrip, [=](std::int64_t w) {
                      return strips(n, w, [&](std::int64_t j, std::int64_t nw) {
                        return OffloadTile{{op_cols(b, tb, j, nw, es), column_slice(c, j, nw, es)},
                                           [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                             e.gemm(ta, tb, m, nw, k, alpha, v[0], v[1], beta, v[2]);
                                           }};
                      });
                    }};
  TiledWork rows{{b}, m, kMinStrip, [=](std::int64_t w) {
                   return strips(m, w, [&](std::int64_t i, std::int64_t mw) {
                     return OffloadTile{{op_rows(a, ta, i, mw, es), row_slice(c, i, mw, es)},
                                        [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                          e.gemm(ta, tb, mw, n, k, alpha, v[1], v[0], beta, v[2]);
                                        }};
                   });
                 }};
  TiledWork blocks{{}, std::max(m, n), kMinBlock, [=](std::int64_t w) {
                     std::vector<OffloadTile> tiles;
                     for (std::int64_t j = 0; j < n; j += w)
                       for (std::int64_t i = 0; i < m; i += w) {
                         const std::int64_t mw = std::min(w, m - i), nw = std::min(w, n - j);
                         tiles.push_back({{op_rows(a, ta, i, mw, es), op_cols(b, tb, j, nw, es),
                                           block_slice(c, i, j, mw, nw, es)},
                                          [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                            e.gemm(ta, tb, mw, nw, k, alpha, v[0], v[1], beta, v[2]);
                                          }});
                       }
                     return tiles;
                   }};
  if (host_bytes(a) <= host_bytes(b)) return {columns, rows, blocks};
  return {rows, columns, blocks};
}

std::vector<TiledWork> symm_tiles(gen::DataType t, blas3::Side side, blas3::Uplo uplo, bool hermitian, std::int64_t m,
                                  std::int64_t n, Scalar alpha, Scalar beta, const HostOperand& a,
                                  const HostOperand& b, const HostOperand& c) {
  const std::size_t es = element_bytes(t);
  if (side == blas3::Side::Left)  // C's columns: A (m x m) times B's
    return {{{a}, n, kMinStrip, [=](std::int64_t w) {
               return strips(n, w, [&](std::int64_t j, std::int64_t nw) {
                 return OffloadTile{{column_slice(b, j, nw, es), column_slice(c, j, nw, es)},
                                    [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                      blas3::symm(e, side, uplo, hermitian, m, nw, alpha, v[0], v[1], beta, v[2]);
                                    }};
               });
             },
             true}};
  return {{{a}, m, kMinStrip, [=](std::int64_t w) {  // C's rows: B's times A (n x n)
             return strips(m, w, [&](std::int64_t i, std::int64_t mw) {
               return OffloadTile{{row_slice(b, i, mw, es), row_slice(c, i, mw, es)},
                                  [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                    blas3::symm(e, side, uplo, hermitian, mw, n, alpha, v[0], v[1], beta, v[2]);
                                  }};
             });
           },
           true}};
}

std::vector<TiledWork> triangular_tiles(gen::DataType t, const Triangular& tr, std::int64_t m, std::int64_t n,
                                        Scalar alpha, const HostOperand& a, const HostOperand& b) {
  const std::size_t es = element_bytes(t);
  const bool left = tr.side == blas3::Side::Left;  // B's columns are independent, else its rows
  return {{{a}, left ? n : m, kMinStrip, [=](std::int64_t w) {
             return strips(left ? n : m, w, [&](std::int64_t s, std::int64_t count) {
               const std::int64_t mm = left ? m : count, nn = left ? count : n;
               return OffloadTile{{left ? column_slice(b, s, count, es) : row_slice(b, s, count, es)},
                                  [=](blas3::Engine& e, const std::vector<MatView>& v) {
                                    if (tr.solve)
                                      blas3::trsm(e, tr.side, tr.uplo, tr.transa, tr.diag, mm, nn, alpha, v[0], v[1]);
                                    else
                                      blas3::trmm(e, tr.side, tr.uplo, tr.transa, tr.diag, mm, nn, alpha, v[0], v[1],
                                                  v[1]);
                                  }};
             });
           },
           !tr.solve}};  // TRMM materialises the triangle
}

std::vector<TiledWork> rank_k_tiles(gen::DataType t, const blas3::RankK& r, bool two, Scalar alpha, Scalar beta,
                                    const std::vector<HostOperand>& ops) {
  const std::size_t es = element_bytes(t);
  const std::int64_t n = r.n, k = r.k;
  const bool lower = r.uplo == blas3::Uplo::Lower, by_rows = r.trans == Op::N;
  const HostOperand c = ops.back();
  std::vector<HostOperand> shared(ops.begin(), ops.end() - 1);
  // The op that reads op(X)'s rows as the columns of a product's second factor (op(X)^T or ^H).
  const Op second = by_rows ? (r.hermitian ? Op::C : Op::T) : Op::N;
  // SYR2K's second product has alpha, HER2K's conj(alpha).
  const Scalar alpha2 = r.hermitian ? Scalar{alpha.re, -alpha.im} : alpha;
  return {{shared, n, kMinStrip, [=](std::int64_t w) {
             return strips(n, w, [&](std::int64_t j, std::int64_t nw) {
               // The rectangle of C's triangle beside the diagonal block: below it or above it.
               const std::int64_t r0 = lower ? j + nw : 0, rm = lower ? n - j - nw : j;
               HostOperand rect = block_slice(c, r0, j, rm, nw, es);
               rect.triangle = 0;  // written whole; the diagonal block keeps C's triangle
               return OffloadTile{
                   {block_slice(c, j, j, nw, nw, es), rect},
                   [=](blas3::Engine& e, const std::vector<MatView>& v) {
                     auto rows_of = [&](MatView x, std::int64_t first) {
                       return by_rows ? blas3::sub(x, first, 0, t) : blas3::sub(x, 0, first, t);
                     };
                     const MatView a = v[0], b = two ? v[1] : v[0];
                     const MatView diag = v[two ? 2 : 1], rect = v[two ? 3 : 2];
                     const blas3::RankK block{r.uplo, r.trans, r.hermitian, nw, k};
                     if (two)
                       blas3::rank_2k(e, block, alpha, rows_of(a, j), rows_of(b, j), beta, diag);
                     else
                       blas3::rank_k(e, block, alpha, rows_of(a, j), rows_of(a, j), beta, diag);
                     if (rm == 0) return;
                     e.gemm(r.trans, second, rm, nw, k, alpha, rows_of(a, r0), rows_of(b, j), beta, rect);
                     if (two)
                       e.gemm(r.trans, second, rm, nw, k, alpha2, rows_of(b, r0), rows_of(a, j), Scalar{1, 0}, rect);
                   }};
             });
           }}};
}

}  // namespace ptxblas::dispatch
