// ptxblas-bench-offload: host-memory calls (Fortran dgemm_, dtrsm_, dsyrk_) offloaded by
// libptxblas.so, whole and in pipelined tiles (ptxblas_set_offload_tiling), against the CPU BLAS
// alone on the same data. Prints a table and writes a CSV; asserts no speed.
//   ptxblas-bench-offload LIBPTXBLAS CPU_BLAS OUT.csv [n]
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using fc = const char*;
using fi = const int*;
using Gemm = void (*)(fc, fc, fi, fi, fi, const double*, const double*, fi, const double*, fi, const double*, double*,
                      fi, std::size_t, std::size_t);
using Trsm = void (*)(fc, fc, fc, fc, fi, fi, const double*, const double*, fi, double*, fi, std::size_t, std::size_t,
                      std::size_t, std::size_t);
using Syrk = void (*)(fc, fc, fi, fi, const double*, const double*, fi, const double*, double*, fi, std::size_t,
                      std::size_t);

struct Lib {
  void* h;
  template <class F>
  F fn(const char* name) const {
    void* p = dlsym(h, name);
    if (!p) {
      std::fprintf(stderr, "missing %s: %s\n", name, dlerror());
      std::exit(2);
    }
    return reinterpret_cast<F>(p);
  }
};

Lib open(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "cannot open %s: %s\n", path, dlerror());
    std::exit(2);
  }
  return {h};
}

// One routine on host matrices: run(lib) makes one call with that library's symbol.
struct Case {
  std::string name;
  double flops;
  std::function<void(const Lib&)> run;
};

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s LIBPTXBLAS CPU_BLAS OUT.csv [n]\n", argv[0]);
    return 2;
  }
  const int n = argc > 4 ? std::atoi(argv[4]) : 16384;
  // Every call to the GPU, the CPU BLAS given (for calls that do not fit).
  const std::string config = "/tmp/ptxblas-offload-bench-" + std::to_string(getpid()) + ".toml";
  std::ofstream(config) << "[offload]\ndefault = \"always\"\n[cpu]\nblas = \"" << argv[2] << "\"\n";
  setenv("PTXBLAS_CONFIG", config.c_str(), 1);
  const Lib ptx = open(argv[1]), cpu = open(argv[2]);
  const auto set_tiling = ptx.fn<int (*)(long long, long long)>("ptxblas_set_offload_tiling");
  const auto last_call = ptx.fn<const char* (*)()>("ptxblas_last_call");

  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<double> a(nn), b(nn), c(nn);
  for (auto* v : {&a, &b, &c})
    for (double& x : *v) x = u(g);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] = n;  // TRSM's triangle well conditioned
  const int k_update = 512, k_syrk = n / 4;
  const double one = 1, minus = -1;
  const std::vector<Case> cases = {
      {"dgemm NN n^3", 2.0 * n * n * n,
       [&](const Lib& l) {
         l.fn<Gemm>("dgemm_")("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &one, c.data(), &n, 1, 1);
       }},
      {"dgemm NN n x n x 512", 2.0 * n * n * k_update,
       [&](const Lib& l) {
         l.fn<Gemm>("dgemm_")("N", "N", &n, &n, &k_update, &minus, a.data(), &n, b.data(), &n, &one, c.data(), &n, 1, 1);
       }},
      {"dtrsm LLNN n x n", 1.0 * n * n * n,
       [&](const Lib& l) {
         l.fn<Trsm>("dtrsm_")("L", "L", "N", "N", &n, &n, &one, a.data(), &n, b.data(), &n, 1, 1, 1, 1);
       }},
      {"dsyrk LN n, k n/4", 1.0 * n * n * k_syrk,
       [&](const Lib& l) {
         l.fn<Syrk>("dsyrk_")("L", "N", &n, &k_syrk, &one, a.data(), &n, &one, c.data(), &n, 1, 1);
       }},
  };
  struct Variant {
    const char* name;
    long long memory_mib, tile_mib;
  };
  const Variant variants[] = {{"whole", 0, 0}, {"tiles 128 MiB", 0, 128}, {"tiles 512 MiB", 0, 512},
                              {"4 GiB device, tiles 128 MiB", 4096, 128}};
  std::ofstream csv(argv[3]);
  csv << "routine,n,path,seconds,gflops,log\n";
  std::printf("n = %d\n%-22s %-30s %9s %9s  %s\n", n, "routine", "path", "seconds", "GFLOP/s", "log");
  auto row = [&](const Case& cs, const std::string& path, double s, const std::string& log) {
    std::printf("%-22s %-30s %9.3f %9.0f  %s\n", cs.name.c_str(), path.c_str(), s, cs.flops / s / 1e9, log.c_str());
    std::fflush(stdout);
    csv << cs.name << "," << n << "," << path << "," << s << "," << cs.flops / s / 1e9 << ",\"" << log << "\"\n";
  };
  for (const Case& cs : cases) {
    cs.run(ptx);  // kernels compiled and device buffers kept before timing
    for (const Variant& v : variants) {
      set_tiling(v.memory_mib, v.tile_mib);
      double best = 1e30;
      for (int rep = 0; rep < 2; ++rep) best = std::min(best, seconds([&] { cs.run(ptx); }));
      row(cs, v.name, best, last_call());
    }
    row(cs, "CPU BLAS alone", seconds([&] { cs.run(cpu); }), argv[2]);
  }
  std::remove(config.c_str());
  return 0;
}
