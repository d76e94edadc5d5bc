// LAPACK's Cholesky and LU factorizations, ?potrf_ and ?getrf_ for S, D, C, Z (gfortran
// convention, as the BLAS symbols). A reference LAPACK calls the BLAS once per block, and every
// such call would cross PCIe with its operands (perf notes §13); here a large factorization is
// one offloaded call: the matrix goes to the device once, the GEMM-shaped steps run there, and
// only the panels visit the host's own LAPACK (dispatch/blas3/factorizations.hpp). Small ones, or
// with no GPU, go to a host LAPACK whole: the CPU BLAS library's (what that library alone would
// run; OpenBLAS carries one), else the process's next ?potrf_ / ?getrf_ (lapack.cpu_calls =
// "program" puts it first), else built-in loops.
#include <algorithm>
#include <atomic>
#include <cstdio>

#include "builtin_lapack.hpp"
#include "config.hpp"
#include "cpu_blas.hpp"
#include "export.hpp"
#include "factorizations.hpp"
#include "host_routines.hpp"

namespace ptxblas::shim {
namespace {

// Panel width (ptxblas.toml lapack.panel, 256 by default): the GEMM steps' K (SYRK D at k = 256
// runs 36 TFLOP/s on the H100, report 8294d41f) against the host's share (potrf's diagonal
// blocks, getrf's m x nb panels: n^2 nb flops on the CPU).
std::int64_t panel() { return host::config().lapack_panel; }

using PotrfFn = void (*)(fchar, fint, void*, fint, int*, flen);
using GetrfFn = void (*)(fint, fint, void*, fint, int*, int*);

// A host LAPACK routine, looked up once: for a panel the CPU BLAS library's first, for a whole
// call too unless ptxblas.toml's lapack.cpu_calls says "program" (host_lapack_symbol).
struct HostRoutine {
  std::string symbol;
  bool panel;
  std::atomic<void*> fn{nullptr};
  std::atomic<bool> looked{false};
  void* get() {
    if (!looked.load(std::memory_order_acquire)) {
      const bool cpu_blas_first = panel || !host::config().lapack_program_first;
      fn.store(host::host_lapack_symbol(symbol.c_str(), cpu_blas_first), std::memory_order_release);
      looked.store(true, std::memory_order_release);
    }
    return fn.load(std::memory_order_acquire);
  }
};

template <class T>
struct Lapack {
  static std::string symbol(const char* r) { return std::string(1, FT<T>::p) + r + "_"; }
  static std::string xerbla(const char* r) { return std::string(1, static_cast<char>(FT<T>::p - 32)) + r; }
  std::string potrf_symbol = symbol("potrf"), getrf_symbol = symbol("getrf");
  std::string potrf_name = xerbla("POTRF"), getrf_name = xerbla("GETRF");
  // Whole calls on the CPU: the CPU BLAS library's LAPACK first, as the panels (a small dgetrf on
  // OpenBLAS's own: 26 us at n = 64 against 40 for the reference LAPACK's 127 BLAS calls, §75).
  // LU panels prefer the recursive ?getrf2_ (LAPACK >= 3.6): on the H100 machine's 16 cores it
  // factors 16384 x 256 in 9.7-11.4 ms where OpenBLAS 0.3.26's own dgetrf takes 13.4 (§73).
  HostRoutine potrf_call{potrf_symbol, false}, getrf_call{getrf_symbol, false};
  HostRoutine potrf_panel{potrf_symbol, true}, getrf_panel{getrf_symbol, true};
  HostRoutine getrf2_panel{symbol("getrf2"), true};
  QuickCpu potrf_quick, getrf_quick;  // small calls straight to the host LAPACK
  PotrfFn potrf() { return reinterpret_cast<PotrfFn>(potrf_call.get()); }
  GetrfFn getrf() { return reinterpret_cast<GetrfFn>(getrf_call.get()); }

  // The panels' host steps: the host LAPACK, else the built-in loops.
  blas3::HostFactor host_factor() {
    blas3::HostFactor h;
    using std::int64_t;
    h.potrf = [fn = reinterpret_cast<PotrfFn>(potrf_panel.get())](blas3::Uplo u, int64_t n, void* a, int64_t ld) {
      if (!fn) return host::builtin_potrf(u == blas3::Uplo::Lower, n, static_cast<T*>(a), ld);
      const char c = u == blas3::Uplo::Lower ? 'L' : 'U';
      const int n32 = static_cast<int>(n), ld32 = static_cast<int>(ld);
      int info = 0;
      fn(&c, &n32, a, &ld32, &info, 1);
      return info;
    };
    void* getrf = getrf2_panel.get() ? getrf2_panel.get() : getrf_panel.get();
    h.getrf = [fn = reinterpret_cast<GetrfFn>(getrf)](int64_t m, int64_t n, void* a, int64_t ld, int* ipiv) {
      if (!fn) return host::builtin_getrf(m, n, static_cast<T*>(a), ld, ipiv);
      const int m32 = static_cast<int>(m), n32 = static_cast<int>(n), ld32 = static_cast<int>(ld);
      int info = 0;
      fn(&m32, &n32, a, &ld32, ipiv, &info);
      return info;
    };
    return h;
  }
};

template <class T>
Lapack<T>& lapack() {
  static Lapack<T> l;
  return l;
}

// "64 panels: host 0.512 s, waits 0.101 s, issuing 0.050 s": the host side of an offloaded
// factorization.
std::string note_of(const blas3::FactorTimes& t) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%d panels: host %.3f s, waits %.3f s, issuing %.3f s", t.panels, t.host_seconds,
                t.wait_seconds, t.total_seconds - t.host_seconds - t.wait_seconds);
  return buf;
}

int steps_of(std::int64_t n) { return static_cast<int>((n + panel() - 1) / panel()); }

template <class T>
void potrf(fchar uplo, fint n, T* a, fint lda, int* info) {
  Lapack<T>& lp = lapack<T>();
  *info = 0;
  if (!lsame(*uplo, 'U') && !lsame(*uplo, 'L'))
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*lda < std::max(1, *n))
    *info = -4;
  if (*info) {
    report_bad_argument(lp.potrf_name.c_str(), -*info);
    return;
  }
  if (*n == 0) return;
  const bool lower = lsame(*uplo, 'L');
  const PotrfFn fn = lp.potrf();
  const double flops = cplx_factor(FT<T>::data) * *n * double(*n) * *n / 3;
  if (void* f = quick_cpu(lp.potrf_quick, "potrf", lp.potrf_symbol.c_str(), flops, reinterpret_cast<void*>(fn))) {
    reinterpret_cast<PotrfFn>(f)(uplo, n, a, lda, info, 1);
    return;
  }
  dispatch::HostOperand op{a, *n, *n, *lda, true, lower ? 'L' : 'U'};
  HostCall call{{lp.potrf_symbol.c_str(), flags({*uplo}), *n, *n, 0},
                "potrf",
                lp.potrf_symbol.c_str(),
                FT<T>::data,
                flops,
                {op},
                reinterpret_cast<void*>(fn),
                steps_of(*n)};
  int result = 0;
  blas3::FactorTimes times;
  call.gpu_note = [&] { return note_of(times); };
  run_host(
      call, [&](void* f) { reinterpret_cast<PotrfFn>(f)(uplo, n, a, lda, &result, 1); },
      [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
        CpuOnlyScope cpu_only;
        const blas3::Uplo u = lower ? blas3::Uplo::Lower : blas3::Uplo::Upper;
        result = blas3::potrf(e, lp.host_factor(), u, *n, v[0], panel(), &times);
      });
  *info = result;
}

template <class T>
void getrf(fint m, fint n, T* a, fint lda, int* ipiv, int* info) {
  Lapack<T>& lp = lapack<T>();
  *info = 0;
  if (*m < 0)
    *info = -1;
  else if (*n < 0)
    *info = -2;
  else if (*lda < std::max(1, *m))
    *info = -4;
  if (*info) {
    report_bad_argument(lp.getrf_name.c_str(), -*info);
    return;
  }
  if (*m == 0 || *n == 0) return;
  const double mn = std::min(*m, *n), mx = std::max(*m, *n);
  const GetrfFn fn = lp.getrf();
  const double flops = cplx_factor(FT<T>::data) * (mx * mn * mn - mn * mn * mn / 3);
  if (void* f = quick_cpu(lp.getrf_quick, "getrf", lp.getrf_symbol.c_str(), flops, reinterpret_cast<void*>(fn))) {
    reinterpret_cast<GetrfFn>(f)(m, n, a, lda, ipiv, info);
    return;
  }
  HostCall call{{lp.getrf_symbol.c_str(), "", *m, *n, 0},
                "getrf",
                lp.getrf_symbol.c_str(),
                FT<T>::data,
                flops,
                {dispatch::HostOperand{a, *m, *n, *lda, true}},
                reinterpret_cast<void*>(fn),
                steps_of(static_cast<std::int64_t>(mn))};
  int result = 0;
  blas3::FactorTimes times;
  call.gpu_note = [&] { return note_of(times); };
  run_host(
      call, [&](void* f) { reinterpret_cast<GetrfFn>(f)(m, n, a, lda, ipiv, &result); },
      [&](blas3::Engine& e, const std::vector<blas3::MatView>& v) {
        CpuOnlyScope cpu_only;
        result = blas3::getrf(e, lp.host_factor(), *m, *n, v[0], ipiv, panel(), &times,
                              host::config().lapack_lu_panels_on_gpu ? blas3::LuPanels::Engine : blas3::LuPanels::Host);
      });
  *info = result;
}

}  // namespace
}  // namespace ptxblas::shim

namespace sh = ptxblas::shim;

#define PTXBLAS_FORTRAN_FACTOR(P, T)                                                                        \
  PTXBLAS_EXPORT void P##potrf_(sh::fchar uplo, sh::fint n, T* a, sh::fint lda, int* info, sh::flen) {      \
    sh::potrf<T>(uplo, n, a, lda, info);                                                                    \
  }                                                                                                         \
  PTXBLAS_EXPORT void P##getrf_(sh::fint m, sh::fint n, T* a, sh::fint lda, int* ipiv, int* info) {         \
    sh::getrf<T>(m, n, a, lda, ipiv, info);                                                                 \
  }

PTXBLAS_FORTRAN_FACTOR(s, float)
PTXBLAS_FORTRAN_FACTOR(d, double)
PTXBLAS_FORTRAN_FACTOR(c, std::complex<float>)
PTXBLAS_FORTRAN_FACTOR(z, std::complex<double>)
