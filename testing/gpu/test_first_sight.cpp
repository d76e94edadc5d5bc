// The first-sight benchmark (ptxblas_set_benchmark_top_k): with it on, new shapes are timed among
// the heuristic's plan and the model's favourites before they run, and the answers stay exact —
// the caller's C, beta and device-resident scalars are untouched by the timing runs — and each
// decision is appended to <XDG_CACHE_HOME>/ptxblas/decisions-<device key>.txt and reused.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

namespace fs = std::filesystem;

// The device key as models/README.md defines it: the driver's name in lower case, runs of other
// characters as one '-', then -sm<major><minor>.
std::string device_key() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "";
  std::string k;
  for (const char* c = p.name; *c; ++c) {
    if (std::isalnum(static_cast<unsigned char>(*c)))
      k += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    else if (!k.empty() && k.back() != '-')
      k += '-';
  }
  while (!k.empty() && k.back() == '-') k.pop_back();
  return k + "-sm" + std::to_string(p.major * 10 + p.minor);
}

// Whether libptxblas.so has a model for this device beside it (the first-sight benchmark ranks
// the model's favourites, so without one it never runs).
bool model_beside_library(const std::string& key) {
  Dl_info info{};
  if (!dladdr(ptxblas_symbol("ptxblas_last_call"), &info) || !info.dli_fname) return false;
  return fs::exists(fs::path(info.dli_fname).parent_path() / "models" / key / "model.toml");
}

int lines_of(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream is(line);
    int fields = 0;
    for (std::string f; is >> f;) ++fields;
    EXPECT_EQ(fields, 16) << line;
    ++n;
  }
  return n;
}

class BenchmarkTopK {
 public:
  explicit BenchmarkTopK(int k) { set(k); }
  ~BenchmarkTopK() { set(-1); }
  BenchmarkTopK(const BenchmarkTopK&) = delete;
  BenchmarkTopK& operator=(const BenchmarkTopK&) = delete;

 private:
  static void set(int k) { reinterpret_cast<int (*)(int)>(ptxblas_symbol("ptxblas_set_benchmark_top_k"))(k); }
};

TEST(FirstSight, MeasuredChoicesAreExactAndKept) {
  SKIP_WITHOUT_GPU();
  const std::string key = device_key();
  const fs::path cache = fs::temp_directory_path() / ("ptxblas-first-sight-" + std::to_string(getpid()));
  fs::remove_all(cache);
  // Read when the process's decision store is made: on the first benchmarked call, below.
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  const fs::path file = cache / "ptxblas" / ("decisions-" + key + ".txt");

  Handle handle;
  std::mt19937_64 rng(test_seed() ^ 0x51u);
  struct Case {
    const char* entry;
    Gemm g;
    bool device_scalars;
  };
  // New shapes (nothing else in the tests runs them), deep and skinny ones where candidates
  // split K, beta != 0 so that a timing run writing the caller's C would show.
  const Case cases[] = {
      {"Dgemm", {CUBLAS_OP_N, CUBLAS_OP_N, 1283, 16, 1297, 1283, 1297, 1283, {1.25, 0}, {-0.5, 0}}, false},
      {"Sgemm", {CUBLAS_OP_T, CUBLAS_OP_N, 301, 203, 4099, 4099, 4099, 301, {1, 0}, {0.75, 0}}, true},
      {"Zgemm", {CUBLAS_OP_C, CUBLAS_OP_T, 97, 131, 777, 777, 131, 97, {0.5, -1}, {0.25, 1}}, false},
      {"Hgemm", {CUBLAS_OP_N, CUBLAS_OP_T, 515, 66, 1024, 515, 66, 515, {1, 0}, {0, 0}}, false},
  };
  {
    const BenchmarkTopK on(3);
    for (int round = 0; round < 2; ++round)  // the second from the kept decisions
      for (const Case& c : cases) {
        CheckOptions opt;
        opt.device_scalars = c.device_scalars;
        const Entry& e = entry_named(c.entry);
        const CheckResult r = check_gemm(e, c.g, handle.get(), rng, opt);
        EXPECT_EQ(r.failure, "") << "round " << round << ": " << describe(e, c.g) << " -> " << r.kernel;
      }
  }
  if (model_beside_library(key)) {
    EXPECT_EQ(lines_of(file), static_cast<int>(std::size(cases))) << file;
  } else {
    EXPECT_FALSE(fs::exists(file)) << "no model for " << key << ", yet decisions were written";
  }
  fs::remove_all(cache);
}

}  // namespace
}  // namespace gputest
