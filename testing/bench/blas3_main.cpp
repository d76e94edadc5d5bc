// ptxblas-bench-blas3: each level-3 routine of a suite (testing/bench/suite_blas3.txt) through
// ptxblas and through the real cuBLAS, in one process on the same buffers and stream: medians of
// event-timed calls, a correctness check of one call each, a table, and the CSV
//   routine,type,side,uplo,trans,diag,m,n,k,ptxblas_tflops,cublas_tflops
// Exit status: 0 all served and matching, 1 a mismatch or a call not served by ptxblas, 2 a failed
// CUDA call or bad arguments. Without a GPU it says so and exits 0.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "blas3_call.hpp"
#include "blas3_suite.hpp"
#include "gemm_call.hpp"
#include "status.hpp"
#include "timing.hpp"

namespace {

using namespace bench;

std::size_t es_of(char t) { return t == 'S' ? 4 : t == 'Z' ? 16 : 8; }
bool is_double(char t) { return t == 'D' || t == 'Z'; }

// Random values in [-1, 1]; for the triangular/symmetric A, a dominant diagonal (solves stay tame).
std::vector<unsigned char> host_matrix(char type, std::size_t elems, std::int64_t ld, bool dominant,
                                       std::mt19937_64& g) {
  const std::size_t parts = (type == 'C' || type == 'Z') ? 2 : 1;
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(elems * parts);
  for (double& x : v) x = u(g) / (dominant ? static_cast<double>(ld) : 1.0);
  if (dominant)
    for (std::int64_t i = 0; i < ld && static_cast<std::size_t>(i * ld + i) < elems; ++i) v[static_cast<std::size_t>(i * ld + i) * parts] += 2.0;
  std::vector<unsigned char> out(elems * es_of(type));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (is_double(type))
      reinterpret_cast<double*>(out.data())[i] = v[i];
    else
      reinterpret_cast<float*>(out.data())[i] = static_cast<float>(v[i]);
  }
  return out;
}

double max_rel_diff(char type, const std::vector<unsigned char>& x, const std::vector<unsigned char>& y) {
  const std::size_t n = x.size() / (is_double(type) ? 8 : 4);
  double d = 0, scale = 1e-30;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = is_double(type) ? reinterpret_cast<const double*>(x.data())[i] : reinterpret_cast<const float*>(x.data())[i];
    const double b = is_double(type) ? reinterpret_cast<const double*>(y.data())[i] : reinterpret_cast<const float*>(y.data())[i];
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (!std::isnan(a)) d = std::max(d, std::abs(a - b)), scale = std::max(scale, std::abs(b));
  }
  return d / scale;
}

struct Device {
  void* p = nullptr;
  explicit Device(std::size_t bytes) { CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(bytes, 16))); }
  ~Device() { cudaFree(p); }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptxblas-bench-blas3: level-3 routines, ptxblas vs cuBLAS"};
  std::string suite = "testing/bench/suite_blas3.txt", csv, library = default_library_path();
  double budget_ms = 200;
  app.add_option("--suite", suite, "level-3 suite file");
  app.add_option("--csv", csv, "CSV to write");
  app.add_option("--library", library, "libptxblas.so");
  app.add_option("--max-ms", budget_ms, "time per routine and implementation");
  CLI11_PARSE(app, argc, argv);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: benchmark skipped\n");
    return 0;
  }
  std::vector<L3Shape> shapes;
  try {
    shapes = read_l3_suite(suite);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  load_ptxblas(library);
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUBLAS_CHECK(cublasSetStream(h, stream));
  CallTimer timer(stream);
  std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out) std::fprintf(out, "routine,type,side,uplo,trans,diag,m,n,k,ptxblas_tflops,cublas_tflops\n");
  std::printf("%-6s %c %c%c%c%c %6s %6s %6s  %-14s %9s %9s %6s  %s\n", "routine", 'T', 'S', 'U', 'T', 'D', "m", "n", "k",
              "name", "ptx_TF", "cublas_TF", "ratio", "check");
  std::mt19937_64 g(7);
  int bad = 0;
  for (const L3Shape& s : shapes) {
    const L3Sizes z = l3_sizes(s);
    const std::size_t es = es_of(s.type);
    const bool triangular = s.routine == "trsm" || s.routine == "trmm";
    const auto ha = host_matrix(s.type, z.a, z.lda, triangular, g), hb = host_matrix(s.type, z.b, z.ldb, false, g),
               hc = host_matrix(s.type, std::max<std::size_t>(z.c, 1), z.ldc, false, g);
    Device a(z.a * es), b(z.b * es), c(std::max<std::size_t>(z.c, 1) * es);
    auto upload = [&] {
      CUDA_CHECK(cudaMemcpy(a.p, ha.data(), ha.size(), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size(), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(c.p, hc.data(), hc.size(), cudaMemcpyHostToDevice));
    };
    const L3Operands ops{a.p, b.p, c.p};
    // Correctness: one call each on fresh data; the output (C, or B for TRSM) compared.
    std::vector<unsigned char> got[2];
    std::string served;
    for (int impl = 0; impl < 2; ++impl) {
      upload();
      const cublasStatus_t st = run_l3(impl == 0, lib, h, s, ops);
      if (impl == 0) served = last_ptxblas_call();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      got[impl].resize(s.routine == "trsm" ? hb.size() : hc.size());
      CUDA_CHECK(cudaMemcpy(got[impl].data(), s.routine == "trsm" ? b.p : c.p, got[impl].size(), cudaMemcpyDeviceToHost));
      if (st != CUBLAS_STATUS_SUCCESS) served = "status " + std::to_string(static_cast<int>(st));
    }
    const double diff = max_rel_diff(s.type, got[0], got[1]);
    const double tol = is_double(s.type) ? 1e-9 : 1e-3;
    std::string check = served.rfind("adaptor: ", 0) == 0 ? (diff <= tol ? "ok" : "MISMATCH") : "NOT-SERVED";
    // Timing: alternating blocks, median per implementation.
    double secs[2] = {0, 0};
    for (int impl = 0; impl < 2; ++impl) {
      std::vector<float> ms;
      auto once = [&] { return run_l3(impl == 0, lib, h, s, ops) == CUBLAS_STATUS_SUCCESS; };
      timer.time(2, once, ms);  // warm-up, and the estimate for the number of repetitions
      const int reps = auto_reps(ms.empty() ? 1.0 : median(ms), budget_ms);
      ms.clear();
      timer.time(reps, once, ms);
      secs[impl] = ms.empty() ? NAN : median(ms) * 1e-3;
    }
    const double tf[2] = {l3_flops(s) / secs[0] * 1e-12, l3_flops(s) / secs[1] * 1e-12};
    if (check != "ok") ++bad;
    std::printf("%-7s %c %c%c%c%c %6lld %6lld %6lld  %-14s %9.2f %9.2f %6.2f  %s (%s, diff %.1e)\n", s.routine.c_str(),
                s.type, s.side, s.uplo, s.trans, s.diag, static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), s.name.c_str(), tf[0], tf[1], tf[0] / tf[1], check.c_str(), served.c_str(),
                diff);
    if (out) {
      std::fprintf(out, "%s,%c,%c,%c,%c,%c,%lld,%lld,%lld,%.6g,%.6g\n", s.routine.c_str(), s.type, s.side, s.uplo,
                   s.trans, s.diag, static_cast<long long>(s.m), static_cast<long long>(s.n),
                   static_cast<long long>(s.k), tf[0], tf[1]);
      std::fflush(out);
    }
  }
  if (out) std::fclose(out);
  cublasDestroy(h);
  return bad ? 1 : 0;
}
