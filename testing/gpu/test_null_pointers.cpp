// Null scalars and null operands: cuBLAS documents INVALID_VALUE for a null alpha or beta, a null
// C that would be written and a null A or B that would be read. Not every cuBLAS entry point checks
// them (cuBLAS 13's cublasGemmEx was seen to crash on some), so the calls run in a child process
// (this test binary again, in probe mode) that writes each case's status to a file as it goes:
//   - ptxblas must return, for every case, the status cuBLAS returns;
//   - where cuBLAS itself crashes, ptxblas must return the documented INVALID_VALUE instead.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

struct Case {
  const char* what;
  bool null_a, null_b, null_c, null_alpha, null_beta;
};
constexpr std::array<Case, 5> kCases{{{"alpha null", false, false, false, true, false},
                                      {"beta null", false, false, false, false, true},
                                      {"A null", true, false, false, false, false},
                                      {"B null", false, true, false, false, false},
                                      {"C null", false, false, true, false, false}}};

constexpr int kNotRun = -1, kCrashed = -2;

// In the child: the cases whose bit is not in `skip`, through ptxblas or the real cuBLAS. Each
// case appends "<index> start" before the call and "<index> <status>" after it, flushed, so that
// the parent can tell which call a crash happened in.
[[noreturn]] void probe(const std::string& name, bool real, unsigned skip, const std::string& file) {
  const Entry& e = entry_named(name);
  FILE* log = std::fopen(file.c_str(), "a");
  if (!log) _exit(2);
  Handle h;
  if (!h.get()) _exit(6);  // no handle: every call would fail alike and prove nothing
  void* buf = nullptr;
  if (cudaMalloc(&buf, 16 * 16 * 16) != cudaSuccess) _exit(3);
  const std::vector<unsigned char> one = encode(e.scal, {1.0, 0.0}), zero = encode(e.scal, {0.0, 0.0});
  for (std::size_t i = 0; i < kCases.size(); ++i) {
    if (skip & (1u << i)) continue;
    const Case& c = kCases[i];
    // alpha = 1, beta = 0, k > 0: A, B and C are all needed
    const void* a = c.null_a ? nullptr : buf;
    const void* b = c.null_b ? nullptr : buf;
    void* cc = c.null_c ? nullptr : buf;
    const void* alpha = c.null_alpha ? nullptr : one.data();
    const void* beta = c.null_beta ? nullptr : zero.data();
    std::fprintf(log, "%zu start\n", i);
    std::fflush(log);
    const auto fn = real ? e.real : e.ptx;
    const cublasStatus_t s = fn(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, alpha, a, 8, b, 8, beta, cc, 8);
    std::fprintf(log, "%zu %d\n", i, static_cast<int>(s));
    std::fflush(log);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) _exit(4);
  std::fclose(log);
  _exit(0);
}

// The parent's view of one child's file: a status per case, kCrashed for a case that started and
// never finished, kNotRun for the rest.
std::array<int, kCases.size()> read_statuses(const std::string& file) {
  std::array<int, kCases.size()> st;
  st.fill(kNotRun);
  std::ifstream in(file);
  std::size_t i;
  std::string word;
  while (in >> i >> word)
    if (i < st.size()) st[i] = word == "start" ? kCrashed : std::stoi(word);
  return st;
}

// Probe mode: PTXBLAS_NULL_PROBE="<entry> <real 0|1> <skip mask> <file>" runs probe() before
// GoogleTest starts (a fresh process: no CUDA state inherited, as fork would leave).
[[maybe_unused]] const bool kProbeMode = [] {
  const char* spec = std::getenv("PTXBLAS_NULL_PROBE");
  if (!spec) return false;
  char name[64], file[PATH_MAX];
  int real = 0;
  unsigned skip = 0;
  if (std::sscanf(spec, "%63s %d %u %4095s", name, &real, &skip, file) != 4) _exit(5);
  probe(name, real != 0, skip, file);
}();

class NullPointers : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }

  // Runs `real` or ptxblas over every case; after a crash, again without the cases that crashed.
  std::array<int, kCases.size()> statuses(bool real) {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) ADD_FAILURE() << "cannot find this executable";
    exe[n > 0 ? n : 0] = '\0';
    const std::string file = ::testing::TempDir() + "ptxblas-null-" + GetParam() + (real ? "-real-" : "-ptx-") +
                             std::to_string(::getpid());
    std::remove(file.c_str());
    unsigned skip = 0;
    std::array<int, kCases.size()> st{};
    for (std::size_t attempt = 0; attempt <= kCases.size(); ++attempt) {
      const std::string cmd = "PTXBLAS_NULL_PROBE='" + GetParam() + (real ? " 1 " : " 0 ") + std::to_string(skip) +
                              " " + file + "' '" + exe + "' >/dev/null 2>&1";
      const int rc = std::system(cmd.c_str());
      st = read_statuses(file);
      unsigned crashed = 0;
      for (std::size_t i = 0; i < st.size(); ++i)
        if (st[i] == kCrashed) crashed |= 1u << i;
      if ((crashed & ~skip) == 0) {
        EXPECT_EQ(rc, 0) << GetParam() << (real ? " cuBLAS" : " ptxblas") << " probe exit status";
        break;
      }
      skip |= crashed;
      if (!real) break;  // a crash in ptxblas is already a failure
    }
    std::remove(file.c_str());
    return st;
  }
};

TEST_P(NullPointers, MatchCublas) {
  const auto ptx = statuses(false);
  const auto real = statuses(true);
  for (std::size_t i = 0; i < kCases.size(); ++i) {
    const char* what = kCases[i].what;
    ASSERT_NE(ptx[i], kCrashed) << GetParam() << " " << what << ": ptxblas crashed";
    ASSERT_NE(ptx[i], kNotRun) << GetParam() << " " << what << ": the ptxblas probe stopped early";
    ASSERT_NE(real[i], kNotRun) << GetParam() << " " << what << ": the cuBLAS probe stopped early";
    if (real[i] == kCrashed) {
      EXPECT_EQ(ptx[i], CUBLAS_STATUS_INVALID_VALUE) << GetParam() << " " << what << " (cuBLAS crashes here)";
      std::printf("[ note    ] %s %s: the real cuBLAS crashes; ptxblas returns %s\n", GetParam().c_str(), what,
                  cublasGetStatusName(static_cast<cublasStatus_t>(ptx[i])));
    } else {
      EXPECT_EQ(ptx[i], real[i]) << GetParam() << " " << what << ": ptxblas "
                                 << cublasGetStatusName(static_cast<cublasStatus_t>(ptx[i])) << ", cuBLAS "
                                 << cublasGetStatusName(static_cast<cublasStatus_t>(real[i]));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllEntries, NullPointers, ::testing::ValuesIn(entry_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gputest
