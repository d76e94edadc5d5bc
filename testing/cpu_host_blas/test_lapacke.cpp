// LAPACKE routines (dgesv, dpotrf, zgeqrf, dsyevd) give the same answers with libptxblas.so
// preloaded as with the reference BLAS alone, and their BLAS3 calls do go through ptxblas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "library.hpp"

namespace {

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream is(s);
  for (std::string l; std::getline(is, l);) v.push_back(l);
  return v;
}

// Same labels and, value by value, equal within a few ulps of the reference's scale (the CPU path
// runs the same reference BLAS, so equality is expected; the tolerance allows other CPU BLASes).
void expect_close(const std::string& got, const std::string& want) {
  const auto g = lines(got), w = lines(want);
  ASSERT_EQ(g.size(), w.size()) << got;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::istringstream gs(g[i]), ws(w[i]);
    std::string gl, wl;
    gs >> gl;
    ws >> wl;
    ASSERT_EQ(gl, wl);
    double gv, wv;
    while (ws >> wv) {
      ASSERT_TRUE(static_cast<bool>(gs >> gv)) << g[i];
      EXPECT_NEAR(gv, wv, 1e-9 * std::max(1.0, std::abs(wv))) << wl << " line " << i;
    }
  }
}

TEST(Lapacke, SameAnswersThroughPtxblas) {
  SKIP_WITHOUT_NETLIB();
  const std::string probe = hosttest::beside_executable("ptxblas_lapacke_probe");
  const std::string plain = run(probe + " 2>&1");
  ASSERT_NE(plain.find("dsyevd info 0"), std::string::npos) << plain;
  const std::string log = "/tmp/ptxblas-lapacke-" + std::to_string(::getpid()) + ".log";
  const std::string preloaded =
      run("PTXBLAS_LOG=1 LD_PRELOAD=" + hosttest::library_path() + " " + probe + " 2>" + log);
  expect_close(preloaded, plain);
  const std::string calls = run("cat " + log + "; rm -f " + log);
  for (const char* routine : {"dgemm_", "dtrsm_", "dsyrk_", "zgemm_"})
    EXPECT_NE(calls.find(std::string("ptxblas: ") + routine), std::string::npos)
        << routine << " never reached ptxblas:\n" << calls.substr(0, 2000);
}

}  // namespace
