// Strided-batched GEMM (cublas?gemmStridedBatched, cublasGemmStridedBatchedEx, their _64 forms):
// every entry of each batch checked against the float64 reference and against the real cuBLAS's
// result for the same call, on fresh random data with NaN in everything the call must not read
// (padding rows, the gaps between entries, C when beta is 0); every byte of C outside the entries'
// m x n elements must come back bit-identical. Served batches (batchCount > 1) run one "_bt" kernel,
// K never split; calls ptxblas does not serve (C entries that overlap, unserved GemmEx types) are
// forwarded and give cuBLAS's own bits. A library that does not export an entry point yet fails
// the tests that need it, with its name.
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
std::string compare(const std::string& who, const Batch& b, std::int64_t i, const std::vector<cd>& got,
                    const std::vector<cd>& want, const std::vector<double>& bound) {
  std::ostringstream os;
  std::int64_t wrong = 0;
  for (std::size_t at = 0; at < got.size(); ++at) {
    const double err = std::abs(got[at] - want[at]);
    if (finite(got[at]) && err <= bound[at]) continue;
    if (wrong++ < 3)
      os << "\n  " << who << " entry " << i << " C(" << at % b.g.m << "," << at / b.g.m << ") = " << got[at]
         << ", expected " << want[at] << " (|err| " << err << " > bound " << bound[at] << ")";
  }
  if (!wrong) return {};
  return who + ": " + std::to_string(wrong) + " of entry " + std::to_string(i) + "'s elements wrong" + os.str();
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// "mma_d_nt_64x64x8_..._bt" (a record's suffixes, if any, follow a space): one batched launch, K whole.
bool batched_kernel(const std::string& record) {
  return record.substr(0, record.find(' ')).ends_with("_bt") && record.find(" kg=") == std::string::npos;
}

// What the ptxblas call did (its record and the counters' steps), against `expect`; "" when as expected.
std::string judge_record(const std::string& kernel, const Batch& b, Expect expect, std::uint64_t served,
                         std::uint64_t forwarded) {
  const bool fwd = starts_with(kernel, "forwarded: ");
  switch (expect) {
    case Expect::Either: return {};
    case Expect::Forwarded:
      return fwd && forwarded == 1 && served == 0 ? "" : "not forwarded (or not counted so): " + kernel;
    case Expect::Served:
      if (fwd || starts_with(kernel, "error") || starts_with(kernel, "empty") || kernel == "none" || served != 1 ||
          forwarded != 0)
        return "not served by ptxblas (or not counted so): " + kernel;
      if (b.count > 1 && !batched_kernel(kernel)) return "not one batched launch with K whole: " + kernel;
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
  out.failure = judge_record(out.kernel, b, expect, served1 - served0, fwd1 - fwd0);
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
    out.failure = compare("ptxblas", b, i, pi, ref.c, forwarded ? cublas_bound : ref.bound);
    if (out.failure.empty()) out.failure = compare("cuBLAS (harness check)", b, i, ri, ref.c, cublas_bound);
    if (out.failure.empty()) out.failure = compare("ptxblas against cuBLAS", b, i, pi, ri, both);
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

// Statuses equal to the real cuBLAS's for empty batches and bad arguments, none forwarded; C
// untouched. A negative batchCount is INVALID_VALUE: so the typed entries answer, while
// cublasGemmStridedBatchedEx (cuBLAS 13.x on the H200) gives EXECUTION_FAILED, or SUCCESS when m
// is 0 too; those cases are not compared with it.
TEST_P(Batched, EmptyCallsAndBadArgumentsMatchCublas) {
  const BatchedEntry& e = entry();
  ASSERT_TRUE(e.ptx) << "libptxblas.so does not export " << e.symbol;
  const auto N = CUBLAS_OP_N;
  struct Bad {
    const char* what;
    Gemm g;
    std::int64_t count;
    bool null_handle = false;
  };
  const Bad cases[] = {
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
  constexpr std::size_t kBytes = 4 * 64 * 16;  // four 8 x 8 entries of the widest type
  DeviceBuffer a(kBytes), b(kBytes), c(kBytes);
  ASSERT_TRUE(a.p && b.p && c.p);
  CUDA_OK(cudaMemset(c.p, 0x5A, kBytes));
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  const bool ex = e.symbol.find("Ex") != std::string::npos;
  for (const Bad& x : cases) {
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

// On sm_90, f16/bf16 batches whose A and B a tensor map reads (16-byte aligned, leading
// dimensions and strides multiples of 8 elements) run the wgmma family: 256 x 256 x 256 in every
// layout and a ragged shape. An odd leading dimension cannot; it is served by another family.
TEST(BatchedEntryPoints, HalfTypesRunWgmmaOnSm90) {
  SKIP_WITHOUT_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma kernels are sm_90a code";
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xBA7Full);
  const char* kHalf[] = {"HgemmStridedBatched", "GemmStridedBatchedEx_R16BF_C32F", "GemmStridedBatchedEx_R16F_C32F"};
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  const std::pair<cublasOperation_t, cublasOperation_t> ops[] = {{N, N}, {N, T}, {T, N}, {T, T}};
  int i = 0;
  for (const auto& [ta, tb] : ops) {
    const BatchedEntry& e = batched_entry_named(kHalf[i % std::size(kHalf)]);
    const Batch b = with_strides(make_gemm(ta, tb, {256, 256, 256}, false, i, rng), 2, 8 * i);
    const CheckResult r = check_batched(e, b, h.get(), rng);
    EXPECT_EQ(r.failure, "") << describe(e, b) << " -> " << r.kernel;
    EXPECT_TRUE(starts_with(r.kernel, "wgmma_")) << describe(e, b) << " ran " << r.kernel;
    ++i;
  }
  // Ragged, leading dimensions padded to multiples of 8.
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

}  // namespace
}  // namespace gputest
