// LAPACKE routines (dgesv, dpotrf, zgeqrf, dsyevd) give the same answers with libptxblas.so
// preloaded as with the reference BLAS alone, and their BLAS3 calls do go through ptxblas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
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

// The ptxblas log's line for the probe's dpotrf_ call.
std::string potrf_line(const std::string& log) {
  for (const std::string& l : lines(log))
    if (l.find("dpotrf_") != std::string::npos) return l;
  return "";
}

// Which LAPACK runs a ?potrf_ kept on the CPU (here: no GPU): the CPU BLAS library's when it has
// the routine (what that library alone would run), the program's with lapack.cpu_calls = "program";
// the answers agree either way.
TEST(Lapacke, FactorizationsOnTheCpuRunTheCpuBlasLibrarysLapack) {
  SKIP_WITHOUT_NETLIB();
  const std::string probe = hosttest::beside_executable("ptxblas_lapacke_probe");
  const std::string blas = hosttest::beside_executable("libptxblas_test_cpu_blas_with_lapack.so");
  const std::string plain = run(probe + " 2>&1");
  const std::string tag = "/tmp/ptxblas-lapack-calls-" + std::to_string(::getpid());
  for (const bool program : {false, true}) {
    {
      std::ofstream toml(tag + ".toml");
      toml << "[cpu]\nblas = \"" << blas << "\"\n";
      if (program) toml << "[lapack]\ncpu_calls = \"program\"\n";
    }
    const std::string preloaded = run("PTXBLAS_CONFIG=" + tag + ".toml PTXBLAS_LOG=1 LD_PRELOAD=" +
                                      hosttest::library_path() + " " + probe + " 2>" + tag + ".log");
    expect_close(preloaded, plain);
    const std::string line = potrf_line(run("cat " + tag + ".log; rm -f " + tag + ".log " + tag + ".toml"));
    ASSERT_NE(line.find("host LAPACK"), std::string::npos) << line;
    EXPECT_EQ(line.find("cpu_blas_with_lapack") == std::string::npos, program) << line;
  }
}

}  // namespace
