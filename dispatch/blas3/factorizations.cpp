#include "factorizations.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "routines.hpp"

namespace ptxblas::blas3 {
namespace {

constexpr Scalar kOne{1, 0}, kMinusOne{-1, 0};

// A host buffer of the engine, released (after the engine's copies) on scope exit.
class HostBuffer {
 public:
  HostBuffer(Engine& e, std::size_t bytes) : e_(e), p_(e.host_buffer(bytes)) {}
  ~HostBuffer() { e_.release_host_buffer(p_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* get() const { return p_; }

 private:
  Engine& e_;
  void* p_;
};

// Adds the seconds `f` takes to `total`.
template <class F>
auto timed(double& total, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = f();
  total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// A factorization's FactorTimes (the caller's, or its own), total_seconds set on every way out.
class Clock {
 public:
  explicit Clock(FactorTimes* times) : tm_(times ? *times : own_), t0_(std::chrono::steady_clock::now()) {}
  ~Clock() { tm_.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  FactorTimes& times() { return tm_; }

 private:
  FactorTimes own_;
  FactorTimes& tm_;
  std::chrono::steady_clock::time_point t0_;
};

std::size_t bytes_of(Engine& e, std::int64_t rows, std::int64_t cols) {
  return static_cast<std::size_t>(rows * cols) * static_cast<std::size_t>(gen::storage_bytes(e.data()));
}

// Columns a recursion step of the engine's LU panel leaves to lu_columns (one launch a column,
// each updating at most this many columns; wider parts go through TRSM and GEMM).
constexpr std::int64_t kLuColumns = 32;

// LU of the m x n panel part a (m >= n) on the engine, recursively as LAPACK's ?getrf2: the left
// half, TRSM and GEMM of the right half, the right half. lu_columns swaps whole rows of the
// panel (`width` columns from `left` columns before a), so no interchange is left to apply
// afterwards; pivots are relative to the panel's first row (row0 rows above a's).
void lu_panel(Engine& e, std::int64_t m, std::int64_t n, MatView a, std::int32_t* piv, std::int64_t row0,
              std::int64_t left, std::int64_t width) {
  if (n <= kLuColumns) return e.lu_columns(m, n, a, piv, row0, left, width);
  const DataType t = e.data();
  const std::int64_t n1 = std::max(kLuColumns, n / 2 / kLuColumns * kLuColumns), n2 = n - n1;
  lu_panel(e, m, n1, a, piv, row0, left, width);
  trsm(e, Side::Left, Uplo::Lower, Op::N, Diag::Unit, n1, n2, kOne, a, sub(a, 0, n1, t));
  e.gemm(Op::N, Op::N, m - n1, n2, n1, kMinusOne, sub(a, n1, 0, t), sub(a, 0, n1, t), kOne, sub(a, n1, n1, t));
  lu_panel(e, m - n1, n2, sub(a, n1, n1, t), piv + n1, row0 + n1, left + n1, width);
}

bool is_zero(const unsigned char* p, DataType t) {
  auto zero = [p](auto real, int parts) {
    for (int i = 0; i < parts; ++i) {
      decltype(real) v;
      std::memcpy(&v, p + i * sizeof v, sizeof v);
      if (v != 0) return false;
    }
    return true;
  };
  switch (t) {
    case DataType::F32: return zero(0.0f, 1);
    case DataType::F64: return zero(0.0, 1);
    case DataType::C32: return zero(0.0f, 2);
    default: return zero(0.0, 2);
  }
}

// getrf with every step on the engine (no host LAPACK): panels by lu_panel, then the same
// interchanges, TRSM and GEMM of the rest as the hybrid form. The pivots and U's diagonal (INFO:
// its first exact zero, as LAPACK's) come to the host once at the end.
int getrf_on_engine(Engine& e, std::int64_t m, std::int64_t n, MatView a, int* ipiv, std::int64_t nb,
                    FactorTimes& tm) {
  const DataType t = e.data();
  const std::int64_t mn = std::min(m, n), es = gen::storage_bytes(t);
  const std::int64_t piv_rows = (mn * 4 + es - 1) / es;  // the int32 pivots in elements of scratch
  Scratch piv_store(e, piv_rows, 1);
  auto* piv = static_cast<std::int32_t*>(piv_store.view().p);
  for (std::int64_t j = 0; j < mn; j += nb) {
    const std::int64_t jb = std::min(nb, mn - j), right = n - j - jb, below = m - j - jb;
    lu_panel(e, m - j, jb, sub(a, j, j, t), piv + j, 0, 0, jb);
    ++tm.panels;
    e.swap_rows_engine(j, sub(a, j, 0, t), piv + j, jb);  // the columns before the panel
    if (right == 0) continue;
    e.swap_rows_engine(right, sub(a, j, j + jb, t), piv + j, jb);
    trsm(e, Side::Left, Uplo::Lower, Op::N, Diag::Unit, jb, right, kOne, sub(a, j, j, t), sub(a, j, j + jb, t));
    if (below > 0)
      e.gemm(Op::N, Op::N, below, right, jb, kMinusOne, sub(a, j + jb, j, t), sub(a, j, j + jb, t), kOne,
             sub(a, j + jb, j + jb, t));
  }
  HostBuffer host_piv(e, static_cast<std::size_t>(piv_rows * es)), diag(e, static_cast<std::size_t>(mn * es));
  e.to_host(piv_rows, 1, piv_store.view(), host_piv.get(), piv_rows);
  e.to_host(1, mn, {a.p, a.ld + 1}, diag.get(), 1);  // U's diagonal: a stride of ld + 1 elements
  timed(tm.wait_seconds, [&] { return e.wait_host(), 0; });
  const auto* hp = static_cast<const std::int32_t*>(host_piv.get());
  int info = 0;
  for (std::int64_t i = 0; i < mn; ++i) {
    ipiv[i] = hp[i] + static_cast<int>(i / nb * nb) + 1;
    if (info == 0 && is_zero(static_cast<const unsigned char*>(diag.get()) + i * es, t)) info = static_cast<int>(i) + 1;
  }
  return info;
}

}  // namespace

int potrf(Engine& e, const HostFactor& host, Uplo uplo, std::int64_t n, MatView a, std::int64_t nb,
          FactorTimes* times) {
  if (n == 0) return 0;
  Clock clock(times);
  FactorTimes& tm = clock.times();
  auto wait = [&] { timed(tm.wait_seconds, [&] { return e.wait_host(), 0; }); };
  const DataType t = e.data();
  const bool herm = gen::is_complex(t);
  const Op h = herm ? Op::C : Op::T;
  const bool lower = uplo == Uplo::Lower;
  nb = std::clamp<std::int64_t>(nb, 1, n);
  e.set_quick_plans(true);  // every step's shape is new (perf notes §72)
  HostBuffer diag(e, bytes_of(e, nb, nb));
  // Upper is lower transposed: at(r, c) is block (r, c) of the lower form, the GEMM and TRSM
  // shapes swap their dimensions and operands, the transposes move to the other side.
  auto at = [&](std::int64_t r, std::int64_t c) { return lower ? sub(a, r, c, t) : sub(a, c, r, t); };
  const Op first = lower ? Op::N : h, second = lower ? h : Op::N;
  for (std::int64_t j = 0; j < n; j += nb) {
    const std::int64_t jb = std::min(nb, n - j), rest = n - j - jb;
    // The diagonal block, updated by the columns (rows) before it, goes to the host; meanwhile
    // the GEMM updates the panel below (beside) it.
    if (j > 0) e.gemm_triangle(uplo, herm, first, second, jb, j, kMinusOne, at(j, 0), at(j, 0), kOne, at(j, j));
    e.to_host(jb, jb, at(j, j), diag.get(), jb);
    if (j > 0 && rest > 0) {
      const MatView panel = at(j + jb, 0), row = at(j, 0);
      e.gemm(first, second, lower ? rest : jb, lower ? jb : rest, j, kMinusOne, lower ? panel : row,
             lower ? row : panel, kOne, at(j + jb, j));
    }
    wait();
    const int info = timed(tm.host_seconds, [&] { return host.potrf(uplo, jb, diag.get(), jb); });
    ++tm.panels;
    e.from_host(jb, jb, diag.get(), jb, at(j, j));  // on failure too: LAPACK leaves it so
    if (info != 0) {
      e.wait_host();
      return static_cast<int>(j) + info;
    }
    if (rest > 0)
      trsm(e, lower ? Side::Right : Side::Left, uplo, h, Diag::NonUnit, lower ? rest : jb, lower ? jb : rest, kOne,
           at(j, j), at(j + jb, j));
  }
  e.wait_host();
  return 0;
}

int getrf(Engine& e, const HostFactor& host, std::int64_t m, std::int64_t n, MatView a, int* ipiv, std::int64_t nb,
          FactorTimes* times, LuPanels panels) {
  const std::int64_t mn = std::min(m, n);
  if (mn == 0) return 0;
  Clock clock(times);
  FactorTimes& tm = clock.times();
  auto wait = [&] { timed(tm.wait_seconds, [&] { return e.wait_host(), 0; }); };
  const DataType t = e.data();
  nb = std::clamp<std::int64_t>(nb, 1, mn);
  e.set_quick_plans(true);
  if (panels == LuPanels::Engine && e.has_lu_columns()) return getrf_on_engine(e, m, n, a, ipiv, nb, tm);
  HostBuffer panel(e, bytes_of(e, m, nb));
  // Every panel's pivots, relative to its first row, in page-locked memory (from pageable memory
  // the driver may wait for the stream before copying) kept until the engine has read them.
  HostBuffer pivot_buffer(e, static_cast<std::size_t>(mn) * sizeof(std::int32_t));
  auto* pivots = static_cast<std::int32_t*>(pivot_buffer.get());
  std::vector<int> local(static_cast<std::size_t>(nb));
  int info = 0;
  e.to_host(m, std::min(nb, mn), a, panel.get(), m);
  wait();
  for (std::int64_t j = 0; j < mn; j += nb) {
    const std::int64_t jb = std::min(nb, mn - j), rows = m - j, right = n - j - jb;
    const int pinfo = timed(tm.host_seconds, [&] { return host.getrf(rows, jb, panel.get(), rows, local.data()); });
    ++tm.panels;
    if (pinfo > 0 && info == 0) info = pinfo + static_cast<int>(j);
    std::int32_t* piv = pivots + j;
    for (std::int64_t i = 0; i < jb; ++i) {
      ipiv[j + i] = local[static_cast<std::size_t>(i)] + static_cast<int>(j);
      piv[i] = local[static_cast<std::size_t>(i)] - 1;
    }
    e.from_host(rows, jb, panel.get(), rows, sub(a, j, j, t));
    e.swap_rows(j, sub(a, j, 0, t), piv, jb);  // the columns before the panel
    if (right == 0) continue;
    e.swap_rows(right, sub(a, j, j + jb, t), piv, jb);
    trsm(e, Side::Left, Uplo::Lower, Op::N, Diag::Unit, jb, right, kOne, sub(a, j, j, t), sub(a, j, j + jb, t));
    const std::int64_t next = j + jb, below = m - next;
    if (below == 0) continue;
    // Look-ahead: the next panel's columns first, then its copy to the host, then the rest,
    // which the engine runs while the host factors that panel.
    const std::int64_t jbn = next < mn ? std::min(nb, mn - next) : 0;
    const MatView l21 = sub(a, next, j, t);  // the panel's L below its diagonal block
    if (jbn > 0) {
      e.gemm(Op::N, Op::N, below, jbn, jb, kMinusOne, l21, sub(a, j, next, t), kOne, sub(a, next, next, t));
      e.to_host(below, jbn, sub(a, next, next, t), panel.get(), below);
    }
    if (right > jbn)
      e.gemm(Op::N, Op::N, below, right - jbn, jb, kMinusOne, l21, sub(a, j, next + jbn, t), kOne,
             sub(a, next, next + jbn, t));
    wait();
  }
  e.wait_host();
  return info;
}

}  // namespace ptxblas::blas3
