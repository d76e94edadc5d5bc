// Bad arguments reach the program's own xerbla_ with the same routine name and parameter number
// as Netlib's reference BLAS reports, and leave the output untouched.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "library.hpp"
#include "reference_blas.hpp"
#include "reference_lapack.hpp"

namespace {

struct Report {
  std::string name;
  int info = 0;
  int calls = 0;
};
Report g_report;

}  // namespace

// The program's XERBLA (exported dynamically, see CMakeLists.txt): records instead of stopping.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t len) {
  g_report.name.assign(srname, len);
  while (!g_report.name.empty() && g_report.name.back() == ' ') g_report.name.pop_back();
  g_report.info = *info;
  ++g_report.calls;
}

namespace {

using cd = std::complex<double>;

// Runs the same call through Netlib and through ptxblas; both must report identically (or, for
// arguments valid for this routine, both not at all). Returns whether Netlib reported.
template <class Call>
bool same_report(const std::string& what, Call&& call_with) {
  g_report = {};
  call_with(false);
  const Report ref = g_report;
  g_report = {};
  call_with(true);
  EXPECT_EQ(g_report.calls, ref.calls) << what;
  EXPECT_EQ(g_report.name, ref.name) << what;
  EXPECT_EQ(g_report.info, ref.info) << what;
  return ref.calls > 0;
}

TEST(Xerbla, GemmArguments) {
  SKIP_WITHOUT_NETLIB();
  const auto mine = hosttest::ptxblas<decltype(&dgemm_)>("dgemm_");
  double a[64] = {}, c[64] = {}, one = 1;
  struct Bad {
    char ta, tb;
    int m, n, k, lda, ldb, ldc;
  } cases[] = {{'X', 'N', 2, 2, 2, 2, 2, 2}, {'N', 'q', 2, 2, 2, 2, 2, 2}, {'N', 'N', -1, 2, 2, 2, 2, 2},
               {'N', 'N', 2, -1, 2, 2, 2, 2}, {'N', 'N', 2, 2, -1, 2, 2, 2}, {'N', 'N', 4, 2, 2, 3, 2, 4},
               {'T', 'N', 2, 2, 4, 3, 4, 2}, {'N', 'N', 2, 2, 4, 2, 3, 2}, {'N', 'T', 2, 5, 2, 2, 4, 2},
               {'N', 'N', 4, 2, 2, 4, 2, 3}};
  for (const Bad& b : cases) {
    same_report(std::string("dgemm ") + b.ta + b.tb + " m=" + std::to_string(b.m), [&](bool ptx) {
      (ptx ? mine : &dgemm_)(&b.ta, &b.tb, &b.m, &b.n, &b.k, &one, a, &b.lda, a, &b.ldb, &one, c, &b.ldc, 1, 1);
    });
  }
  for (double x : c) EXPECT_EQ(x, 0.0) << "a rejected call wrote C";
}

TEST(Xerbla, SymmHemmArguments) {
  SKIP_WITHOUT_NETLIB();
  const auto mine_d = hosttest::ptxblas<decltype(&dsymm_)>("dsymm_");
  const auto mine_z = hosttest::ptxblas<decltype(&zhemm_)>("zhemm_");
  double d[64] = {}, one = 1;
  cd z[64] = {}, zone = 1;
  struct Bad {
    char side, uplo;
    int m, n, lda, ldb, ldc;
  } cases[] = {{'X', 'U', 2, 2, 2, 2, 2}, {'L', 'F', 2, 2, 2, 2, 2}, {'L', 'U', -1, 2, 2, 2, 2},
               {'R', 'U', 2, -3, 2, 2, 2},  {'L', 'U', 4, 2, 3, 4, 4}, {'R', 'L', 2, 5, 4, 2, 2},
               {'L', 'U', 4, 2, 4, 3, 4},  {'L', 'U', 4, 2, 4, 4, 3}};
  for (const Bad& b : cases) {
    const std::string what = std::string(1, b.side) + b.uplo + " m=" + std::to_string(b.m);
    same_report("dsymm " + what, [&](bool ptx) {
      (ptx ? mine_d : &dsymm_)(&b.side, &b.uplo, &b.m, &b.n, &one, d, &b.lda, d, &b.ldb, &one, d, &b.ldc, 1, 1);
    });
    same_report("zhemm " + what, [&](bool ptx) {
      (ptx ? mine_z : &zhemm_)(&b.side, &b.uplo, &b.m, &b.n, &zone, z, &b.lda, z, &b.ldb, &zone, z, &b.ldc, 1, 1);
    });
  }
}

TEST(Xerbla, RankKArguments) {
  SKIP_WITHOUT_NETLIB();
  const auto syrk = hosttest::ptxblas<decltype(&dsyrk_)>("dsyrk_");
  const auto zsyrk = hosttest::ptxblas<decltype(&zsyrk_)>("zsyrk_");
  const auto herk = hosttest::ptxblas<decltype(&zherk_)>("zherk_");
  const auto her2k = hosttest::ptxblas<decltype(&zher2k_)>("zher2k_");
  const auto syr2k = hosttest::ptxblas<decltype(&dsyr2k_)>("dsyr2k_");
  double d[64] = {}, one = 1;
  cd z[64] = {}, zone = 1;
  struct Bad {
    char uplo, trans;
    int n, k, lda, ldb, ldc;
  } cases[] = {{'X', 'N', 2, 2, 2, 2, 2}, {'U', 'Q', 2, 2, 2, 2, 2}, {'U', 'T', 2, 2, 2, 2, 2},
               {'U', 'C', 2, 2, 2, 2, 2}, {'L', 'N', -1, 2, 2, 2, 2}, {'L', 'N', 2, -1, 2, 2, 2},
               {'U', 'N', 4, 2, 3, 4, 4}, {'U', 'N', 4, 2, 4, 3, 4},  {'U', 'N', 4, 2, 4, 4, 3}};
  for (const Bad& b : cases) {
    const std::string what = std::string(1, b.uplo) + b.trans + " n=" + std::to_string(b.n);
    same_report("dsyrk " + what, [&](bool ptx) {
      (ptx ? syrk : &dsyrk_)(&b.uplo, &b.trans, &b.n, &b.k, &one, d, &b.lda, &one, d, &b.ldc, 1, 1);
    });
    same_report("dsyr2k " + what, [&](bool ptx) {
      (ptx ? syr2k : &dsyr2k_)(&b.uplo, &b.trans, &b.n, &b.k, &one, d, &b.lda, d, &b.ldb, &one, d, &b.ldc, 1, 1);
    });
    same_report("zsyrk " + what, [&](bool ptx) {
      (ptx ? zsyrk : &zsyrk_)(&b.uplo, &b.trans, &b.n, &b.k, &zone, z, &b.lda, &zone, z, &b.ldc, 1, 1);
    });
    same_report("zherk " + what, [&](bool ptx) {
      (ptx ? herk : &zherk_)(&b.uplo, &b.trans, &b.n, &b.k, &one, z, &b.lda, &one, z, &b.ldc, 1, 1);
    });
    same_report("zher2k " + what, [&](bool ptx) {
      (ptx ? her2k : &zher2k_)(&b.uplo, &b.trans, &b.n, &b.k, &zone, z, &b.lda, z, &b.ldb, &one, z, &b.ldc, 1, 1);
    });
  }
}

TEST(Xerbla, TriangularArguments) {
  SKIP_WITHOUT_NETLIB();
  const auto trmm = hosttest::ptxblas<decltype(&ztrmm_)>("ztrmm_");
  const auto trsm = hosttest::ptxblas<decltype(&dtrsm_)>("dtrsm_");
  double d[64] = {}, one = 1;
  cd z[64] = {}, zone = 1;
  struct Bad {
    char side, uplo, trans, diag;
    int m, n, lda, ldb;
  } cases[] = {{'X', 'U', 'N', 'N', 2, 2, 2, 2}, {'L', 'X', 'N', 'N', 2, 2, 2, 2}, {'L', 'U', 'X', 'N', 2, 2, 2, 2},
               {'L', 'U', 'N', 'X', 2, 2, 2, 2}, {'L', 'U', 'N', 'N', -1, 2, 2, 2}, {'L', 'U', 'N', 'N', 2, -1, 2, 2},
               {'L', 'U', 'N', 'N', 4, 2, 3, 4}, {'R', 'U', 'N', 'N', 2, 4, 3, 2}, {'L', 'U', 'N', 'N', 4, 2, 4, 3}};
  for (const Bad& b : cases) {
    const std::string what = std::string(1, b.side) + b.uplo + b.trans + b.diag + " m=" + std::to_string(b.m);
    same_report("ztrmm " + what, [&](bool ptx) {
      (ptx ? trmm : &ztrmm_)(&b.side, &b.uplo, &b.trans, &b.diag, &b.m, &b.n, &zone, z, &b.lda, z, &b.ldb, 1, 1, 1, 1);
    });
    same_report("dtrsm " + what, [&](bool ptx) {
      (ptx ? trsm : &dtrsm_)(&b.side, &b.uplo, &b.trans, &b.diag, &b.m, &b.n, &one, d, &b.lda, d, &b.ldb, 1, 1, 1, 1);
    });
  }
}

// LAPACK's factorizations report like Netlib LAPACK (DPOTRF / ZGETRF and the parameter number).
TEST(Xerbla, FactorizationArguments) {
  SKIP_WITHOUT_NETLIB();
  const auto potrf = hosttest::ptxblas<decltype(&dpotrf_)>("dpotrf_");
  const auto getrf = hosttest::ptxblas<decltype(&zgetrf_)>("zgetrf_");
  double d[64] = {};
  cd z[64] = {};
  int piv[8] = {}, info = 0;
  struct Bad {
    char uplo;
    int m, n, lda;
  } cases[] = {{'X', 2, 2, 2}, {'L', -1, -1, 2}, {'U', 4, 4, 3}, {'L', 2, -2, 2}, {'L', 0, 0, 0}};
  for (const Bad& b : cases) {
    same_report(std::string("dpotrf ") + b.uplo + " n=" + std::to_string(b.n), [&](bool ptx) {
      (ptx ? potrf : &dpotrf_)(&b.uplo, &b.n, d, &b.lda, &info, 1);
    });
    same_report("zgetrf m=" + std::to_string(b.m) + " n=" + std::to_string(b.n), [&](bool ptx) {
      (ptx ? getrf : &zgetrf_)(&b.m, &b.n, z, &b.lda, piv, &info);
    });
  }
  for (double x : d) EXPECT_EQ(x, 0.0) << "a rejected call wrote A";
}

}  // namespace
