// Strided-batched GEMM (cublas?gemmStridedBatched, cublasGemmStridedBatchedEx, their _64 forms):
// every entry of each batch checked against the float64 reference and against the real cuBLAS's
// result for the same call, on fresh random data with NaN in everything the call must not read
// (padding rows, the gaps between entries, C when beta is 0); every byte of C outside the entries'
// m x n elements must come back bit-identical. Served batches (batchCount > 1) run one "_bt" kernel,
// K never split; calls ptxblas does not serve (C entries that overlap, unserved GemmEx types) are
// forwarded and give cuBLAS's own bits. The pointer-array entry points (cublas{S,D,C,Z}gemmBatched
// and their _64 forms) the same way, their entries scattered over several buffers ("_btp"
// kernels). A library that does not export an entry point yet fails the tests that need it, with
// its name.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "device_buffer.hpp"
#include "gpu_env.hpp"
#include "host_math.hpp"

namespace gputest {
namespace {

// One call: each entry's shape, leading dimensions and scalars, the strides in elements, the count.
struct Batch {
  Gemm g;
  long long sa = 0, sb = 0, sc = 0;
  std::int64_t count = 1;
};

enum class Expect { Served, Forwarded, Either };

constexpr std::size_t kGuard = 64;  // elements after each operand's last entry

// Strides that put each entry right after the previous one, plus `gap` elements (poisoned).
Batch with_strides(const Gemm& g, std::int64_t count, long long gap = 0) {
  return Batch{g, g.lda * a_cols(g) + gap, g.ldb * b_cols(g) + gap, g.ldc * g.n + gap, count};
}

std::string describe(const BatchedEntry& e, const Batch& b) {
  std::ostringstream os;
  os << gputest::describe(e.types(), b.g) << " strides " << b.sa << "/" << b.sb << "/" << b.sc << " batch " << b.count;
  return os.str();
}

// Elements spanned by `count` entries `stride` apart, each `ld` x `cols`, and the guard.
std::size_t span(std::int64_t ld, std::int64_t cols, long long stride, std::int64_t count) {
  return static_cast<std::size_t>(std::max<std::int64_t>(count - 1, 0) * stride + ld * cols) + kGuard;
}

// A or B: NaN everywhere but each entry's rows x cols (one entry for a stride of 0).
std::vector<cd> random_operand(Elem e, std::int64_t rows, std::int64_t cols, std::int64_t ld, long long stride,
                               std::int64_t count, std::mt19937_64& rng) {
  std::vector<cd> v(span(ld, cols, stride, count), cd(std::nan(""), std::nan("")));
  for (std::int64_t i = 0; i < count && (i == 0 || stride != 0); ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t r = 0; r < rows; ++r) v[static_cast<std::size_t>(i * stride + r + j * ld)] = random_value(e, rng);
  return v;
}

std::vector<cd> slice(const std::vector<cd>& v, long long at, std::int64_t n) {
  return {v.begin() + at, v.begin() + at + n};
}

// Entry i's m x n elements of C (leading dimension m).
std::vector<cd> entry_of(const std::vector<cd>& c, const Batch& b, std::int64_t i) {
  std::vector<cd> out(static_cast<std::size_t>(b.g.m * b.g.n));
  for (std::int64_t j = 0; j < b.g.n; ++j)
    for (std::int64_t r = 0; r < b.g.m; ++r)
      out[static_cast<std::size_t>(r + j * b.g.m)] = c[static_cast<std::size_t>(i * b.sc + r + j * b.g.ldc)];
  return out;
}

bool finite(cd v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); }

// The first few elements of entry i farther from `want` than `bound`, or "".
std::string compare(const std::string& who, std::int64_t m, std::int64_t i, const std::vector<cd>& got,
                    const std::vector<cd>& want, const std::vector<double>& bound) {
  std::ostringstream os;
  std::int64_t wrong = 0;
  for (std::size_t at = 0; at < got.size(); ++at) {
    const double err = std::abs(got[at] - want[at]);
    if (finite(got[at]) && err <= bound[at]) continue;
    if (wrong++ < 3)
      os << "\n  " << who << " entry " << i << " C(" << at % m << "," << at / m << ") = " << got[at]
         << ", expected " << want[at] << " (|err| " << err << " > bound " << bound[at] << ")";
  }
  if (!wrong) return {};
  return who + ": " + std::to_string(wrong) + " of entry " + std::to_string(i) + "'s elements wrong" + os.str();
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// "mma_d_nt_64x64x8_..._bt" (a record's suffixes, if any, follow a space): one batched launch, K
// whole. `suffix`: "_bt" for strided batches, "_btp" for arrays of pointers.
bool batched_kernel(const std::string& record, const char* suffix = "_bt") {
  return record.substr(0, record.find(' ')).ends_with(suffix) && record.find(" kg=") == std::string::npos;
}

// What the ptxblas call did (its record and the counters' steps), against `expect`; "" when as
// expected. A batch of more than one entry must have run a `suffix` kernel.
std::string judge_record(const std::string& kernel, std::int64_t count, Expect expect, std::uint64_t served,
                         std::uint64_t forwarded, const char* suffix = "_bt") {
  const bool fwd = starts_with(kernel, "forwarded: ");
  switch (expect) {
    case Expect::Either: return {};
    case Expect::Forwarded:
      return fwd && forwarded == 1 && served == 0 ? "" : "not forwarded (or not counted so): " + kernel;
    case Expect::Served:
      if (fwd || starts_with(kernel, "error") || starts_with(kernel, "empty") || kernel == "none" || served != 1 ||
          forwarded != 0)
        return "not served by ptxblas (or not counted so): " + kernel;
      if (count > 1 && !batched_kernel(kernel, suffix))
        return std::string("not one batched (") + suffix + ") launch with K whole: " + kernel;
      return {};
  }
  return {};
}

// Runs the batch through ptxblas and the real cuBLAS on `handle`, each into its own copy of C.
CheckResult check_batched(const BatchedEntry& e, const Batch& b, cublasHandle_t handle, std::mt19937_64& rng,
                          Expect expect = Expect::Served) {
  if (!e.ptx) return {"libptxblas.so does not export " + e.symbol, {}};
  const Gemm& g = b.g;
  const std::size_t es = elem_bytes(e.elem);
  const std::vector<cd> a = random_operand(e.elem, a_rows(g), a_cols(g), g.lda, b.sa, b.count, rng);
  const std::vector<cd> bm = random_operand(e.elem, b_rows(g), b_cols(g), g.ldb, b.sb, b.count, rng);

  const Gemm gs{g.ta,  g.tb,  g.m,  g.n, g.k, g.lda, g.ldb, g.ldc, round_to(e.scal, g.alpha),
                round_to(e.scal, g.beta)};  // the scalars as the call passes them

  // C: all-ones bytes (a NaN in every type that no arithmetic produces) but, when beta reads
  // them, each entry's m x n values.
  const std::size_t c_elems = span(g.ldc, g.n, b.sc, b.count);
  std::vector<unsigned char> c_bytes(c_elems * es, 0xFF);
  std::vector<cd> c = decode(e.elem, c_bytes);
  std::vector<bool> inside(c_elems, false);
  for (std::int64_t i = 0; i < b.count; ++i)
    for (std::int64_t j = 0; j < g.n; ++j)
      for (std::int64_t r = 0; r < g.m; ++r) {
        const auto at = static_cast<std::size_t>(i * b.sc + r + j * g.ldc);
        inside[at] = true;
        if (gs.beta != 0.0) c[at] = random_value(e.elem, rng);
      }
  if (gs.beta != 0.0) {
    const std::vector<unsigned char> values = encode(e.elem, c);
    for (std::size_t i = 0; i < c_elems; ++i)
      if (inside[i]) std::memcpy(c_bytes.data() + i * es, values.data() + i * es, es);
  }

  const std::vector<unsigned char> a_bytes = encode(e.elem, a), b_bytes = encode(e.elem, bm);
  DeviceBuffer da(a_bytes.size()), db(b_bytes.size()), dc_ptx(c_bytes.size()), dc_real(c_bytes.size());
  if (!da.p || !db.p || !dc_ptx.p || !dc_real.p) return {"cudaMalloc failed", {}};
  TRY_CUDA(cudaMemcpy(da.p, a_bytes.data(), a_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(db.p, b_bytes.data(), b_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(dc_ptx.p, c_bytes.data(), c_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(dc_real.p, c_bytes.data(), c_bytes.size(), cudaMemcpyHostToDevice));
  TRY_CUDA(cudaDeviceSynchronize());  // pageable copies may still be in flight

  const std::vector<unsigned char> alpha = encode(e.scal, gs.alpha), beta = encode(e.scal, gs.beta);
  std::uint64_t served0, fwd0, served1, fwd1;
  counters(served0, fwd0);
  const cublasStatus_t sp = e.ptx(handle, g.ta, g.tb, g.m, g.n, g.k, alpha.data(), da.p, g.lda, b.sa, db.p, g.ldb,
                                  b.sb, beta.data(), dc_ptx.p, g.ldc, b.sc, b.count);
  CheckResult out;
  out.kernel = last_call();
  counters(served1, fwd1);
  const cublasStatus_t sr = e.real(handle, g.ta, g.tb, g.m, g.n, g.k, alpha.data(), da.p, g.lda, b.sa, db.p, g.ldb,
                                   b.sb, beta.data(), dc_real.p, g.ldc, b.sc, b.count);
  cudaStream_t stream = nullptr;
  if (cublasGetStream(handle, &stream) != CUBLAS_STATUS_SUCCESS) return {"cublasGetStream failed", out.kernel};
  TRY_CUDA(cudaStreamSynchronize(stream));
  TRY_CUDA(cudaGetLastError());
  if (sp != CUBLAS_STATUS_SUCCESS || sr != CUBLAS_STATUS_SUCCESS) {
    out.failure = std::string("status: ptxblas ") + cublasGetStatusName(sp) + ", cuBLAS " + cublasGetStatusName(sr);
    return out;
  }
  out.failure = judge_record(out.kernel, b.count, expect, served1 - served0, fwd1 - fwd0);
  if (!out.failure.empty()) return out;

  std::vector<unsigned char> got_ptx(c_bytes.size()), got_real(c_bytes.size());
  TRY_CUDA(cudaMemcpy(got_ptx.data(), dc_ptx.p, got_ptx.size(), cudaMemcpyDeviceToHost));
  TRY_CUDA(cudaMemcpy(got_real.data(), dc_real.p, got_real.size(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < c_elems; ++i)
    if (!inside[i] && std::memcmp(got_ptx.data() + i * es, c_bytes.data() + i * es, es) != 0) {
      out.failure = "ptxblas wrote element " + std::to_string(i) + " of C's buffer, outside every entry";
      return out;
    }
  // A forwarded call is cuBLAS's own: the same bits.
  const bool forwarded = starts_with(out.kernel, "forwarded: ");
  if (forwarded && got_ptx != got_real) {
    out.failure = "forwarded call's C differs from the real cuBLAS's";
    return out;
  }
  const std::vector<cd> p = decode(e.elem, got_ptx), r = decode(e.elem, got_real);
  const Entry types = e.types();
  // cuBLAS's f16/bf16 batched kernels may round alpha op(A) op(B) to the storage type before
  // adding beta C (seen on the H200, bf16, beta 1: 12% off a result that cancelled to 0.027):
  // its bound takes that rounding too (unit roundoff u of the type).
  const double u = e.elem == Elem::F16 ? std::ldexp(1.0, -11) : e.elem == Elem::BF16 ? std::ldexp(1.0, -8) : 0;
  for (std::int64_t i = 0; i < b.count; ++i) {
    const Reference ref = reference(gs, types, slice(a, i * b.sa, g.lda * a_cols(g)),
                                    slice(bm, i * b.sb, g.ldb * b_cols(g)), slice(c, i * b.sc, g.ldc * g.n));
    const std::vector<cd> pi = entry_of(p, b, i), ri = entry_of(r, b, i), old = entry_of(c, b, i);
    std::vector<double> cublas_bound = ref.bound_cublas, both(ref.bound.size());
    for (std::size_t j = 0; j < both.size(); ++j) {
      if (gs.beta != 0.0) cublas_bound[j] += 2 * u * std::abs(ref.c[j] - gs.beta * old[j]);
      both[j] = ref.bound[j] + cublas_bound[j];
    }
    // Each against the reference with its own bound (a cuBLAS failure means the harness is
    // wrong; a forwarded call is cuBLAS's arithmetic), and the two against each other.
    out.failure = compare("ptxblas", g.m, i, pi, ref.c, forwarded ? cublas_bound : ref.bound);
    if (out.failure.empty()) out.failure = compare("cuBLAS (harness check)", g.m, i, ri, ref.c, cublas_bound);
    if (out.failure.empty()) out.failure = compare("ptxblas against cuBLAS", g.m, i, pi, ri, both);
    if (!out.failure.empty()) return out;
  }
  return out;
}

bool is_sm90() {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.major == 9 && p.minor == 0;
}

// alpha/beta pairs cycled through the cases: beta = 0 (C is NaN then), complex, alpha = 0.
const cd kAlpha[] = {{1, 0}, {-1.5, 0.25}, {0.5, -1}, {0, 0}, {2, 0}, {1, 0}};
const cd kBeta[] = {{0, 0}, {1, 0}, {-0.75, 0.5}, {0.5, 0}, {0, 0}, {0.25, 1}};

struct Shape {
  std::int64_t m, n, k;
};

Gemm make_gemm(cublasOperation_t ta, cublasOperation_t tb, Shape s, bool pad, int scalars, std::mt19937_64& rng) {
  Gemm g{ta, tb, s.m, s.n, s.k, 0, 0, 0, kAlpha[scalars % 6], kBeta[scalars % 6]};
  g.lda = leading_dim(a_rows(g), pad, rng);
  g.ldb = leading_dim(b_rows(g), pad, rng);
  g.ldc = leading_dim(g.m, pad, rng);
  return g;
}

// The entries every case runs on: each type once, and the two GemmEx half types with f32 compute.
const std::vector<std::string> kMainEntries = {"SgemmStridedBatched", "DgemmStridedBatched",
                                               "CgemmStridedBatched", "ZgemmStridedBatched",
                                               "HgemmStridedBatched", "GemmStridedBatchedEx_R16BF_C32F",
                                               "GemmStridedBatchedEx_R16F_C32F"};

class Batched : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    handle_ = std::make_unique<Handle>();
    rng_.seed(test_seed() ^ std::hash<std::string>{}(GetParam()) ^ 0xBA7Cull);
  }
  const BatchedEntry& entry() const { return batched_entry_named(GetParam()); }
  bool complex() const { return is_complex(entry().elem); }

  CheckResult run(const Batch& b, Expect expect = Expect::Served) {
    const CheckResult r = check_batched(entry(), b, handle_->get(), rng_, expect);
    EXPECT_EQ(r.failure, "") << describe(entry(), b) << " -> " << r.kernel;
    return r;
  }

  std::unique_ptr<Handle> handle_;
  std::mt19937_64 rng_;
};

// NN, NT, TN, TT (complex: also CN, NC, CC) x batchCount 1, 2, 3, 7, 40 on ragged shapes, some
// with padded leading dimensions, the scalars cycling (beta = 0 over NaN among them). The float64
// reference costs ~1 ns a multiply-add (complex: ~4): 7 and 40 entries take the smaller shapes.
TEST_P(Batched, LayoutsAndBatchCounts) {
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T, C = CUBLAS_OP_C;
  std::vector<std::pair<cublasOperation_t, cublasOperation_t>> ops = {{N, N}, {N, T}, {T, N}, {T, T}};
  if (complex()) ops.insert(ops.end(), {{C, N}, {N, C}, {C, C}});
  const Shape shapes[] = {{33, 17, 45}, {100, 130, 70}, {257, 64, 300}};
  const std::int64_t counts[] = {1, 2, 3, 7, 40};
  int i = 0;
  for (const auto& [ta, tb] : ops)
    for (std::int64_t count : counts) {
      const Shape s = shapes[i % (count >= 40 ? 1 : count >= 7 ? 2 : 3)];
      run(with_strides(make_gemm(ta, tb, s, i % 2 == 1, i, rng_), count));
      ++i;
      if (HasFailure()) return;  // one clear failure beats a screenful of echoes
    }
}

// strideA == 0: one A for every entry (and B too in the last case).
TEST_P(Batched, BroadcastOperand) {
  Batch b = with_strides(make_gemm(CUBLAS_OP_N, CUBLAS_OP_N, {70, 50, 40}, false, 3, rng_), 5);
  b.sa = 0;
  run(b);
  b = with_strides(make_gemm(CUBLAS_OP_T, CUBLAS_OP_T, {33, 61, 47}, true, 0, rng_), 40);
  b.sa = 0;
  run(b);
  b = with_strides(make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {20, 30, 10}, false, 2, rng_), 3);
  b.sa = b.sb = 0;
  run(b);
}

// Strides larger than an entry, padded leading dimensions: the gaps and padding rows of A and B
// are NaN (never to be read), those of C must come back bit-identical; beta 0 and not.
TEST_P(Batched, GapsBetweenEntriesStayUntouched) {
  Batch b = with_strides(make_gemm(CUBLAS_OP_N, CUBLAS_OP_T, {45, 33, 29}, true, 2, rng_), 4, 37);
  b.sb += 13;
  b.sc += 61;
  run(b);
  b = with_strides(make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {64, 48, 40}, true, 0, rng_), 6, 8 * 7);
  run(b);
}

// beta = 0 over NaN (alpha non-zero, and alpha = 0: exact zeros), alpha = 0 with beta (C = beta C),
// K = 0 (C = beta C; served or forwarded, either is cuBLAS's semantics).
TEST_P(Batched, ScalarEdgeCases) {
  Gemm g = make_gemm(CUBLAS_OP_N, CUBLAS_OP_N, {37, 29, 23}, false, 0, rng_);
  g.alpha = {-1.5, 0.25};
  run(with_strides(g, 7));
  g.alpha = {0, 0};
  run(with_strides(g, 7));
  g.beta = {0.5, -0.25};
  run(with_strides(g, 3));
  g = make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {21, 19, 0}, false, 3, rng_);
  run(with_strides(g, 3), Expect::Either);
}

// An empty batch or bad arguments, for the statuses tests: the call, its batch count, and
// whether the handle is null. The strided and pointer-array tests share these.
struct BadBatch {
  const char* what;
  Gemm g;
  std::int64_t count;
  bool null_handle = false;
};

std::vector<BadBatch> bad_batches() {
  const auto N = CUBLAS_OP_N;
  return {
      {"batchCount = 0", {N, N, 8, 8, 8, 8, 8, 8, 1.0, 0.0}, 0},
      {"batchCount < 0", {N, N, 8, 8, 8, 8, 8, 8, 1.0, 0.0}, -1},
      {"batchCount < 0 with m = 0", {N, N, 0, 8, 8, 1, 8, 1, 1.0, 0.0}, -1},
      {"batchCount = 0 with lda < m", {N, N, 8, 8, 8, 7, 8, 8, 1.0, 0.0}, 0},
      {"m = 0", {N, N, 0, 8, 8, 1, 8, 1, 1.0, 0.0}, 3},
      {"n = 0", {N, N, 8, 0, 8, 8, 8, 8, 1.0, 0.0}, 3},
      {"m < 0", {N, N, -1, 8, 8, 8, 8, 8, 1.0, 0.0}, 3},
      {"lda < m", {N, N, 8, 8, 8, 7, 8, 8, 1.0, 0.0}, 3},
      {"ldc < m", {N, N, 8, 8, 8, 8, 8, 7, 1.0, 0.0}, 3},
      {"null handle", {N, N, 8, 8, 8, 8, 8, 8, 1.0, 0.0}, 3, true},
  };
}

// Statuses equal to the real cuBLAS's for empty batches and bad arguments, none forwarded; C
// untouched. A negative batchCount is INVALID_VALUE: so the typed entries answer, while
// cublasGemmStridedBatchedEx (cuBLAS 13.x on the H200) gives EXECUTION_FAILED, or SUCCESS when m
// is 0 too; those cases are not compared with it.
TEST_P(Batched, EmptyCallsAndBadArgumentsMatchCublas) {
  const BatchedEntry& e = entry();
  ASSERT_TRUE(e.ptx) << "libptxblas.so does not export " << e.symbol;
  const std::vector<BadBatch> cases = bad_batches();
  constexpr std::size_t kBytes = 4 * 64 * 16;  // four 8 x 8 entries of the widest type
  DeviceBuffer a(kBytes), b(kBytes), c(kBytes);
  ASSERT_TRUE(a.p && b.p && c.p);
  CUDA_OK(cudaMemset(c.p, 0x5A, kBytes));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  const bool ex = e.symbol.find("Ex") != std::string::npos;
  for (const BadBatch& x : cases) {
    const Gemm& g = x.g;
    cublasHandle_t h = x.null_handle ? nullptr : handle_->get();
    auto call = [&](const BatchedFn& f) {
      return f(h, g.ta, g.tb, g.m, g.n, g.k, one.data(), a.p, g.lda, 64, b.p, g.ldb, 64, zero.data(), c.p, g.ldc,
               64, x.count);
    };
    const cublasStatus_t sp = call(e.ptx);
    const std::string what = last_call();
    const cublasStatus_t want = x.count < 0 && ex ? CUBLAS_STATUS_INVALID_VALUE : call(e.real);
    EXPECT_EQ(cublasGetStatusName(sp), std::string(cublasGetStatusName(want))) << e.name << ": " << x.what;
    if (sp != CUBLAS_STATUS_SUCCESS) {
      EXPECT_EQ(what, std::string("error: ") + cublasGetStatusName(sp)) << e.name << ": " << x.what;
    }
    EXPECT_FALSE(starts_with(what, "forwarded")) << e.name << ": " << x.what << " -> " << what;
  }
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> after(kBytes);
  CUDA_OK(cudaMemcpy(after.data(), c.p, kBytes, cudaMemcpyDeviceToHost));
  for (unsigned char x : after) ASSERT_EQ(x, 0x5A) << "an empty or rejected call wrote C";
}

INSTANTIATE_TEST_SUITE_P(MainEntries, Batched, ::testing::ValuesIn(kMainEntries),
                         [](const auto& info) { return info.param; });

// Every entry point (the _64 forms, every GemmStridedBatchedEx type combination served) once:
// a transposed A, gaps between entries, beta not zero (complex where the type is).
TEST(BatchedEntryPoints, EachServesOneBatch) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA7Dull);
  int i = 0;
  for (const std::string& name : batched_entry_names()) {
    const BatchedEntry& e = batched_entry_named(name);
    Gemm g = make_gemm(i % 2 ? CUBLAS_OP_T : CUBLAS_OP_C, CUBLAS_OP_N, {61, 45, 37}, i % 3 == 0, 2, rng);
    const Batch b = with_strides(g, 3, 16);
    const CheckResult r = check_batched(e, b, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    ++i;
  }
}

// 70000 entries of 8 x 8 x 8: more than grid z's 65535, so the launcher runs the batch in chunks,
// the second one's A, B and C advanced by 65535 strides (bf16 on sm_90: wgmma's 3-D tensor maps
// made per chunk).
TEST(BatchedEntryPoints, MoreEntriesThanOneGridHolds) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA7Eull);
  const BatchedEntry& e = batched_entry_named("GemmStridedBatchedEx_64_R16BF_C32F");
  const Batch b = with_strides(make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {8, 8, 8}, false, 1, rng), 70000);
  const CheckResult r = check_batched(e, b, h.get(), rng);
  EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
}

// The strided entry points of the half types, and the layouts of real types.
const char* const kHalfEntries[] = {"HgemmStridedBatched", "GemmStridedBatchedEx_R16BF_C32F",
                                    "GemmStridedBatchedEx_R16F_C32F"};
const std::pair<cublasOperation_t, cublasOperation_t> kRealOps[] = {
    {CUBLAS_OP_N, CUBLAS_OP_N}, {CUBLAS_OP_N, CUBLAS_OP_T}, {CUBLAS_OP_T, CUBLAS_OP_N}, {CUBLAS_OP_T, CUBLAS_OP_T}};

// On sm_90, f16/bf16 batches whose A and B a tensor map reads (16-byte aligned, leading
// dimensions and strides multiples of 8 elements) run the wgmma family: 256 x 256 x 256 in every
// layout and a ragged shape. An odd leading dimension cannot; it is served by another family.
TEST(BatchedEntryPoints, HalfTypesRunWgmmaOnSm90) {
  SKIP_WITHOUT_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code";
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA7Full);
  int i = 0;
  for (const auto& [ta, tb] : kRealOps) {
    const BatchedEntry& e = batched_entry_named(kHalfEntries[i % std::size(kHalfEntries)]);
    const Batch b = with_strides(make_gemm(ta, tb, {256, 256, 256}, false, i, rng), 2, 8 * i);
    const CheckResult r = check_batched(e, b, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    EXPECT_TRUE(starts_with(r.kernel, "wgmma_")) << describe(e, b) << " ran " << r.kernel;
    ++i;
  }
  // Ragged, leading dimensions padded to multiples of 8.
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  Gemm g = make_gemm(T, N, {200, 136, 264}, false, 3, rng);
  g.lda = 264 + 8;
  g.ldb = 264;
  g.ldc = 203;
  const BatchedEntry& bf16 = batched_entry_named("GemmStridedBatchedEx_R16BF_C32F");
  Batch b = with_strides(g, 3, 24);
  CheckResult r = check_batched(bf16, b, h.get(), rng);
  EXPECT_EQ(r.failure, "") << describe(bf16, b) << " -> " << r.kernel;
  EXPECT_TRUE(starts_with(r.kernel, "wgmma_")) << describe(bf16, b) << " ran " << r.kernel;
  // An odd lda: any family but the wgmma one's tensor maps, checked the same way.
  const BatchedEntry& half = batched_entry_named("HgemmStridedBatched");
  g = make_gemm(N, T, {136, 120, 200}, false, 1, rng);
  g.lda = 137;
  b = with_strides(g, 3);
  r = check_batched(half, b, h.get(), rng);
  EXPECT_EQ(r.failure, "") << describe(half, b) << " -> " << r.kernel;
  std::printf("[ batched ] odd lda ran %s\n", r.kernel.c_str());
}

// The dispatcher's own plans for half batches that fill waves (perf notes §134-§136), checked as
// every batch is: 16-128 deep, several entries of 64x128 a block at beta = 0, of 64x64 where C is
// read; 129-384 deep, four to eight entries of 64x128 on four stages at beta = 0 (by waves over
// 264 slots: 66 entries of 8 tiles run 17 blocks of four, as few waves as 9 of eight; 528 of 4
// tiles 66 blocks of eight, one wave against two of four), one entry on two stages where C is
// read. The expected kernels are the plans for 132 SMs (H100 SXM, H200): other counts move the
// waves.
TEST(BatchedEntryPoints, HalfBatchesRunTheShortAndMidDepthPlans) {
  SKIP_WITHOUT_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code";
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  if (sms != 132) GTEST_SKIP() << "the expected plans are 132 SMs' (this device has " << sms << ")";
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA82ull);
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  struct Case {
    cublasOperation_t ta, tb;
    Shape s;
    std::int64_t count;
    int scalars;         // kAlpha / kBeta index
    const char* expect;  // in the kernel's name
  };
  const Case cases[] = {{N, N, {512, 256, 64}, 50, 0, "_64x128x64_64x128_s2_z"},
                        {T, N, {512, 256, 128}, 50, 1, "_64x64x64_64x64_s2_z"},
                        {N, T, {256, 256, 160}, 66, 4, "_64x128x64_64x128_s4_z4_bt"},
                        {N, N, {128, 256, 160}, 528, 0, "_64x128x64_64x128_s4_z8_bt"},
                        {T, N, {256, 256, 160}, 66, 5, "_64x128x64_64x128_s2_bt"}};
  int i = 0;
  for (const Case& c : cases) {
    const BatchedEntry& e = batched_entry_named(kHalfEntries[i++ % std::size(kHalfEntries)]);
    const Batch b = with_strides(make_gemm(c.ta, c.tb, c.s, false, c.scalars, rng), c.count);
    const CheckResult r = check_batched(e, b, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    EXPECT_NE(r.kernel.find(c.expect), std::string::npos) << describe(e, b) << " ran " << r.kernel;
  }
}

// The rated tiles of f32 and f64 batches (gen::batched_tiles, perf notes §139): the strided and
// the pointer-array tests force each, the f32 ones with element stages in that form too
// (§142-§143). Kept by hand in step with that list: these tests reach the library only through
// its exported entry points (ptxblas_force_tile's specs), not the generator.
struct RatedTileCase {
  const char* type;    // "S" or "D": the entry point's letter
  const char* tile;    // ptxblas_force_tile's spec
  const char* expect;  // in the kernel's name
};
const RatedTileCase kRatedTiles[] = {{"S", "simt 128 128 8 8 8 4 1 0 2", "_128x128x8_8x8_"},
                                     {"S", "simt 128 128 16 8 8 4 1 0 2", "_128x128x16_8x8_"},
                                     {"S", "simt 64 128 8 4 8 4 1 0 2", "_64x128x8_4x8_"},
                                     {"S", "simt 64 128 8 4 8 4 1 0 3", "_64x128x8_4x8_v4_s3_"},
                                     {"S", "simt 64 64 16 4 4 4 1 0 2", "_64x64x16_4x4_"},
                                     {"S", "simt 64 64 8 4 4 4 1 0 3", "_64x64x8_4x4_v4_s3_"},
                                     {"S", "simt 32 32 16 4 4 4 1 0 2", "_32x32x16_4x4_"},
                                     {"S", "simt 32 32 8 2 2 2 1 0 2", "_32x32x8_2x2_"},
                                     {"D", "mma 128 64 8 64 32 1 1 0 3", "_128x64x8_64x32_"},
                                     {"D", "mma 64 128 8 32 64 1 1 0 3", "_64x128x8_32x64_"},
                                     {"D", "mma 64 64 8 32 32 1 1 0 3", "_64x64x8_32x32_"},
                                     {"D", "mma 64 64 16 32 32 1 1 0 3", "_64x64x16_32x32_"},
                                     {"D", "mma 64 32 16 32 16 1 1 0 3", "_64x32x16_32x16_"},
                                     {"D", "mma 32 64 16 16 32 1 1 0 3", "_32x64x16_16x32_"},
                                     {"D", "mma 32 32 8 16 16 1 1 0 3", "_32x32x8_16x16_"},
                                     {"D", "mma 32 32 16 16 16 1 1 0 3", "_32x32x16_16x16_"}};

// f32 and f64 strided batches on each rated tile, forced: ragged entries in all four layouts, K a
// multiple of 16 and not, unpadded and padded leading dimensions with and without gaps between
// entries (by round), the scalars cycling; then the dispatcher's own pick on seven batches (the
// expected tiles are 132 SMs' plans: other counts move the waves; aligned f32 entries run the
// cp.async vector-stage form, s3). Each entry checked as every batch is.
TEST(BatchedEntryPoints, RealBatchesRunEveryRatedTile) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA83ull);
  const Shape shapes[] = {{100, 72, 48}, {33, 130, 40}};
  int i = 0;
  for (const RatedTileCase& t : kRatedTiles) {
    const BatchedEntry& e = batched_entry_named(std::string(t.type) + "gemmStridedBatched");
    const ForcedTile forced(t.tile);
    ASSERT_TRUE(forced.accepted());
    for (const Shape& s : shapes)
      for (const auto& [ta, tb] : kRealOps) {
        const int round = i / static_cast<int>(std::size(kRealOps));
        const Batch b = with_strides(make_gemm(ta, tb, s, round % 2 == 1, i, rng), 5, 8 * (round / 2 % 2));
        const CheckResult r = check_batched(e, b, h.get(), rng);
        EXPECT_EQ(r.failure, "") << describe(e, b) << " on " << t.tile << " -> " << r.kernel;
        EXPECT_NE(r.kernel.find(t.expect), std::string::npos) << describe(e, b) << " ran " << r.kernel;
        ++i;
      }
    if (HasFailure()) return;
  }
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  if (sms != 132) GTEST_SKIP() << "the expected plans are 132 SMs' (this device has " << sms << ")";
  struct Planned {
    const char* entry;
    Shape s;
    std::int64_t count;
    const char* expect;
  };
  const Planned planned[] = {{"SgemmStridedBatched", {96, 96, 32}, 200, "simt_s_nn_128x128x8_8x8_"},
                             {"SgemmStridedBatched", {96, 96, 96}, 128, "simt_s_nn_32x32x16_4x4_"},
                             {"SgemmStridedBatched", {40, 40, 32}, 300, "simt_s_nn_64x64x16_4x4_"},
                             {"DgemmStridedBatched", {100, 100, 50}, 60, "mma_d_nn_64x64x8_32x32_"},
                             {"DgemmStridedBatched", {48, 48, 48}, 200, "mma_d_nn_32x32x8_16x16_"},
                             {"SgemmStridedBatched", {128, 128, 512}, 8, "simt_s_nn_64x64x16_4x4_v4_s3_"},
                             {"DgemmStridedBatched", {256, 256, 384}, 12, "mma_d_nn_64x64x16_32x32_"}};
  for (const Planned& p : planned) {
    const BatchedEntry& e = batched_entry_named(p.entry);
    const Batch b = with_strides(make_gemm(CUBLAS_OP_N, CUBLAS_OP_N, p.s, false, i++, rng), p.count);
    const CheckResult r = check_batched(e, b, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    EXPECT_NE(r.kernel.find(p.expect), std::string::npos) << describe(e, b) << " ran " << r.kernel;
  }
}

// Blocks that run several entries (KernelConfig::batch_tiles), forced: 2, 3 and 5 entries a block
// over 7 entries (the last block fewer), one to three K-steps (the stages' phases run on across
// entries), every scalar case (alpha = 0 included), one and two consumer warpgroups; C through the
// tensor map (ldc a multiple of 8), through the common store in some blocks (m = 100: the blocks
// past row 64) and in all (ldc odd). Each entry checked as every batch is.
TEST(BatchedEntryPoints, WgmmaBlocksOfSeveralEntriesRunEveryEntry) {
  SKIP_WITHOUT_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code";
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA80ull);
  struct Case {
    const char* tile;  // ptxblas_force_tile's spec but batch_tiles
    Shape s;
    std::int64_t ldc;  // 0: m
  };
  const Case cases[] = {{"wgmma 64 64 64 64 64 1 1 0 2 1 -1 1", {128, 192, 64}, 0},
                        {"wgmma 64 64 64 64 64 1 1 0 2 1 -1 1", {128, 128, 160}, 0},
                        {"wgmma 64 128 64 64 128 1 1 0 2 1 -1 1", {100, 256, 96}, 104},
                        {"wgmma 128 128 64 64 128 1 1 0 3 1 -1 1", {256, 136, 128}, 0},
                        {"wgmma 64 64 64 64 64 1 1 0 2 1 -1 1", {72, 80, 40}, 77}};
  int i = 0;
  for (const int tiles : {2, 3, 5})
    for (const Case& c : cases) {
      const auto [ta, tb] = kRealOps[i % std::size(kRealOps)];
      Gemm g = make_gemm(ta, tb, c.s, false, i, rng);
      g.lda = (a_rows(g) + 7) / 8 * 8;
      g.ldb = (b_rows(g) + 7) / 8 * 8;
      g.ldc = c.ldc ? c.ldc : g.m;
      const Batch b = with_strides(g, 7, 8 * (i % 3));
      const ForcedTile forced(std::string(c.tile) + " " + std::to_string(tiles));
      ASSERT_TRUE(forced.accepted());
      const BatchedEntry& e = batched_entry_named(kHalfEntries[i % std::size(kHalfEntries)]);
      const CheckResult r = check_batched(e, b, h.get(), rng);
      EXPECT_EQ(r.failure, "") << describe(e, b) << " on " << c.tile << " " << tiles << " -> " << r.kernel;
      EXPECT_NE(r.kernel.find("_z" + std::to_string(tiles) + "_bt"), std::string::npos)
          << describe(e, b) << " ran " << r.kernel;
      ++i;
      if (HasFailure()) return;
    }
}

// alpha = 0, beta = 1 on blocks of four entries, an infinity in C's entries 0 and 4: C comes back
// bit for bit, as reference BLAS leaves it (beta C, no product), the infinities in place and the
// later entries of each block finite (the tensor-map epilogue stages alpha acc + beta C in the
// accumulators; without a product they are zeroed again before the next entry, or 0 * inf made
// NaN there).
TEST(BatchedEntryPoints, WgmmaBlocksWithoutAProductKeepEachEntrysC) {
  SKIP_WITHOUT_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code";
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA81ull);
  const BatchedEntry& e = batched_entry_named("HgemmStridedBatched");
  ASSERT_NE(e.ptx, nullptr) << "libptxblas.so does not export " << e.symbol;
  const int m = 128, n = 128, k = 64, count = 8;
  const long long sa = m * k, sb = k * n, sc = m * n;
  std::vector<cd> c(static_cast<std::size_t>(sc * count));
  for (cd& v : c) v = random_value(e.elem, rng);
  for (const int entry : {0, 4}) c[static_cast<std::size_t>(entry * sc + 5 + 7 * m)] = cd(INFINITY, 0);
  const std::vector<unsigned char> c_bytes = encode(e.elem, c);
  const std::vector<unsigned char> zeros(static_cast<std::size_t>(sa * count) * elem_bytes(e.elem), 0);
  DeviceBuffer da(zeros.size()), db(zeros.size()), dc(c_bytes.size());
  ASSERT_TRUE(da.p && db.p && dc.p);
  ASSERT_EQ(cudaMemcpy(da.p, zeros.data(), zeros.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db.p, zeros.data(), zeros.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dc.p, c_bytes.data(), c_bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  const std::vector<unsigned char> alpha = encode(e.scal, cd(0, 0)), beta = encode(e.scal, cd(1, 0));
  const ForcedTile forced("wgmma 64 64 64 64 64 1 1 0 2 1 -1 1 4");
  ASSERT_TRUE(forced.accepted());
  ASSERT_EQ(e.ptx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha.data(), da.p, m, sa, db.p, k, sb, beta.data(), dc.p,
                  m, sc, count),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_NE(last_call().find("_z4_bt"), std::string::npos) << last_call();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> got(c_bytes.size());
  ASSERT_EQ(cudaMemcpy(got.data(), dc.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  const std::vector<cd> values = decode(e.elem, got);
  int wrong = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::memcmp(got.data() + i * elem_bytes(e.elem), c_bytes.data() + i * elem_bytes(e.elem), elem_bytes(e.elem)) &&
        wrong++ < 3)
      ADD_FAILURE() << "entry " << i / sc << " C(" << i % sc % m << "," << i % sc / m << ") = " << values[i]
                    << ", expected " << c[i];
  EXPECT_EQ(wrong, 0);
}

// C entries that overlap (strideC < ldc * n) make the result depend on the order entries run in:
// forwarded. Here they interleave (ldc = 2m, strideC = m: entry 1 lies in entry 0's padding rows),
// so each element still has one writer and cuBLAS's result is defined.
TEST(BatchedForwarding, OverlappingCEntriesGoToCublas) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA80ull);
  int i = 0;
  for (const char* name : {"SgemmStridedBatched", "ZgemmStridedBatched_64", "HgemmStridedBatched",
                           "GemmStridedBatchedEx_R16BF_C32F"}) {
    const BatchedEntry& e = batched_entry_named(name);
    Gemm g = make_gemm(i % 2 ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, {24, 16, 20}, false, 1 + i % 2, rng);
    g.ldc = 2 * g.m;
    Batch b = with_strides(g, 2);
    b.sc = g.m;
    const CheckResult r = check_batched(e, b, h.get(), rng, Expect::Forwarded);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    ++i;
  }
}

// A GemmStridedBatchedEx type combination ptxblas does not serve (pedantic f32 compute) goes to
// cuBLAS whole, through both entry points.
TEST(BatchedForwarding, UnservedExCombinationGoesToCublas) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA81ull);
  for (bool is64 : {false, true}) {
    const BatchedEntry e =
        batched_ex_entry(is64, "R32F_C32F_PEDANTIC", CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, Elem::F32, Scal::F32);
    const Batch b = with_strides(make_gemm(CUBLAS_OP_N, CUBLAS_OP_T, {40, 24, 32}, false, 3, rng), 3, 5);
    const CheckResult r = check_batched(e, b, h.get(), rng, Expect::Forwarded);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
  }
}


// ---------------------------------------------------------------------------------------------
// Arrays of pointers (cublas{S,D,C,Z}gemmBatched and their _64 forms): the same checks, with each
// entry's A, B and C wherever the case puts it (several buffers, any order, uneven gaps that leave
// entries at odd element offsets, one A for every entry), the arrays of pointers in device memory
// (and unchanged after). Served batches run one "_btp" kernel, K whole; a batch of one may take
// the plain GEMM path.

// Where one entry of one operand lies: element `at` of buffer `buf`.
struct Region {
  int buf = 0;
  std::size_t at = 0;
};

enum class Scatter {
  Packed,       // in order, back to back, one buffer per operand (what a strided batch would be)
  Reversed,     // last entry first, 0..9 elements between entries, one buffer per operand
  Shuffled,     // random order; A and B mixed over three buffers, C over three others; random gaps
  SharedA,      // one A for every entry (its pointer repeated); B and C shuffled over two buffers each
  Interleaved,  // A and B entries alternating in one buffer, last entry first; C reversed in another
  CInPadding,   // ldc >= 2m: entry pairs' C interleaved, the second m elements into the first's columns
};

const char* name_of(Scatter s) {
  switch (s) {
    case Scatter::Packed: return "packed";
    case Scatter::Reversed: return "reversed";
    case Scatter::Shuffled: return "shuffled";
    case Scatter::SharedA: return "shared A";
    case Scatter::Interleaved: return "A/B interleaved";
    case Scatter::CInPadding: return "C in padding";
  }
  return "?";
}

struct Placement {
  std::vector<Region> a, b, c;       // entry i's operands
  std::vector<std::size_t> in, out;  // elements of each A/B buffer and of each C buffer, guard included
};

// `elems` elements appended to buffer `buf` of `sizes`, `gap` elements after its current end.
Region append(std::vector<std::size_t>& sizes, int buf, std::size_t elems, std::size_t gap) {
  if (sizes.size() <= static_cast<std::size_t>(buf)) sizes.resize(static_cast<std::size_t>(buf) + 1, 0);
  const Region r{buf, sizes[static_cast<std::size_t>(buf)] + gap};
  sizes[static_cast<std::size_t>(buf)] = r.at + elems;
  return r;
}

Placement place(const Gemm& g, std::int64_t count, Scatter s, std::mt19937_64& rng) {
  const auto ea = static_cast<std::size_t>(g.lda * a_cols(g)), eb = static_cast<std::size_t>(g.ldb * b_cols(g)),
             ec = static_cast<std::size_t>(g.ldc * g.n);
  std::vector<std::int64_t> order(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) order[static_cast<std::size_t>(i)] = i;
  if (s == Scatter::Reversed || s == Scatter::Interleaved) std::reverse(order.begin(), order.end());
  if (s == Scatter::Shuffled || s == Scatter::SharedA || s == Scatter::CInPadding)
    std::shuffle(order.begin(), order.end(), rng);
  auto gap = [&]() -> std::size_t {
    return s == Scatter::Packed ? 0 : static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 9)(rng));
  };
  auto pick = [&](int first, int n) { return first + std::uniform_int_distribution<int>(0, n - 1)(rng); };
  Placement p;
  p.a.resize(order.size());
  p.b.resize(order.size());
  p.c.resize(order.size());
  bool have_shared = false;
  Region shared;
  for (std::int64_t i : order) {
    const auto at = static_cast<std::size_t>(i);
    switch (s) {
      case Scatter::Packed:
      case Scatter::Reversed:
        p.a[at] = append(p.in, 0, ea, gap());
        p.b[at] = append(p.in, 1, eb, gap());
        p.c[at] = append(p.out, 0, ec, gap());
        break;
      case Scatter::Interleaved:
        p.a[at] = append(p.in, 0, ea, gap());
        p.b[at] = append(p.in, 0, eb, gap());
        p.c[at] = append(p.out, 0, ec, gap());
        break;
      case Scatter::Shuffled:
      case Scatter::CInPadding:
        p.a[at] = append(p.in, pick(0, 3), ea, gap());
        p.b[at] = append(p.in, pick(0, 3), eb, gap());
        if (s == Scatter::Shuffled) p.c[at] = append(p.out, pick(0, 3), ec, gap());
        break;
      case Scatter::SharedA:
        if (!have_shared) shared = append(p.in, 0, ea, gap());
        have_shared = true;
        p.a[at] = shared;
        p.b[at] = append(p.in, pick(1, 2), eb, gap());
        p.c[at] = append(p.out, pick(0, 2), ec, gap());
        break;
    }
  }
  if (s == Scatter::CInPadding)  // the pair's second C ends within the first's ldc * n (ldc >= 2m)
    for (std::size_t j = 0; j < order.size(); j += 2) {
      const Region r = append(p.out, 0, ec, gap());
      p.c[static_cast<std::size_t>(order[j])] = r;
      if (j + 1 < order.size()) p.c[static_cast<std::size_t>(order[j + 1])] = {0, r.at + static_cast<std::size_t>(g.m)};
    }
  for (std::size_t& n : p.in) n += kGuard;
  for (std::size_t& n : p.out) n += kGuard;
  return p;
}

std::string describe(const PointerBatchedEntry& e, const Gemm& g, std::int64_t count, Scatter s) {
  std::ostringstream os;
  os << gputest::describe(e.types(), g) << " batch " << count << " " << name_of(s);
  return os.str();
}

// Entry `r`'s m x n elements of a C buffer (leading dimension m).
std::vector<cd> entry_at(const std::vector<cd>& c, Region r, const Gemm& g) {
  std::vector<cd> out(static_cast<std::size_t>(g.m * g.n));
  for (std::int64_t j = 0; j < g.n; ++j)
    for (std::int64_t i = 0; i < g.m; ++i)
      out[static_cast<std::size_t>(i + j * g.m)] = c[r.at + static_cast<std::size_t>(i + j * g.ldc)];
  return out;
}

using Buffers = std::vector<std::unique_ptr<DeviceBuffer>>;

// Every (encoded) buffer of `host` in device memory, in `dev`; "" or why not.
std::string upload(const std::vector<std::vector<unsigned char>>& host, Buffers& dev) {
  for (const std::vector<unsigned char>& h : host) {
    dev.push_back(std::make_unique<DeviceBuffer>(h.size()));
    if (!dev.back()->p) return "cudaMalloc failed";
    const cudaError_t e = cudaMemcpy(dev.back()->p, h.data(), h.size(), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return std::string("cudaMemcpy: ") + cudaGetErrorString(e);
  }
  return {};
}

// Runs the batch through ptxblas and the real cuBLAS on `handle`, each into its own copy of the C
// buffers, with the same arrays of A and B pointers.
CheckResult check_pointer_batched(const PointerBatchedEntry& e, const Gemm& g, std::int64_t count, Scatter scatter,
                                  cublasHandle_t handle, std::mt19937_64& rng, Expect expect = Expect::Served) {
  if (!e.ptx) return {"libptxblas.so does not export " + e.symbol, {}};
  const std::size_t es = elem_bytes(e.elem);
  const Placement p = place(g, count, scatter, rng);
  const Gemm gs{g.ta,  g.tb,  g.m,  g.n, g.k, g.lda, g.ldb, g.ldc, round_to(e.scal, g.alpha),
                round_to(e.scal, g.beta)};  // the scalars as the call passes them
  const auto n_entries = static_cast<std::size_t>(count);

  // A and B: NaN but each entry's rows x cols (a shared A's values are those written last).
  std::vector<std::vector<cd>> in;
  for (std::size_t n : p.in) in.emplace_back(n, cd(std::nan(""), std::nan("")));
  auto fill = [&](Region r, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        in[static_cast<std::size_t>(r.buf)][r.at + static_cast<std::size_t>(i + j * ld)] = random_value(e.elem, rng);
  };
  for (std::size_t i = 0; i < n_entries; ++i) {
    fill(p.a[i], a_rows(g), a_cols(g), g.lda);
    fill(p.b[i], b_rows(g), b_cols(g), g.ldb);
  }

  // C: all-ones bytes (NaN) but, when beta reads them, each entry's m x n values.
  std::vector<std::vector<unsigned char>> c_bytes;
  std::vector<std::vector<cd>> c;
  std::vector<std::vector<bool>> inside;
  for (std::size_t n : p.out) {
    c_bytes.emplace_back(n * es, 0xFF);
    c.push_back(decode(e.elem, c_bytes.back()));
    inside.emplace_back(n, false);
  }
  for (std::size_t i = 0; i < n_entries; ++i)
    for (std::int64_t j = 0; j < g.n; ++j)
      for (std::int64_t r = 0; r < g.m; ++r) {
        const auto buf = static_cast<std::size_t>(p.c[i].buf);
        const std::size_t at = p.c[i].at + static_cast<std::size_t>(r + j * g.ldc);
        if (inside[buf][at]) return {"harness: two C entries share an element", {}};
        inside[buf][at] = true;
        if (gs.beta != 0.0) c[buf][at] = random_value(e.elem, rng);
      }
  if (gs.beta != 0.0)
    for (std::size_t buf = 0; buf < c.size(); ++buf) {
      const std::vector<unsigned char> values = encode(e.elem, c[buf]);
      for (std::size_t i = 0; i < inside[buf].size(); ++i)
        if (inside[buf][i]) std::memcpy(c_bytes[buf].data() + i * es, values.data() + i * es, es);
    }

  std::vector<std::vector<unsigned char>> in_bytes;
  for (const std::vector<cd>& v : in) in_bytes.push_back(encode(e.elem, v));
  Buffers din, dc_ptx, dc_real;
  for (const std::string& why : {upload(in_bytes, din), upload(c_bytes, dc_ptx), upload(c_bytes, dc_real)})
    if (!why.empty()) return {why, {}};

  // The arrays of pointers.
  auto addr = [&](const Buffers& v, Region r) {
    return static_cast<void*>(static_cast<unsigned char*>(v[static_cast<std::size_t>(r.buf)]->p) + r.at * es);
  };
  std::vector<const void*> pa(n_entries), pb(n_entries);
  std::vector<void*> pc_ptx(n_entries), pc_real(n_entries);
  for (std::size_t i = 0; i < n_entries; ++i) {
    pa[i] = addr(din, p.a[i]);
    pb[i] = addr(din, p.b[i]);
    pc_ptx[i] = addr(dc_ptx, p.c[i]);
    pc_real[i] = addr(dc_real, p.c[i]);
  }
  const std::size_t arr = n_entries * sizeof(void*);
  DeviceBuffer da(arr), db(arr), dcp(arr), dcr(arr);
  if (!da.p || !db.p || !dcp.p || !dcr.p) return {"cudaMalloc failed", {}};
  TRY_CUDA(cudaMemcpy(da.p, pa.data(), arr, cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(db.p, pb.data(), arr, cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(dcp.p, pc_ptx.data(), arr, cudaMemcpyHostToDevice));
  TRY_CUDA(cudaMemcpy(dcr.p, pc_real.data(), arr, cudaMemcpyHostToDevice));
  TRY_CUDA(cudaDeviceSynchronize());  // pageable copies may still be in flight

  const std::vector<unsigned char> alpha = encode(e.scal, gs.alpha), beta = encode(e.scal, gs.beta);
  const auto A = static_cast<const void* const*>(da.p), B = static_cast<const void* const*>(db.p);
  std::uint64_t served0, fwd0, served1, fwd1;
  counters(served0, fwd0);
  const cublasStatus_t sp = e.ptx(handle, g.ta, g.tb, g.m, g.n, g.k, alpha.data(), A, g.lda, B, g.ldb, beta.data(),
                                  static_cast<void* const*>(dcp.p), g.ldc, count);
  CheckResult out;
  out.kernel = last_call();
  counters(served1, fwd1);
  const cublasStatus_t sr = e.real(handle, g.ta, g.tb, g.m, g.n, g.k, alpha.data(), A, g.lda, B, g.ldb, beta.data(),
                                   static_cast<void* const*>(dcr.p), g.ldc, count);
  cudaStream_t stream = nullptr;
  if (cublasGetStream(handle, &stream) != CUBLAS_STATUS_SUCCESS) return {"cublasGetStream failed", out.kernel};
  TRY_CUDA(cudaStreamSynchronize(stream));
  TRY_CUDA(cudaGetLastError());
  if (sp != CUBLAS_STATUS_SUCCESS || sr != CUBLAS_STATUS_SUCCESS) {
    out.failure = std::string("status: ptxblas ") + cublasGetStatusName(sp) + ", cuBLAS " + cublasGetStatusName(sr);
    return out;
  }
  out.failure = judge_record(out.kernel, count, expect, served1 - served0, fwd1 - fwd0, "_btp");
  if (!out.failure.empty()) return out;

  // The arrays are the caller's, read only.
  std::vector<const void*> after(n_entries);
  const std::pair<const DeviceBuffer*, const void* const*> arrays[] = {
      {&da, pa.data()}, {&db, pb.data()}, {&dcp, pc_ptx.data()}};
  for (const auto& [d, want] : arrays) {
    TRY_CUDA(cudaMemcpy(after.data(), d->p, arr, cudaMemcpyDeviceToHost));
    if (!std::equal(after.begin(), after.end(), want)) {
      out.failure = "ptxblas changed an array of pointers";
      return out;
    }
  }

  const bool forwarded = starts_with(out.kernel, "forwarded: ");
  std::vector<std::vector<cd>> got_ptx, got_real;
  for (std::size_t buf = 0; buf < c_bytes.size(); ++buf) {
    std::vector<unsigned char> bp(c_bytes[buf].size()), br(c_bytes[buf].size());
    TRY_CUDA(cudaMemcpy(bp.data(), dc_ptx[buf]->p, bp.size(), cudaMemcpyDeviceToHost));
    TRY_CUDA(cudaMemcpy(br.data(), dc_real[buf]->p, br.size(), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < inside[buf].size(); ++i)
      if (!inside[buf][i] && std::memcmp(bp.data() + i * es, c_bytes[buf].data() + i * es, es) != 0) {
        out.failure = "ptxblas wrote element " + std::to_string(i) + " of C buffer " + std::to_string(buf) +
                      ", outside every entry";
        return out;
      }
    if (forwarded && bp != br) {  // a forwarded call is cuBLAS's own: the same bits
      out.failure = "forwarded call's C differs from the real cuBLAS's";
      return out;
    }
    got_ptx.push_back(decode(e.elem, bp));
    got_real.push_back(decode(e.elem, br));
  }
  const Entry types = e.types();
  for (std::size_t i = 0; i < n_entries; ++i) {
    const auto ab = static_cast<std::size_t>(p.a[i].buf), bb = static_cast<std::size_t>(p.b[i].buf),
               cb = static_cast<std::size_t>(p.c[i].buf);
    // slice() takes the entry's columns whole: the last column's padding rows too (NaN, not read).
    const Reference ref =
        reference(gs, types, slice(in[ab], static_cast<long long>(p.a[i].at), g.lda * a_cols(g)),
                  slice(in[bb], static_cast<long long>(p.b[i].at), g.ldb * b_cols(g)),
                  slice(c[cb], static_cast<long long>(p.c[i].at), g.ldc * (g.n - 1) + g.m));
    const std::vector<cd> pi = entry_at(got_ptx[cb], p.c[i], g), ri = entry_at(got_real[cb], p.c[i], g);
    std::vector<double> both(ref.bound.size());
    for (std::size_t j = 0; j < both.size(); ++j) both[j] = ref.bound[j] + ref.bound_cublas[j];
    const auto at = static_cast<std::int64_t>(i);
    out.failure = compare("ptxblas", g.m, at, pi, ref.c, forwarded ? ref.bound_cublas : ref.bound);
    if (out.failure.empty()) out.failure = compare("cuBLAS (harness check)", g.m, at, ri, ref.c, ref.bound_cublas);
    if (out.failure.empty()) out.failure = compare("ptxblas against cuBLAS", g.m, at, pi, ri, both);
    if (!out.failure.empty()) return out;
  }
  return out;
}

class PointerBatched : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    handle_ = std::make_unique<Handle>();
    rng_.seed(test_seed() ^ std::hash<std::string>{}(GetParam()) ^ 0xB7Full);
  }
  const PointerBatchedEntry& entry() const { return pointer_batched_entry_named(GetParam()); }
  bool complex() const { return is_complex(entry().elem); }

  CheckResult run(const Gemm& g, std::int64_t count, Scatter s, Expect expect = Expect::Served) {
    const CheckResult r = check_pointer_batched(entry(), g, count, s, handle_->get(), rng_, expect);
    EXPECT_EQ(r.failure, "") << describe(entry(), g, count, s) << " -> " << r.kernel;
    return r;
  }

  std::unique_ptr<Handle> handle_;
  std::mt19937_64 rng_;
};

// NN, NT, TN, TT (complex: also CN, NC, CC) x batchCount 1, 2, 3, 7, 40 on ragged shapes, some
// with padded leading dimensions, the scalars cycling (beta = 0 over NaN among them), the entries
// laid out reversed, shuffled over several buffers, with one shared A, A and B interleaved, packed.
TEST_P(PointerBatched, LayoutsAndBatchCounts) {
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T, C = CUBLAS_OP_C;
  std::vector<std::pair<cublasOperation_t, cublasOperation_t>> ops = {{N, N}, {N, T}, {T, N}, {T, T}};
  if (complex()) ops.insert(ops.end(), {{C, N}, {N, C}, {C, C}});
  const Shape shapes[] = {{33, 17, 45}, {70, 90, 50}, {129, 40, 100}};
  const std::int64_t counts[] = {1, 2, 3, 7, 40};
  const Scatter scatters[] = {Scatter::Reversed, Scatter::Shuffled, Scatter::SharedA, Scatter::Interleaved,
                              Scatter::Packed};
  int i = 0, o = 0;
  for (const auto& [ta, tb] : ops) {
    int c = 0;
    for (std::int64_t count : counts) {
      const Shape s = shapes[i % (count >= 40 ? 1 : count >= 7 ? 2 : 3)];
      run(make_gemm(ta, tb, s, i % 2 == 1, i, rng_), count, scatters[(c + o) % std::size(scatters)]);
      ++i;
      ++c;
      if (HasFailure()) return;  // one clear failure beats a screenful of echoes
    }
    ++o;
  }
}

// Padded leading dimensions with uneven gaps between entries: every padding row and gap of C
// must come back bit-identical (beta 0 and not); C entries interleaved in each other's padding
// rows (each element still has one writer); one A for 40 entries.
TEST_P(PointerBatched, ScatteredEntriesAndGapsStayUntouched) {
  run(make_gemm(CUBLAS_OP_N, CUBLAS_OP_T, {45, 33, 29}, true, 2, rng_), 6, Scatter::Shuffled);
  run(make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {64, 48, 40}, true, 0, rng_), 7, Scatter::Interleaved);
  run(make_gemm(CUBLAS_OP_T, CUBLAS_OP_T, {33, 61, 47}, true, 1, rng_), 40, Scatter::SharedA);
  for (std::int64_t count : {4, 5}) {
    Gemm g = make_gemm(count == 4 ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, {24, 20, 36}, false, count, rng_);
    g.ldc = 2 * g.m + 3;
    run(g, count, Scatter::CInPadding);
  }
}

// beta = 0 over NaN (alpha non-zero, and alpha = 0: exact zeros), alpha = 0 with beta (C = beta C),
// K = 0 (C = beta C; served or forwarded, either is cuBLAS's semantics).
TEST_P(PointerBatched, ScalarEdgeCases) {
  Gemm g = make_gemm(CUBLAS_OP_N, CUBLAS_OP_N, {37, 29, 23}, false, 0, rng_);
  g.alpha = {-1.5, 0.25};
  run(g, 7, Scatter::Shuffled);
  g.alpha = {0, 0};
  run(g, 7, Scatter::Reversed);
  g.beta = {0.5, -0.25};
  run(g, 3, Scatter::Shuffled);
  g = make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {21, 19, 0}, false, 3, rng_);
  run(g, 3, Scatter::Reversed, Expect::Either);
}

// Statuses equal to the real cuBLAS's for empty batches and bad arguments (batchCount < 0:
// INVALID_VALUE), none forwarded; C and the arrays of pointers untouched.
TEST_P(PointerBatched, EmptyCallsAndBadArgumentsMatchCublas) {
  const PointerBatchedEntry& e = entry();
  ASSERT_TRUE(e.ptx) << "libptxblas.so does not export " << e.symbol;
  const auto N = CUBLAS_OP_N;
  std::vector<BadBatch> cases = bad_batches();
  cases.insert(cases.begin() + 7, {"k < 0", {N, N, 8, 8, -1, 8, 8, 8, 1.0, 0.0}, 3});
  cases.insert(cases.begin() + 9, {"ldb < k", {N, N, 8, 8, 8, 8, 7, 8, 1.0, 0.0}, 3});
  constexpr std::size_t kEntry = 64 * 16;  // one 8 x 8 entry of the widest type
  constexpr std::size_t kCount = 4;
  DeviceBuffer a(kCount * kEntry), b(kCount * kEntry), c(kCount * kEntry), pa(kCount * 8), pb(kCount * 8),
      pc(kCount * 8);
  ASSERT_TRUE(a.p && b.p && c.p && pa.p && pb.p && pc.p);
  CUDA_OK(cudaMemset(c.p, 0x5A, kCount * kEntry));
  std::vector<void*> arrays[3];
  for (std::size_t i = 0; i < kCount; ++i) {  // backwards, as nothing else would be
    arrays[0].push_back(static_cast<unsigned char*>(a.p) + (kCount - 1 - i) * kEntry);
    arrays[1].push_back(static_cast<unsigned char*>(b.p) + (kCount - 1 - i) * kEntry);
    arrays[2].push_back(static_cast<unsigned char*>(c.p) + (kCount - 1 - i) * kEntry);
  }
  CUDA_OK(cudaMemcpy(pa.p, arrays[0].data(), kCount * 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(pb.p, arrays[1].data(), kCount * 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(pc.p, arrays[2].data(), kCount * 8, cudaMemcpyHostToDevice));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  for (const BadBatch& x : cases) {
    const Gemm& g = x.g;
    cublasHandle_t h = x.null_handle ? nullptr : handle_->get();
    auto call = [&](const PointerBatchedFn& f) {
      return f(h, g.ta, g.tb, g.m, g.n, g.k, one.data(), static_cast<const void* const*>(pa.p), g.lda,
               static_cast<const void* const*>(pb.p), g.ldb, zero.data(), static_cast<void* const*>(pc.p), g.ldc,
               x.count);
    };
    std::uint64_t served0, fwd0, served1, fwd1;
    counters(served0, fwd0);
    const cublasStatus_t sp = call(e.ptx);
    const std::string what = last_call();
    counters(served1, fwd1);
    const cublasStatus_t want = call(e.real);
    EXPECT_EQ(cublasGetStatusName(sp), std::string(cublasGetStatusName(want))) << e.name << ": " << x.what;
    if (x.count < 0) {
      EXPECT_EQ(cublasGetStatusName(sp), std::string("CUBLAS_STATUS_INVALID_VALUE")) << e.name << ": " << x.what;
    }
    if (sp != CUBLAS_STATUS_SUCCESS) {
      EXPECT_EQ(what, std::string("error: ") + cublasGetStatusName(sp)) << e.name << ": " << x.what;
    }
    EXPECT_FALSE(starts_with(what, "forwarded")) << e.name << ": " << x.what << " -> " << what;
    EXPECT_EQ(fwd1, fwd0) << e.name << ": " << x.what << " counted as forwarded";
  }
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> after(kCount * kEntry);
  CUDA_OK(cudaMemcpy(after.data(), c.p, after.size(), cudaMemcpyDeviceToHost));
  for (unsigned char v : after) ASSERT_EQ(v, 0x5A) << "an empty or rejected call wrote C";
  std::vector<void*> got(kCount);
  CUDA_OK(cudaMemcpy(got.data(), pc.p, kCount * 8, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, arrays[2]) << "the array of C pointers changed";
}

INSTANTIATE_TEST_SUITE_P(PointerArrayEntries, PointerBatched, ::testing::ValuesIn(pointer_batched_entry_names()),
                         [](const auto& info) { return info.param; });

// 70000 entries of 8 x 8 x 8, shuffled over three buffers per operand: more than grid z's 65535,
// so the second launch must take its entries from the arrays' 65536th pointer on.
TEST(PointerBatchedEntryPoints, MoreEntriesThanOneGridHolds) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xB780ull);
  const PointerBatchedEntry& e = pointer_batched_entry_named("SgemmBatched");
  const Gemm g = make_gemm(CUBLAS_OP_T, CUBLAS_OP_N, {8, 8, 8}, false, 1, rng);
  const CheckResult r = check_pointer_batched(e, g, 70000, Scatter::Shuffled, h.get(), rng);
  EXPECT_EQ(r.failure, "") << describe(e, g, 70000, Scatter::Shuffled) << " -> " << r.kernel;
}

// Pointer-array f32 and f64 batches (plan_batched's tiles too) on each rated tile, forced: one
// layout a tile (cycling), the entries shuffled over several buffers, padded leading dimensions
// on every other tile. Never vector copies (the entries' alignment is not known).
TEST(PointerBatchedEntryPoints, RatedTilesRunPointerArrays) {
  SKIP_WITHOUT_GPU();
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xB781ull);
  int i = 0;
  for (const RatedTileCase& t : kRatedTiles) {
    const PointerBatchedEntry& e = pointer_batched_entry_named(std::string(t.type) + "gemmBatched");
    const auto [ta, tb] = kRealOps[i % std::size(kRealOps)];
    const Gemm g = make_gemm(ta, tb, {70, 90, 64}, i % 2 == 1, i, rng);
    const ForcedTile forced(t.tile);
    ASSERT_TRUE(forced.accepted());
    const CheckResult r = check_pointer_batched(e, g, 5, Scatter::Shuffled, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, g, 5, Scatter::Shuffled) << " on " << t.tile << " -> " << r.kernel;
    EXPECT_NE(r.kernel.find(t.expect), std::string::npos) << " ran " << r.kernel;
    EXPECT_NE(r.kernel.find("_btp"), std::string::npos) << " ran " << r.kernel;
    ++i;
  }
}

}  // namespace
}  // namespace gputest
