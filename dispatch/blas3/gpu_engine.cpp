#include "gpu_engine.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "cuda_driver.hpp"
#include "gemm_call.hpp"
#include "kernel_cache.hpp"
#include "matrix_helpers_ptx.hpp"
#include "offload_copy.hpp"

namespace ptxblas::dispatch {
namespace {

using blas3::Diag;
using blas3::EngineError;
using blas3::MatView;
using blas3::Scratch;
using blas3::Scalar;
using blas3::Uplo;

using gen::kMaxGridY;
constexpr int kDirectInverse = 64;  // the widest inverse run by its own kernel; wider ones are doubled

bool is_f64(gen::DataType t) { return t == gen::DataType::F64 || t == gen::DataType::C64; }

class GpuEngine final : public blas3::Engine {
 public:
  GpuEngine(gen::DataType t, CUstream stream, CUcontext ctx, DeviceInfo dev)
      : t_(t),
        stream_(stream),
        ctx_(ctx),
        dev_(dev),
        d_(cuda_driver()),
        // The widest inverse kernel whose tile fits this device's shared memory per block (H100:
        // S, D, C 128, Z 64); at least the 32-wide one, whose tile fits the 48 KB of any device.
        max_kernel_(std::max(gen::max_inverse_width(t, dev.max_smem_optin), gen::max_inverse_width(t, 48 * 1024))) {}

  gen::DataType data() const override { return t_; }
  // Twice the widest kernel's (perf notes §57); blocks wider than 64 are doubled from 64-wide ones (§58).
  std::int64_t max_inverse() const override { return 2 * max_kernel_; }
  std::string summary() const override { return first_gemm_.empty() ? "helper kernels" : first_gemm_ + " + helpers"; }

  void gemm(gen::Op ta, gen::Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
            MatView b, Scalar beta, MatView c) override {
    run(ta, tb, m, n, k, alpha, a, b, beta, c, gen::kFillWhole);
  }

  // The out-of-place variant of the dispatcher's kernel (KernelConfig::out_of_place).
  void gemm_into(gen::Op ta, gen::Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
                 MatView b, Scalar beta, MatView c, MatView d) override {
    if (d.p != c.p && d.ld != c.ld) throw EngineError("gemm_into: D's leading dimension differs from C's");
    run(ta, tb, m, n, k, alpha, a, b, beta, c, gen::kFillWhole, gen::kBandNone, d);
  }

  // One launch whose blocks each sum only the K range their rows of op(A) / columns of op(B) meet
  // (kernel_abi.hpp kBand*).
  void gemm_band(int band, gen::Op ta, gen::Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha,
                 MatView a, MatView b, Scalar beta, MatView c) override {
    run(ta, tb, m, n, k, alpha, a, b, beta, c, gen::kFillWhole, band);
  }

  // One launch: the kernel's blocks outside the triangle return at once (kernel_abi.hpp fill).
  void gemm_triangle(Uplo uplo, bool hermitian, gen::Op ta, gen::Op tb, std::int64_t n, std::int64_t k,
                     Scalar alpha, MatView a, MatView b, Scalar beta, MatView c) override {
    const int fill = (uplo == Uplo::Lower ? gen::kFillLower : gen::kFillUpper) | (hermitian ? gen::kFillHermitian : 0);
    run(ta, tb, n, n, k, alpha, a, b, beta, c, fill);
  }

  MatView scratch(std::int64_t rows, std::int64_t cols) override {
    const std::int64_t ld = std::max<std::int64_t>(rows, 1);
    const std::size_t bytes = static_cast<std::size_t>(ld * std::max<std::int64_t>(cols, 1)) *
                              static_cast<std::size_t>(gen::storage_bytes(t_));
    CUdeviceptr p = 0;
    if (const CUresult r = d_->cuMemAllocAsync(&p, bytes, stream_); r != CUDA_SUCCESS)
      throw EngineError("scratch: " + cuda_error_text(r));
    scratch_.push_back({p, bytes});
    return {reinterpret_cast<void*>(p), ld};
  }

  void release(MatView w) override {
    if (!w.p) return;
    const auto p = reinterpret_cast<CUdeviceptr>(w.p);
    std::erase_if(scratch_, [p](const Range& r) { return r.first == p; });
    d_->cuMemFreeAsync(p, stream_);
  }

  bool wrote_caller_memory() const override { return wrote_caller_; }

  void symmetrize(Uplo uplo, bool hermitian, std::int64_t n, MatView a, MatView w) override {
    helper({gen::HelperKind::Symmetrize, t_, uplo == Uplo::Lower, hermitian}, n, n, a, w, {});
  }
  void triangle(Uplo uplo, Diag diag, std::int64_t n, MatView a, MatView w) override {
    helper({gen::HelperKind::Triangle, t_, uplo == Uplo::Lower, false, diag == Diag::Unit}, n, n, a, w, {});
  }
  void scale(std::int64_t m, std::int64_t n, Scalar alpha, MatView c) override {
    helper({gen::HelperKind::Scale, t_}, m, n, c, c, alpha);
  }
  void copy(std::int64_t m, std::int64_t n, MatView a, MatView b) override {
    helper({gen::HelperKind::Copy, t_}, m, n, a, b, {});
  }

  ~GpuEngine() override {
    if (copied_ && d_->cuEventDestroy) d_->cuEventDestroy(copied_);
  }

  void swap_rows(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count) override {
    if (n == 0 || count == 0) return;
    // The pivots through stream-ordered scratch; a copy from pageable memory has read the host
    // array when it returns.
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(std::int32_t);
    Scratch piv(*this, static_cast<std::int64_t>((bytes + gen::storage_bytes(t_) - 1) / gen::storage_bytes(t_)), 1);
    const auto dp = reinterpret_cast<CUdeviceptr>(piv.view().p);
    const CUDA_MEMCPY2D c = pitched(true, const_cast<std::int32_t*>(pivots), bytes, dp, bytes, bytes, 1);
    if (const CUresult r = d_->cuMemcpy2DAsync(&c, stream_); r != CUDA_SUCCESS)
      throw EngineError("row interchanges: " + cuda_error_text(r));
    swap_rows_engine(n, a, static_cast<const std::int32_t*>(piv.view().p), count);
  }

  void swap_rows_engine(std::int64_t n, MatView a, const std::int32_t* pivots, std::int64_t count) override {
    if (n == 0 || count == 0) return;
    if (n > INT32_MAX || count > INT32_MAX) throw EngineError("row interchanges beyond 32-bit sizes");
    std::string why;
    CUfunction fn = cached_row_swaps(ctx_, t_, dev_.sm, why);
    if (!fn) throw EngineError(why);
    std::uint64_t ap = reinterpret_cast<std::uint64_t>(a.p), pp = reinterpret_cast<std::uint64_t>(pivots);
    std::int64_t lda = a.ld;
    std::int32_t n32 = static_cast<std::int32_t>(n), c32 = static_cast<std::int32_t>(count);
    void* params[gen::kRowSwapParamCount] = {&ap, &lda, &pp, &n32, &c32};
    launch(fn, static_cast<unsigned>((n + gen::kRowSwapThreads - 1) / gen::kRowSwapThreads), 1,
           gen::kRowSwapThreads, params);
    note_write(a);
  }

  bool has_lu_columns() const override { return true; }

  // One launch a column (and one after the last), in order on the stream (matrix_helpers_ptx.hpp).
  void lu_columns(std::int64_t m, std::int64_t w, MatView a, std::int32_t* pivots, std::int64_t offset,
                  std::int64_t left, std::int64_t width) override {
    if (w == 0) return;
    // The kernel's row index reaches m + kLuThreads - 1 in 32 bits.
    if (m > INT32_MAX - gen::kLuThreads || offset + m > INT32_MAX || width > INT32_MAX)
      throw EngineError("LU columns beyond 32-bit sizes");
    if (w > m) throw EngineError("LU columns: a block wider than tall");
    std::string why;
    CUfunction fn = cached_lu_columns(ctx_, t_, dev_.sm, why);
    if (!fn) throw EngineError(why);
    const std::int64_t blocks = (m + gen::kLuThreads - 1) / gen::kLuThreads, es = gen::storage_bytes(t_);
    Scratch work(*this, (gen::lu_columns_work_bytes(blocks) + es - 1) / es, 1);
    scale(1, 1, {}, work.view());  // the kernels' counter starts at 0
    std::uint64_t ap = reinterpret_cast<std::uint64_t>(a.p), pp = reinterpret_cast<std::uint64_t>(pivots),
                  wp = reinterpret_cast<std::uint64_t>(work.view().p);
    std::int64_t lda = a.ld;
    std::int32_t m32 = static_cast<std::int32_t>(m), w32 = static_cast<std::int32_t>(w), j32 = 0,
                 off32 = static_cast<std::int32_t>(offset), left32 = static_cast<std::int32_t>(left),
                 width32 = static_cast<std::int32_t>(width);
    void* params[gen::kLuParamCount] = {&ap, &lda, &m32, &w32, &j32, &pp, &off32, &left32, &width32, &wp};
    for (std::int64_t j = 0; j <= w && j < m; ++j) {
      j32 = static_cast<std::int32_t>(j);
      launch(fn, static_cast<unsigned>((m - j + gen::kLuThreads - 1) / gen::kLuThreads), 1, gen::kLuThreads, params,
             static_cast<unsigned>(gen::lu_columns_smem_bytes()));
    }
    note_write(a);
  }

  // Page-locked when the driver grants it (the panels' copies then overlap the GEMM steps).
  void* host_buffer(std::size_t bytes) override {
    void* p = nullptr;
    if (d_->cuMemAllocHost && d_->cuMemFreeHost && d_->cuMemAllocHost(&p, bytes) == CUDA_SUCCESS) {
      pinned_.push_back(p);
      return p;
    }
    return ::operator new(bytes);
  }
  void release_host_buffer(void* p) override {
    if (!p) return;
    d_->cuStreamSynchronize(stream_);  // copies may still read or write it
    if (std::erase(pinned_, p))
      d_->cuMemFreeHost(p);
    else
      ::operator delete(p);
  }
  void to_host(std::int64_t m, std::int64_t n, MatView src, void* host, std::int64_t ld) override {
    host_copy(false, m, n, host, ld, src);
  }
  void from_host(std::int64_t m, std::int64_t n, const void* host, std::int64_t ld, MatView dst) override {
    host_copy(true, m, n, const_cast<void*>(host), ld, dst);
    note_write(dst);
  }
  void set_quick_plans(bool on) override { quick_plans_ = on; }
  void wait_host() override {
    if (!copied_) return;
    if (const CUresult r = d_->cuEventSynchronize(copied_); r != CUDA_SUCCESS)
      throw EngineError("waiting for a host copy: " + cuda_error_text(r));
  }

  void invert_diagonal_blocks(Uplo uplo, Diag diag, std::int64_t n, std::int64_t bs, MatView a,
                              MatView w) override {
    if (n == 0) return;
    if (n > INT32_MAX) throw EngineError("invert_diagonal_blocks beyond 32-bit sizes");
    // The blocks' width: bs, or one block of n rounded up to a power of two (n <= bs).
    const std::int64_t width =
        n > bs ? bs : std::max<std::int64_t>(32, static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(n))));
    // Up to 64 wide a kernel inverts them directly; wider blocks are doubled from 64-wide inverses
    // (the substitution's chain grows as W^2: the 128-wide kernel took 72 µs for S at n = 4096,
    // its doubling far less, perf notes §58).
    const int start = std::min(max_kernel_, kDirectInverse);
    const bool kernel_width =
        std::find(std::begin(gen::kInverseWidths), std::end(gen::kInverseWidths), width) != std::end(gen::kInverseWidths);
    if (width <= start && kernel_width) return invert_with_kernel(uplo, diag, n, static_cast<int>(width), a, w);
    if (width <= start || width > max_inverse() || (width & (width - 1)) != 0) {
      std::string widths;
      for (int kw : gen::kInverseWidths) widths += (widths.empty() ? "" : ", ") + std::to_string(kw);
      throw EngineError("invert_diagonal_blocks: blocks of " + std::to_string(width) + " (kernels of " + widths +
                        " rows up to " + std::to_string(start) + ", doubled up to " + std::to_string(max_inverse()) +
                        ")");
    }
    if ((n + 2 * start - 1) / (2 * start) > kMaxGridY) throw EngineError("invert_diagonal_blocks: too many blocks");
    // start-wide inverses into scratch, then each doubling into the next strip (the last into w).
    std::unique_ptr<Scratch> from = std::make_unique<Scratch>(*this, n, start);
    invert_with_kernel(uplo, diag, n, start, a, from->view());
    for (int h = start; h < width; h *= 2) {
      std::unique_ptr<Scratch> to = 2 * h < width ? std::make_unique<Scratch>(*this, n, 2 * h) : nullptr;
      double_inverses(uplo, n, h, a, from->view(), to ? to->view() : w);
      from = std::move(to);
    }
  }

 private:
  // One GEMM step through the dispatcher; fill, band and d (the result's place; null: C) as in GemmCall.
  void run(gen::Op ta, gen::Op tb, std::int64_t m, std::int64_t n, std::int64_t k, Scalar alpha, MatView a,
           MatView b, Scalar beta, MatView c, int fill, int band = gen::kBandNone, MatView d = {}) {
    if (m == 0 || n == 0) return;
    GemmCall call;
    call.data = t_;
    call.op_a = ta;
    call.op_b = tb;
    call.m = m;
    call.n = n;
    call.k = k;
    call.a = a.p;
    call.lda = a.ld;
    call.b = b.p;
    call.ldb = b.ld;
    call.c = c.p;
    call.ldc = c.ld;
    call.alpha[0] = alpha.re;
    call.alpha[1] = alpha.im;
    call.beta[0] = beta.re;
    call.beta[1] = beta.im;
    call.stream = stream_;
    call.fill = fill;
    call.band = band;
    call.d = d.p != c.p ? d.p : nullptr;
    call.quick_plan = quick_plans_;
    const MatView out = d.p ? d : c;
    const Outcome o = run_gemm(call);
    if (!o.served) {
      if (o.failed) note_write(out);  // part of the result was written before the failure
      throw EngineError("GEMM step: " + o.detail);
    }
    note_write(out);
    if (first_gemm_.empty()) first_gemm_ = o.describe();
  }

  void helper(const gen::MatrixHelper& h, std::int64_t m, std::int64_t n, MatView src, MatView dst, Scalar s) {
    if (m == 0 || n == 0) return;
    if (m > INT32_MAX || n > INT32_MAX) throw EngineError("helper kernel beyond 32-bit sizes");
    std::string why;
    CUfunction fn = cached_helper(ctx_, h, dev_.sm, why);
    if (!fn) throw EngineError(why);
    std::uint64_t sp = reinterpret_cast<std::uint64_t>(src.p), dp = reinterpret_cast<std::uint64_t>(dst.p);
    std::int64_t lds = src.ld, ldd = dst.ld;
    std::int32_t m32 = static_cast<std::int32_t>(m), n32 = static_cast<std::int32_t>(n);
    double wide[2] = {s.re, s.im};
    float narrow[2] = {static_cast<float>(s.re), static_cast<float>(s.im)};
    void* s_re = is_f64(t_) ? static_cast<void*>(&wide[0]) : static_cast<void*>(&narrow[0]);
    void* s_im = is_f64(t_) ? static_cast<void*>(&wide[1]) : static_cast<void*>(&narrow[1]);
    void* params[gen::kHelperParamCount] = {&sp, &lds, &dp, &ldd, &m32, &n32, s_re, s_im};
    launch(fn, static_cast<unsigned>((m + gen::kHelperThreads - 1) / gen::kHelperThreads),
           static_cast<unsigned>(std::min(n, kMaxGridY)), gen::kHelperThreads, params);
    note_write(dst);
  }

  // dst (n x 2 half) = the 2 half wide inverses doubled from the half wide ones in `half_strip`.
  void double_inverses(Uplo uplo, std::int64_t n, int half, MatView a, MatView half_strip, MatView dst) {
    std::string why;
    CUfunction fn = cached_doubling(ctx_, t_, uplo == Uplo::Lower, half, dev_.sm, why);
    if (!fn) throw EngineError(why);
    std::uint64_t ap = reinterpret_cast<std::uint64_t>(a.p), hp = reinterpret_cast<std::uint64_t>(half_strip.p),
                  dp = reinterpret_cast<std::uint64_t>(dst.p);
    std::int64_t lda = a.ld, ldh = half_strip.ld, ldd = dst.ld;
    std::int32_t n32 = static_cast<std::int32_t>(n);
    void* params[gen::kDoublingParamCount] = {&ap, &lda, &hp, &ldh, &dp, &ldd, &n32};
    launch(fn, static_cast<unsigned>(half / gen::doubling_strip_width(t_, half)),
           static_cast<unsigned>((n + 2 * half - 1) / (2 * half)), gen::kDoublingThreads, params,
           static_cast<unsigned>(gen::doubling_smem_bytes(t_, half)));
    note_write(dst);
  }

  // The `width`-wide inverse kernel over every diagonal block of width (one block when n <= width).
  void invert_with_kernel(Uplo uplo, Diag diag, std::int64_t n, int width, MatView a, MatView w) {
    std::string why;
    CUfunction fn = cached_inverse(ctx_, t_, uplo == Uplo::Lower, diag == Diag::Unit, width, dev_.sm, why);
    if (!fn) throw EngineError(why);
    std::uint64_t src = reinterpret_cast<std::uint64_t>(a.p), dst = reinterpret_cast<std::uint64_t>(w.p);
    std::int64_t lds = a.ld, ldd = w.ld;
    std::int32_t n32 = static_cast<std::int32_t>(n);
    void* params[gen::kInverseParamCount] = {&src, &lds, &dst, &ldd, &n32};
    const auto blocks = static_cast<unsigned>((n + width - 1) / width);
    launch(fn, blocks, 1, static_cast<unsigned>(width), params,
           static_cast<unsigned>(gen::inverse_smem_bytes(t_, width)));
    note_write(w);
  }

  // An m x n copy between host memory and a view, on the stream; copied_ marks the last one.
  void host_copy(bool to_device, std::int64_t m, std::int64_t n, void* host, std::int64_t ld, MatView v) {
    if (m == 0 || n == 0) return;
    if (!d_->cuMemcpy2DAsync || !d_->cuEventCreate || !d_->cuEventRecord || !d_->cuEventSynchronize)
      throw EngineError("driver lacks the calls host copies need");
    if (!copied_ && d_->cuEventCreate(&copied_, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      throw EngineError("host copies: cannot create an event");
    const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(t_));
    const CUDA_MEMCPY2D c = pitched(to_device, host, static_cast<std::size_t>(ld) * es, reinterpret_cast<CUdeviceptr>(v.p),
                                    static_cast<std::size_t>(v.ld) * es, static_cast<std::size_t>(m) * es,
                                    static_cast<std::size_t>(n));
    CUresult r = d_->cuMemcpy2DAsync(&c, stream_);
    if (r == CUDA_SUCCESS) r = d_->cuEventRecord(copied_, stream_);
    if (r != CUDA_SUCCESS) throw EngineError("host copy: " + cuda_error_text(r));
  }

  // A destination outside every live scratch allocation is the caller's memory.
  void note_write(MatView dst) {
    const auto p = reinterpret_cast<CUdeviceptr>(dst.p);
    for (const Range& r : scratch_)
      if (p >= r.first && p < r.first + r.second) return;
    wrote_caller_ = true;
  }

  void launch(CUfunction fn, unsigned gx, unsigned gy, unsigned threads, void** params, unsigned smem = 0) {
    if (const CUresult r = d_->cuLaunchKernel(fn, gx, gy, 1, threads, 1, 1, smem, stream_, params, nullptr);
        r != CUDA_SUCCESS)
      throw EngineError("helper launch: " + cuda_error_text(r));
  }

  gen::DataType t_;
  CUstream stream_;
  CUcontext ctx_;
  DeviceInfo dev_;
  const CudaDriver* d_;
  std::string first_gemm_;
  using Range = std::pair<CUdeviceptr, std::size_t>;
  std::vector<Range> scratch_;
  bool wrote_caller_ = false;
  int max_kernel_;  // the widest inverse kernel this device runs
  bool quick_plans_ = false;
  CUevent copied_ = nullptr;   // recorded after the latest host copy
  std::vector<void*> pinned_;  // host buffers from cuMemAllocHost
};

}  // namespace

std::unique_ptr<blas3::Engine> make_gpu_engine(gen::DataType t, void* stream, std::string& why) {
  const CudaDriver* d = cuda_driver();
  if (!d) {
    why = driver_unavailable_reason();
    return nullptr;
  }
  if (!d->cuMemAllocAsync || !d->cuMemFreeAsync) {
    why = "driver lacks stream-ordered allocation";
    return nullptr;
  }
  CUcontext ctx = nullptr;
  if (d->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    why = "no current CUDA context";
    return nullptr;
  }
  DeviceInfo dev;
  if (!device_info(ctx, dev, why)) return nullptr;
  if (dev.sm < 80) {
    why = "device older than sm_80";
    return nullptr;
  }
  return std::make_unique<GpuEngine>(t, static_cast<CUstream>(stream), ctx, dev);
}

bool stream_is_capturing(void* stream) {
  const CudaDriver* d = cuda_driver();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return d && d->cuStreamIsCapturing &&
         d->cuStreamIsCapturing(static_cast<CUstream>(stream), &status) == CUDA_SUCCESS &&
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool read_device_scalar(const void* device_ptr, void* host, std::size_t bytes, void* stream, std::string& why) {
  const CudaDriver* d = cuda_driver();
  if (!d || !d->cuMemcpyDtoHAsync || !d->cuStreamSynchronize) {
    why = "driver cannot read device scalars";
    return false;
  }
  const auto s = static_cast<CUstream>(stream);
  CUresult r = d->cuMemcpyDtoHAsync(host, reinterpret_cast<CUdeviceptr>(device_ptr), bytes, s);
  if (r == CUDA_SUCCESS) r = d->cuStreamSynchronize(s);
  if (r != CUDA_SUCCESS) {
    why = "reading device scalar: " + cuda_error_text(r);
    return false;
  }
  return true;
}

}  // namespace ptxblas::dispatch
