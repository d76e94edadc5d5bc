// Level-3 routines (SYMM/HEMM, SYRK/HERK, SYR2K/HER2K, SYRKX/HERKX, TRMM, TRSM) for S, D, C, Z:
// every side / uplo / trans / diag, against a float64 reference (Netlib BLAS in double precision
// on the same data) and the real cuBLAS. Unstored triangles of A are NaN (never read); the
// unstored triangle of C must come back bit for bit.
#include <gtest/gtest.h>

#include <cuComplex.h>
#include <dlfcn.h>

#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_env.hpp"

namespace gputest {
namespace {

using cd = std::complex<double>;

template <class T>
struct Ty;
template <>
struct Ty<float> {
  using R = float;
  static constexpr char p = 'S';
  static constexpr bool cplx = false;
};
template <>
struct Ty<double> {
  using R = double;
  static constexpr char p = 'D';
  static constexpr bool cplx = false;
};
template <>
struct Ty<cuComplex> {
  using R = float;
  static constexpr char p = 'C';
  static constexpr bool cplx = true;
};
template <>
struct Ty<cuDoubleComplex> {
  using R = double;
  static constexpr char p = 'Z';
  static constexpr bool cplx = true;
};

template <class T>
cd to_cd(T v) {
  if constexpr (Ty<T>::cplx)
    return {v.x, v.y};
  else
    return v;
}
template <class T>
T from_cd(cd v) {
  using R = typename Ty<T>::R;
  if constexpr (Ty<T>::cplx)
    return T{static_cast<R>(v.real()), static_cast<R>(v.imag())};
  else
    return static_cast<T>(v.real());
}

// The same routine from both libraries, and the Netlib reference in double precision.
template <class Fn>
struct Both {
  Fn ptx, real;
};
template <class Fn>
Both<Fn> both(const std::string& name) {
  return {reinterpret_cast<Fn>(ptxblas_symbol(name.c_str())), reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name.c_str()))};
}

// Column-major host matrix of T, padding rows NaN, with a device copy.
template <class T>
struct Mat {
  std::int64_t rows, cols, ld;
  std::vector<T> h;
  Mat(std::int64_t r, std::int64_t c, int pad = 1)
      : rows(r), cols(c), ld(std::max<std::int64_t>(r, 1) + pad),
        h(static_cast<std::size_t>(ld * std::max<std::int64_t>(c, 1)), from_cd<T>(cd(NAN, NAN))) {}
  T& at(std::int64_t i, std::int64_t j) { return h[static_cast<std::size_t>(i + j * ld)]; }
  std::size_t bytes() const { return h.size() * sizeof(T); }
};

template <class T>
cd rnd(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  return Ty<T>::cplx ? cd(u(g), u(g)) : cd(u(g), 0);
}

struct Dev {
  void* p = nullptr;
  explicit Dev(std::size_t bytes) { cudaMalloc(&p, std::max<std::size_t>(bytes, 16)); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
};

template <class T>
void upload(Dev& d, const Mat<T>& m) {
  ASSERT_EQ(cudaMemcpy(d.p, m.h.data(), m.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
}
template <class T>
Mat<T> download(const Dev& d, const Mat<T>& like) {
  Mat<T> m = like;
  EXPECT_EQ(cudaMemcpy(m.h.data(), d.p, m.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  return m;
}

bool is_nan(cd v) { return std::isnan(v.real()) || std::isnan(v.imag()); }

// got vs want (float64) within tol * max|want| where pick(i, j); elsewhere bit-identical to `orig`.
template <class T, class Pick>
std::string check(const Mat<T>& got, const std::vector<cd>& want, const Mat<T>& orig, double tol, Pick pick) {
  double scale = 1;
  for (std::int64_t j = 0; j < got.cols; ++j)
    for (std::int64_t i = 0; i < got.rows; ++i)
      if (pick(i, j)) scale = std::max(scale, std::abs(want[static_cast<std::size_t>(i + j * got.ld)]));
  int bad = 0;
  std::string first;
  for (std::int64_t j = 0; j < got.cols; ++j)
    for (std::int64_t i = 0; i < got.ld; ++i) {
      const auto at = static_cast<std::size_t>(i + j * got.ld);
      bool ok;
      if (i < got.rows && pick(i, j)) {
        const cd g = to_cd(got.h[at]);
        ok = !is_nan(g) && std::abs(g - want[at]) <= tol * scale;
      } else {
        ok = std::memcmp(&got.h[at], &orig.h[at], sizeof(T)) == 0;
      }
      if (!ok && bad++ == 0)
        first = "(" + std::to_string(i) + "," + std::to_string(j) + ") got " + std::to_string(to_cd(got.h[at]).real()) +
                " want " + std::to_string(want[at].real());
    }
  return bad ? std::to_string(bad) + " wrong, first " + first : "";
}

template <class T>
double tol(std::int64_t terms) {
  const double eps = sizeof(typename Ty<T>::R) == 4 ? 1.2e-7 : 2.3e-16;
  return 16 * eps * static_cast<double>(terms + 8);
}

const char* op_name(cublasOperation_t o) { return o == CUBLAS_OP_N ? "N" : o == CUBLAS_OP_T ? "T" : "C"; }
char fchar(cublasOperation_t o) { return *op_name(o); }
char fchar(cublasFillMode_t u) { return u == CUBLAS_FILL_MODE_LOWER ? 'L' : 'U'; }
char fchar(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT ? 'L' : 'R'; }
char fchar(cublasDiagType_t d) { return d == CUBLAS_DIAG_UNIT ? 'U' : 'N'; }

bool stored(cublasFillMode_t u, std::int64_t i, std::int64_t j) { return u == CUBLAS_FILL_MODE_LOWER ? i >= j : i <= j; }

// Fortran reference signatures, double precision (d*) or double complex (z*).
using fc = const char*;
using fi = const int*;
template <class W>
using RefSymm = void (*)(fc, fc, fi, fi, const W*, const W*, fi, const W*, fi, const W*, W*, fi, std::size_t, std::size_t);
template <class W>
using RefGemm = void (*)(fc, fc, fi, fi, fi, const W*, const W*, fi, const W*, fi, const W*, W*, fi, std::size_t,
                         std::size_t);
template <class W>
using RefTri = void (*)(fc, fc, fc, fc, fi, fi, const W*, const W*, fi, W*, fi, std::size_t, std::size_t, std::size_t,
                        std::size_t);

// The wide (double or complex<double>) working copies the reference uses.
template <class T>
using Wide = std::conditional_t<Ty<T>::cplx, cd, double>;
template <class T>
Wide<T> wide(T v) {
  if constexpr (Ty<T>::cplx)
    return to_cd(v);
  else
    return v;
}
template <class T>
std::vector<Wide<T>> widen(const Mat<T>& m) {
  std::vector<Wide<T>> v(m.h.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = wide(m.h[i]);
  return v;
}
template <class T>
std::vector<cd> as_cd(const std::vector<Wide<T>>& v) {
  return std::vector<cd>(v.begin(), v.end());
}
}  // namespace
}  // namespace gputest

// Netlib reference BLAS (linked), double and double complex.
extern "C" {
using gputest::fc;
using gputest::fi;
using gputest::cd;
void dsymm_(fc, fc, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*, fi,
            std::size_t, std::size_t);
void zsymm_(fc, fc, fi, fi, const cd*, const cd*, fi, const cd*, fi, const cd*, cd*, fi, std::size_t, std::size_t);
void zhemm_(fc, fc, fi, fi, const cd*, const cd*, fi, const cd*, fi, const cd*, cd*, fi, std::size_t, std::size_t);
void dgemm_(fc, fc, fi, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*, fi,
            std::size_t, std::size_t);
void zgemm_(fc, fc, fi, fi, fi, const cd*, const cd*, fi, const cd*, fi, const cd*, cd*, fi, std::size_t,
            std::size_t);
void dtrmm_(fc, fc, fc, fc, fi, fi, const double*, const double*, fi, double*, fi, std::size_t, std::size_t,
            std::size_t, std::size_t);
void ztrmm_(fc, fc, fc, fc, fi, fi, const cd*, const cd*, fi, cd*, fi, std::size_t, std::size_t, std::size_t,
            std::size_t);
void dtrsm_(fc, fc, fc, fc, fi, fi, const double*, const double*, fi, double*, fi, std::size_t, std::size_t,
            std::size_t, std::size_t);
void ztrsm_(fc, fc, fc, fc, fi, fi, const cd*, const cd*, fi, cd*, fi, std::size_t, std::size_t, std::size_t,
            std::size_t);
}

namespace gputest {
namespace {

// The reference routine of T's precision class.
template <class T>
RefSymm<Wide<T>> ref_symm(bool herm) {
  if constexpr (Ty<T>::cplx)
    return herm ? zhemm_ : zsymm_;
  else
    return dsymm_;
}
template <class T>
RefGemm<Wide<T>> ref_gemm() {
  if constexpr (Ty<T>::cplx)
    return zgemm_;
  else
    return dgemm_;
}
template <class T>
RefTri<Wide<T>> ref_trmm() {
  if constexpr (Ty<T>::cplx)
    return ztrmm_;
  else
    return dtrmm_;
}
template <class T>
RefTri<Wide<T>> ref_trsm() {
  if constexpr (Ty<T>::cplx)
    return ztrsm_;
  else
    return dtrsm_;
}

// A triangular A: stored triangle random / dim, diagonal away from 0, the rest NaN; unit: diagonal NaN.
template <class T>
Mat<T> triangular(std::int64_t dim, cublasFillMode_t uplo, cublasDiagType_t diag, std::mt19937_64& g) {
  Mat<T> a(dim, dim);
  for (std::int64_t j = 0; j < dim; ++j)
    for (std::int64_t i = 0; i < dim; ++i) {
      if (i != j && stored(uplo, i, j)) a.at(i, j) = from_cd<T>(rnd<T>(g) / static_cast<double>(dim));
      if (i == j && diag == CUBLAS_DIAG_NON_UNIT) a.at(i, j) = from_cd<T>(rnd<T>(g) * 0.5 + cd(1.5, 0.5));
    }
  return a;
}

template <class T>
class Blas3 : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    handle_ = std::make_unique<Handle>();
    g_.seed(test_seed() + Ty<T>::p);
  }
  cublasHandle_t h() const { return handle_->get(); }
  std::string name(const char* routine) const { return std::string("cublas") + Ty<T>::p + routine; }

  // Runs call(fn, C device pointer) for ptxblas and cuBLAS on copies of c; returns both results.
  template <class Fn, class Call>
  std::pair<Mat<T>, Mat<T>> run_both(const Both<Fn>& fns, const Mat<T>& c, Call&& call) {
    Dev dp(c.bytes()), dr(c.bytes());
    upload(dp, c);
    upload(dr, c);
    const cublasStatus_t sp = call(fns.ptx, static_cast<T*>(dp.p));
    const std::string what = last_call();
    const cublasStatus_t sr = call(fns.real, static_cast<T*>(dr.p));
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(sp, CUBLAS_STATUS_SUCCESS) << what;
    EXPECT_EQ(sr, CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(what.rfind("adaptor: ", 0) == 0 || what == "empty", true) << "not served: " << what;
    return {download(dp, c), download(dr, c)};
  }

  std::mt19937_64 g_;
  std::unique_ptr<Handle> handle_;
};

using Types = ::testing::Types<float, double, cuComplex, cuDoubleComplex>;
TYPED_TEST_SUITE(Blas3, Types);

TYPED_TEST(Blas3, SymmAndHemm) {
  using T = TypeParam;
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int, int, const T*, const T*,
                                int, const T*, int, const T*, T*, int);
  for (bool herm : {false, true}) {
    if (herm && !Ty<T>::cplx) continue;
    const auto fns = both<Fn>(this->name(herm ? "hemm_v2" : "symm_v2"));
    const auto ref = ref_symm<T>(herm);
    for (cublasSideMode_t side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
      for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
        for (auto [m, n] : {std::pair{0, 3}, {1, 1}, {37, 129}, {130, 65}})
          for (bool beta_zero : {false, true}) {
            const int dim = side == CUBLAS_SIDE_LEFT ? m : n;
            Mat<T> a(dim, dim), b(m, n), c(m, n);
            for (int j = 0; j < dim; ++j)
              for (int i = 0; i < dim; ++i)
                if (stored(uplo, i, j)) a.at(i, j) = from_cd<T>(rnd<T>(this->g_));
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < m; ++i) {
                b.at(i, j) = from_cd<T>(rnd<T>(this->g_));
                if (!beta_zero) c.at(i, j) = from_cd<T>(rnd<T>(this->g_));
              }
            const T alpha = from_cd<T>({0.75, 0.5}), beta = from_cd<T>(beta_zero ? cd(0, 0) : cd(-0.5, 0.25));
            Dev da(a.bytes()), db(b.bytes());
            upload(da, a);
            upload(db, b);
            auto [p, r] = this->run_both(fns, c, [&](Fn f, T* dc) {
              return f(this->h(), side, uplo, m, n, &alpha, static_cast<T*>(da.p), static_cast<int>(a.ld),
                       static_cast<T*>(db.p), static_cast<int>(b.ld), &beta, dc, static_cast<int>(c.ld));
            });
            auto wa = widen(a), wb = widen(b), wc = widen(c);
            const Wide<T> ral = wide(alpha), rbe = wide(beta);
            const char cs = fchar(side), cu = fchar(uplo);
            const int lda = static_cast<int>(a.ld), ldb = static_cast<int>(b.ld), ldc = static_cast<int>(c.ld);
            ref(&cs, &cu, &m, &n, &ral, wa.data(), &lda, wb.data(), &ldb, &rbe, wc.data(), &ldc, 1, 1);
            const std::string what = std::string(herm ? "hemm " : "symm ") + cs + cu + " m=" + std::to_string(m) +
                                     " n=" + std::to_string(n) + (beta_zero ? " beta=0" : "");
            auto all = [](std::int64_t, std::int64_t) { return true; };
            EXPECT_EQ(check(p, as_cd<T>(wc), c, tol<T>(dim), all), "") << "ptxblas " << what;
            EXPECT_EQ(check(r, as_cd<T>(wc), c, tol<T>(dim), all), "") << "cuBLAS " << what;
          }
  }
}

// SYRK / SYR2K / SYRKX, and HERK / HER2K / HERKX for complex types. SYRKX/HERKX are checked
// against a reference GEMM on the stored triangle (HERKX with op(B) = op(A) R, R real diagonal,
// so that the product is Hermitian as cuBLAS requires).
enum class Form { K, TwoK, Kx };

template <class T>
struct RankCase {
  Form form;
  bool herm;
  cublasFillMode_t uplo;
  cublasOperation_t trans;
  int n, k;
};

template <class T>
std::string rank_name(const RankCase<T>& c) {
  const char* base[2][3] = {{"syrk", "syr2k", "syrkx"}, {"herk", "her2k", "herkx"}};
  return std::string(base[c.herm][static_cast<int>(c.form)]) + " " + fchar(c.uplo) + op_name(c.trans) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k);
}

TYPED_TEST(Blas3, RankKFamily) {
  using T = TypeParam;
  using R = typename Ty<T>::R;
  // Scalars: alpha complex except for HERK/HERKX-style real alpha; beta real for the Hermitian forms.
  using FnK = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const void*,
                                 const T*, int, const void*, T*, int);
  using Fn2 = cublasStatus_t (*)(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int, int, const void*,
                                 const T*, int, const T*, int, const void*, T*, int);
  const auto gemm_ref = ref_gemm<T>();
  for (bool herm : {false, true}) {
    if (herm && !Ty<T>::cplx) continue;
    for (Form form : {Form::K, Form::TwoK, Form::Kx})
      for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
        for (cublasOperation_t trans : {CUBLAS_OP_N, herm ? CUBLAS_OP_C : CUBLAS_OP_T})
          // 260 x 700: deep enough that the dispatcher may split K (the reduction then keeps the triangle).
          for (auto [n, k] : {std::pair{0, 5}, {1, 1}, {77, 33}, {300, 20}, {260, 700}}) {
            const RankCase<T> rc{form, herm, uplo, trans, n, k};
            const bool by_rows = trans == CUBLAS_OP_N;
            Mat<T> a(by_rows ? n : k, by_rows ? k : n), b(by_rows ? n : k, by_rows ? k : n, 2), c(n, n);
            for (std::int64_t j = 0; j < a.cols; ++j)
              for (std::int64_t i = 0; i < a.rows; ++i) {
                a.at(i, j) = from_cd<T>(rnd<T>(this->g_));
                b.at(i, j) = from_cd<T>(rnd<T>(this->g_));
              }
            if (form == Form::Kx && herm)  // op(B) = op(A) R: scale along k by real factors
              for (std::int64_t j = 0; j < a.cols; ++j)
                for (std::int64_t i = 0; i < a.rows; ++i)
                  b.at(i, j) = from_cd<T>(to_cd(a.at(i, j)) * (1.0 + 0.1 * static_cast<double>(by_rows ? j : i)));
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i)
                if (stored(uplo, i, j)) c.at(i, j) = from_cd<T>(rnd<T>(this->g_));
            if (herm)
              for (int i = 0; i < n; ++i) c.at(i, i) = from_cd<T>(cd(to_cd(c.at(i, i)).real(), 0));
            const T alpha_c = from_cd<T>({0.75, herm && form != Form::TwoK ? 0.0 : -0.5});
            const T beta_c = from_cd<T>({-0.5, herm ? 0.0 : 0.25});
            const R alpha_r = static_cast<R>(0.75), beta_r = static_cast<R>(-0.5);
            const bool real_alpha = herm && form == Form::K, real_beta = herm;
            const void* alpha = real_alpha ? static_cast<const void*>(&alpha_r) : static_cast<const void*>(&alpha_c);
            const void* beta = real_beta ? static_cast<const void*>(&beta_r) : static_cast<const void*>(&beta_c);
            Dev da(a.bytes()), db(b.bytes());
            upload(da, a);
            upload(db, b);
            const int lda = static_cast<int>(a.ld), ldb = static_cast<int>(b.ld), ldc = static_cast<int>(c.ld);
            const char* routine[2][3] = {{"syrk_v2", "syr2k_v2", "syrkx"}, {"herk_v2", "her2k_v2", "herkx"}};
            std::pair<Mat<T>, Mat<T>> got{c, c};
            if (form == Form::K) {
              got = this->run_both(both<FnK>(this->name(routine[herm][0])), c, [&](FnK f, T* dc) {
                return f(this->h(), uplo, trans, n, k, alpha, static_cast<T*>(da.p), lda, beta, dc, ldc);
              });
            } else {
              got = this->run_both(both<Fn2>(this->name(routine[herm][static_cast<int>(form)])), c,
                                   [&](Fn2 f, T* dc) {
                                     return f(this->h(), uplo, trans, n, k, alpha, static_cast<T*>(da.p), lda,
                                              static_cast<T*>(db.p), ldb, beta, dc, ldc);
                                   });
            }
            // Reference: full products in float64 (both orders for the 2k form), then the triangle.
            auto wa = widen(a), wb = form == Form::K ? widen(a) : widen(b), wc = widen(c);
            std::vector<Wide<T>> full(static_cast<std::size_t>(n) * static_cast<std::size_t>(std::max(n, 1)), Wide<T>{});
            const Wide<T> al = wide(alpha_c), zero{};
            const char opa = fchar(trans), opb = by_rows ? (herm ? 'C' : 'T') : 'N';
            const char opa2 = opa, opb2 = opb;
            const int nn = std::max(n, 1);
            if (n > 0) {
              gemm_ref(&opa, &opb, &n, &n, &k, &al, wa.data(), &lda, wb.data(), form == Form::K ? &lda : &ldb, &zero,
                       full.data(), &nn, 1, 1);
              if (form == Form::TwoK) {
                Wide<T> al2 = al;
                if constexpr (Ty<T>::cplx)
                  if (herm) al2 = std::conj(al);
                const Wide<T> one = Wide<T>(1);
                gemm_ref(&opa2, &opb2, &n, &n, &k, &al2, wb.data(), &ldb, wa.data(), &lda, &one, full.data(), &nn, 1, 1);
              }
            }
            const cd be = real_beta ? cd(beta_r, 0) : to_cd(beta_c);
            std::vector<cd> want(c.h.size());
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < n; ++i) {
                const auto at = static_cast<std::size_t>(i + j * ldc);
                if (!stored(uplo, i, j)) continue;
                cd v = cd(full[static_cast<std::size_t>(i + j * nn)]) + be * to_cd(c.at(i, j));
                if (herm && i == j) v = cd(v.real(), 0);
                want[at] = v;
              }
            auto tri = [&](std::int64_t i, std::int64_t j) { return stored(uplo, i, j); };
            EXPECT_EQ(check(got.first, want, c, tol<T>(2 * k + 2), tri), "") << "ptxblas " << rank_name(rc);
            EXPECT_EQ(check(got.second, want, c, tol<T>(2 * k + 2), tri), "") << "cuBLAS " << rank_name(rc);
          }
  }
}

// TRMM out of place (C NaN before) and in place (C == B), and TRSM (B overwritten).
TYPED_TEST(Blas3, TrmmAndTrsm) {
  using T = TypeParam;
  using FnM = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, int, int, const T*, const T*, int, const T*, int, T*, int);
  using FnS = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, int, int, const T*, const T*, int, T*, int);
  const auto trmm = both<FnM>(this->name("trmm_v2"));
  const auto trsm = both<FnS>(this->name("trsm_v2"));
  const auto trmm_ref = ref_trmm<T>();
  const auto trsm_ref = ref_trsm<T>();
  const T alpha = from_cd<T>({-1.25, 0.5});
  for (cublasSideMode_t side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
    for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
      for (cublasOperation_t trans : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
        for (cublasDiagType_t diag : {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT})
          // TRSM leaves: 32 wide (dim < 256), 64 (300, 260), 128 (600, 530; Z: 128 doubled from 64,
          // the last pair 88 and 18 wide) and 256 doubled from 128 (1100: a lone 76-wide last
          // block; 1224: a last pair of 128 + 72; Z: 128)
          for (auto [m, n] : {std::pair{1, 1}, {45, 70}, {300, 40}, {33, 260}, {600, 24}, {20, 530}, {1100, 8},
                              {8, 1224}}) {
            const int dim = side == CUBLAS_SIDE_LEFT ? m : n;
            Mat<T> a = triangular<T>(dim, uplo, diag, this->g_), b(m, n);
            for (int j = 0; j < n; ++j)
              for (int i = 0; i < m; ++i) b.at(i, j) = from_cd<T>(rnd<T>(this->g_));
            Dev da(a.bytes()), db(b.bytes());
            upload(da, a);
            upload(db, b);
            const int lda = static_cast<int>(a.ld), ldb = static_cast<int>(b.ld);
            const char cs = fchar(side), cu = fchar(uplo), ct = fchar(trans), cdg = fchar(diag);
            const std::string what = std::string() + cs + cu + ct + cdg + " m=" + std::to_string(m) +
                                     " n=" + std::to_string(n);
            auto all = [](std::int64_t, std::int64_t) { return true; };
            const Wide<T> wal = wide(alpha);
            auto wa = widen(a);
            {  // TRMM out of place: C starts NaN (never read)
              Mat<T> c(m, n);
              auto got = this->run_both(trmm, c, [&](FnM f, T* dc) {
                return f(this->h(), side, uplo, trans, diag, m, n, &alpha, static_cast<T*>(da.p), lda,
                         static_cast<T*>(db.p), ldb, dc, static_cast<int>(c.ld));
              });
              auto wb = widen(b);
              trmm_ref(&cs, &cu, &ct, &cdg, &m, &n, &wal, wa.data(), &lda, wb.data(), &ldb, 1, 1, 1, 1);
              std::vector<cd> want(c.h.size());
              for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i)
                  want[static_cast<std::size_t>(i + j * c.ld)] = cd(wb[static_cast<std::size_t>(i + j * b.ld)]);
              EXPECT_EQ(check(got.first, want, c, tol<T>(dim), all), "") << "ptxblas trmm " << what;
              EXPECT_EQ(check(got.second, want, c, tol<T>(dim), all), "") << "cuBLAS trmm " << what;
            }
            {  // TRMM in place (C == B) and TRSM both overwrite a copy of B
              auto wb = widen(b);
              trmm_ref(&cs, &cu, &ct, &cdg, &m, &n, &wal, wa.data(), &lda, wb.data(), &ldb, 1, 1, 1, 1);
              auto got = this->run_both(trmm, b, [&](FnM f, T* dbb) {
                return f(this->h(), side, uplo, trans, diag, m, n, &alpha, static_cast<T*>(da.p), lda, dbb, ldb, dbb, ldb);
              });
              EXPECT_EQ(check(got.first, as_cd<T>(wb), b, tol<T>(dim), all), "") << "ptxblas trmm in place " << what;
              EXPECT_EQ(check(got.second, as_cd<T>(wb), b, tol<T>(dim), all), "") << "cuBLAS trmm in place " << what;
            }
            {
              auto wb = widen(b);
              trsm_ref(&cs, &cu, &ct, &cdg, &m, &n, &wal, wa.data(), &lda, wb.data(), &ldb, 1, 1, 1, 1);
              auto got = this->run_both(trsm, b, [&](FnS f, T* dbb) {
                return f(this->h(), side, uplo, trans, diag, m, n, &alpha, static_cast<T*>(da.p), lda, dbb, ldb);
              });
              EXPECT_EQ(check(got.first, as_cd<T>(wb), b, 4 * tol<T>(dim), all), "") << "ptxblas trsm " << what;
              EXPECT_EQ(check(got.second, as_cd<T>(wb), b, 4 * tol<T>(dim), all), "") << "cuBLAS trsm " << what;
            }
          }
}

// Scalars in device memory: read before the adaptor runs (TRSM's and SYRK's control flow depends on them).
TYPED_TEST(Blas3, DevicePointerMode) {
  using T = TypeParam;
  using FnS = cublasStatus_t (*)(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                 cublasDiagType_t, int, int, const T*, const T*, int, T*, int);
  const auto trsm = both<FnS>(this->name("trsm_v2"));
  const int m = 70, n = 50;
  Mat<T> a = triangular<T>(m, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, this->g_), b(m, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) b.at(i, j) = from_cd<T>(rnd<T>(this->g_));
  Dev da(a.bytes()), dal(sizeof(T));
  upload(da, a);
  const T alpha = from_cd<T>({2.0, -1.0});
  ASSERT_EQ(cudaMemcpy(dal.p, &alpha, sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  CUBLAS_OK(cublasSetPointerMode(this->h(), CUBLAS_POINTER_MODE_DEVICE));
  auto got = this->run_both(trsm, b, [&](FnS f, T* dbb) {
    return f(this->h(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, m, n,
             static_cast<const T*>(dal.p), static_cast<T*>(da.p), static_cast<int>(a.ld), dbb, static_cast<int>(b.ld));
  });
  CUBLAS_OK(cublasSetPointerMode(this->h(), CUBLAS_POINTER_MODE_HOST));
  std::vector<cd> want(b.h.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = to_cd(got.second.h[i]);
  auto all = [](std::int64_t, std::int64_t) { return true; };
  EXPECT_EQ(check(got.first, want, b, 8 * tol<T>(m), all), "") << "ptxblas vs cuBLAS, device alpha";
}

}  // namespace
}  // namespace gputest
