#include "gpu_env.hpp"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>

namespace gputest {
namespace {

std::string library_path() {
  if (const char* p = std::getenv("PTXBLAS_LIBRARY"); p && *p) return p;
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "libptxblas.so";
  std::string exe(buf, static_cast<std::size_t>(n));
  return exe.substr(0, exe.rfind('/') + 1) + "libptxblas.so";
}

void* library() {
  static void* lib = [] {
    const std::string path = library_path();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
      std::abort();
    }
    return h;
  }();
  return lib;
}

}  // namespace

bool have_gpu() {
  static const bool ok = [] {
    // The kernel-choice expectations (split-K, names) are the built-in heuristic's: no models.
    unsetenv("PTXBLAS_MODEL_DIR");
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      std::printf("[ gpu     ] no usable GPU (%s): GPU tests are skipped\n",
                  e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
      return false;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
      std::printf("[ gpu     ] %s, sm_%d%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
    return true;
  }();
  return ok;
}

void* ptxblas_symbol(const char* name) {
  void* s = dlsym(library(), name);
  if (!s) {
    std::fprintf(stderr, "libptxblas.so lacks %s\n", name);
    std::abort();
  }
  return s;
}

void* ptxblas_symbol_if_present(const char* name) { return dlsym(library(), name); }

std::string last_call() {
  static const auto fn = reinterpret_cast<const char* (*)()>(ptxblas_symbol("ptxblas_last_call"));
  return fn();
}

void counters(std::uint64_t& served, std::uint64_t& forwarded) {
  static const auto fn =
      reinterpret_cast<void (*)(std::uint64_t*, std::uint64_t*)>(ptxblas_symbol("ptxblas_counters"));
  fn(&served, &forwarded);
}

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s;
    if (const char* v = std::getenv("PTXBLAS_TEST_SEED"); v && *v)
      s = std::strtoull(v, nullptr, 0);
    else
      s = (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
    std::printf("[ seed    ] PTXBLAS_TEST_SEED=%llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

Handle::Handle() {
  const cublasStatus_t s = cublasCreate(&h_);
  if (s != CUBLAS_STATUS_SUCCESS) {
    ADD_FAILURE() << "cublasCreate: " << cublasGetStatusName(s);
    h_ = nullptr;
    return;
  }
  // The harness checks cuBLAS against float64 too: keep its reductions in full precision
  // (ptxblas ignores this bit; its kernels never reduce in lower precision).
  cublasSetMathMode(h_, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
}

Handle::~Handle() {
  if (h_) {
    cublasSetStream(h_, nullptr);  // the tests' streams may be gone already
    cublasDestroy(h_);
  }
}

using ForceTileFn = int (*)(const char*);

ForcedTile::ForcedTile(const std::string& spec) {
  accepted_ = reinterpret_cast<ForceTileFn>(ptxblas_symbol("ptxblas_force_tile"))(spec.c_str()) == 0;
}

ForcedTile::~ForcedTile() { reinterpret_cast<ForceTileFn>(ptxblas_symbol("ptxblas_force_tile"))(""); }

}  // namespace gputest
