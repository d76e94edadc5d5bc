#include "gemm_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "device_buffer.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

constexpr std::size_t kGuard = 64;  // elements after C that nobody may write

// Column-major rows x cols with leading dimension ld: random in the matrix, NaN in the padding
// rows (a kernel that reads them would show it).
std::vector<cd> random_matrix(Elem e, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::mt19937_64& rng) {
  std::vector<cd> v(static_cast<std::size_t>(ld * cols), cd(std::nan(""), std::nan("")));
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) v[static_cast<std::size_t>(i + j * ld)] = random_value(e, rng);
  return v;
}

bool bad(cd v) { return !std::isfinite(v.real()) || !std::isfinite(v.imag()); }

// First few elements of `got` (m x n in ldc) outside their bounds, or "".
std::string compare(const char* who, const Gemm& g, const std::vector<cd>& got, const Reference& ref,
                    const std::vector<double>& bounds) {
  std::ostringstream os;
  int shown = 0;
  std::int64_t wrong = 0;
  for (std::int64_t j = 0; j < g.n; ++j) {
    for (std::int64_t i = 0; i < g.m; ++i) {
      const auto at = static_cast<std::size_t>(i + j * g.m);
      const cd v = got[static_cast<std::size_t>(i + j * g.ldc)];
      const cd want = ref.c[at];
      const double bound = bounds[at];
      const double err = std::abs(v - want);
      if (bad(v) || !(err <= bound)) {
        ++wrong;
        if (shown++ < 4)
          os << "\n  " << who << " C(" << i << "," << j << ") = " << v << ", expected " << want << " (|err| "
             << err << " > bound " << bound << ")";
      }
    }
  }
  if (!wrong) return {};
  std::ostringstream head;
  head << who << ": " << wrong << " of " << g.m * g.n << " elements wrong" << os.str();
  return head.str();
}

// Bytes of C outside the m x n matrix (padding rows and the guard after it) must be as poisoned.
std::string untouched_outside(const Gemm& g, Elem e, const std::vector<unsigned char>& after) {
  const std::size_t es = elem_bytes(e);
  for (std::size_t i = 0; i < after.size() / es; ++i) {
    const auto idx = static_cast<std::int64_t>(i);
    const bool inside = g.m > 0 && g.n > 0 && idx < g.ldc * g.n && idx % g.ldc < g.m;
    if (inside) continue;
    for (std::size_t b = 0; b < es; ++b)
      if (after[i * es + b] != 0xFF) {
        std::ostringstream os;
        os << "ptxblas wrote element " << i << " outside the m x n matrix (ldc " << g.ldc << ")";
        return os.str();
      }
  }
  return {};
}

struct Scalars {
  std::vector<unsigned char> alpha, beta;
};

}  // namespace

std::string describe(const Entry& e, const Gemm& g) {
  std::ostringstream os;
  auto op = [](cublasOperation_t o) { return o == CUBLAS_OP_N ? 'N' : o == CUBLAS_OP_T ? 'T' : 'C'; };
  os << e.name << " " << op(g.ta) << op(g.tb) << " m=" << g.m << " n=" << g.n << " k=" << g.k << " lda=" << g.lda
     << " ldb=" << g.ldb << " ldc=" << g.ldc << " alpha=" << g.alpha << " beta=" << g.beta;
  return os.str();
}

std::int64_t leading_dim(std::int64_t rows, bool pad, std::mt19937_64& rng) {
  const std::int64_t base = std::max<std::int64_t>(1, rows);
  return pad ? base + 1 + static_cast<std::int64_t>(rng() % 9) : base;
}

CheckResult check_gemm(const Entry& e, const Gemm& g, cublasHandle_t handle, std::mt19937_64& rng,
                       const CheckOptions& opt) {
  const std::vector<cd> a = random_matrix(e.elem, a_rows(g), a_cols(g), g.lda, rng);
  const std::vector<cd> b = random_matrix(e.elem, b_rows(g), b_cols(g), g.ldb, rng);
  const std::size_t c_elems = static_cast<std::size_t>(g.ldc * g.n) + kGuard;
  const std::size_t es = elem_bytes(e.elem);

  // C: poisoned everywhere (all-ones bytes are NaN in every type), values only when beta reads them.
  std::vector<unsigned char> c_bytes(c_elems * es, 0xFF);
  std::vector<cd> c = decode(e.elem, c_bytes);
  if (g.beta != 0.0) {
    for (std::int64_t j = 0; j < g.n; ++j)
      for (std::int64_t i = 0; i < g.m; ++i) {
        const auto at = static_cast<std::size_t>(i + j * g.ldc);
        c[at] = random_value(e.elem, rng);
        const std::vector<unsigned char> one = encode(e.elem, {c[at]});
        std::memcpy(c_bytes.data() + at * es, one.data(), es);
      }
  }
  const Gemm gs{g.ta, g.tb, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, round_to(e.scal, g.alpha), round_to(e.scal, g.beta)};
  const Reference ref = reference(gs, e, a, b, c);

  const std::vector<unsigned char> a_bytes = encode(e.elem, a), b_bytes = encode(e.elem, b);
  // C at c_offset elements into its buffer, the bytes before it poisoned as well.
  const std::size_t c_off = static_cast<std::size_t>(std::max<std::int64_t>(opt.c_offset, 0)) * es;
  DeviceBuffer da(a_bytes.size()), db(b_bytes.size()), dc_ptx_buf(c_off + c_bytes.size()),
      dc_real_buf(c_off + c_bytes.size()), dscal(64);
  if (!da.p || !db.p || !dc_ptx_buf.p || !dc_real_buf.p || !dscal.p) return {"cudaMalloc failed", {}};
  void* const dc_ptx = static_cast<unsigned char*>(dc_ptx_buf.p) + c_off;
  void* const dc_real = static_cast<unsigned char*>(dc_real_buf.p) + c_off;
  TRY_CUDA(cudaMemcpy(da.p, a_bytes.data(), a_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(db.p, b_bytes.data(), b_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemset(dc_ptx_buf.p, 0xFF, c_off + c_bytes.size()));
  TRY_CUDA(cudaMemset(dc_real_buf.p, 0xFF, c_off + c_bytes.size()));
  TRY_CUDA(cudaMemcpy(dc_ptx, c_bytes.data(), c_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(dc_real, c_bytes.data(), c_bytes.size(), cudaMemcpyHostToDevice));
  // Pageable copies may return before their DMA lands; kernels on a non-blocking stream would race.
  TRY_CUDA(cudaDeviceSynchronize());

  Scalars s{encode(e.scal, gs.alpha), encode(e.scal, gs.beta)};
  const void* alpha = s.alpha.data();
  const void* beta = s.beta.data();
  if (opt.device_scalars) {
    auto* base = static_cast<unsigned char*>(dscal.p);
    TRY_CUDA(cudaMemcpy(base, s.alpha.data(), s.alpha.size(), cudaMemcpyHostToDevice));
    TRY_CUDA(cudaMemcpy(base + 32, s.beta.data(), s.beta.size(), cudaMemcpyHostToDevice));
    alpha = base;
    beta = base + 32;
    if (cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
      return {"cublasSetPointerMode failed", {}};
  }
  CheckResult out;
  const cublasStatus_t sp =
      e.ptx(handle, g.ta, g.tb, g.m, g.n, g.k, alpha, da.p, g.lda, db.p, g.ldb, beta, dc_ptx, g.ldc);
  out.kernel = last_call();
  const cublasStatus_t sr =
      e.real(handle, g.ta, g.tb, g.m, g.n, g.k, alpha, da.p, g.lda, db.p, g.ldb, beta, dc_real, g.ldc);
  if (opt.device_scalars) cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
  cudaStream_t stream = nullptr;
  cublasGetStream(handle, &stream);
  TRY_CUDA(cudaStreamSynchronize(stream));
  TRY_CUDA(cudaGetLastError());

  if (sp != CUBLAS_STATUS_SUCCESS || sr != CUBLAS_STATUS_SUCCESS) {
    out.failure = std::string("status: ptxblas ") + cublasGetStatusName(sp) + ", cuBLAS " + cublasGetStatusName(sr);
    return out;
  }
  if (opt.expect_served && (out.kernel.rfind("forwarded", 0) == 0 || out.kernel.rfind("error", 0) == 0 ||
                            out.kernel == "none")) {
    out.failure = "not served by ptxblas: " + out.kernel;
    return out;
  }
  std::vector<unsigned char> got_ptx(c_bytes.size()), got_real(c_bytes.size()), before_c(c_off);
  TRY_CUDA(cudaMemcpy(got_ptx.data(), dc_ptx, got_ptx.size(), cudaMemcpyDeviceToHost));
  TRY_CUDA(cudaMemcpy(got_real.data(), dc_real, got_real.size(), cudaMemcpyDeviceToHost));
  if (c_off) TRY_CUDA(cudaMemcpy(before_c.data(), dc_ptx_buf.p, c_off, cudaMemcpyDeviceToHost));
  if (std::any_of(before_c.begin(), before_c.end(), [](unsigned char x) { return x != 0xFF; })) {
    out.failure = "ptxblas wrote before C's first element";
    return out;
  }
  const std::vector<cd> p = decode(e.elem, got_ptx), r = decode(e.elem, got_real);

  // ptxblas against the float64 reference with its own accumulation precision; the real cuBLAS
  // against the same reference with its (a failure there means the harness, not ptxblas, is wrong).
  // A forwarded call is the real cuBLAS's arithmetic (e.g. f16 accumulation under pedantic math),
  // so it is held to cuBLAS's bound.
  const bool forwarded = out.kernel.rfind("forwarded", 0) == 0;
  std::string why = untouched_outside(g, e.elem, got_ptx);
  if (why.empty()) why = compare("ptxblas", g, p, ref, forwarded ? ref.bound_cublas : ref.bound);
  if (why.empty()) why = compare("cuBLAS (harness check)", g, r, ref, ref.bound_cublas);
  out.failure = why;
  return out;
}

}  // namespace gputest
