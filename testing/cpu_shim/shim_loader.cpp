#include "shim_loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "ptxblas/ptxblas.h"

namespace cpushim {
namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "ptxblas_cpu_shim_tests: %s\n", what.c_str());
  std::exit(2);
}

std::string env_or(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return v && *v ? std::string(v) : fallback;
}

void* open_or_exit(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    fail("cannot load " + path + ": " + (e ? e : "?"));
  }
  return h;
}

template <class Fn>
Fn ptxblas_fn(const char* name) {
  return reinterpret_cast<Fn>(ptxblas_symbol(name));
}

}  // namespace

std::string beside_executable(const std::string& file) {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) fail("readlink(/proc/self/exe) failed");
  std::string dir(buf, static_cast<std::size_t>(n));
  dir.erase(dir.find_last_of('/') + 1);
  return dir + file;
}

std::string library_path() { return env_or("PTXBLAS_LIBRARY", beside_executable("libptxblas.so")); }

void* library() {
  static void* const lib = [] {
    // First the stand-in: ptxblas finds an already loaded libcublas.so.13 (RTLD_NOLOAD) and
    // never loads the real one, which would dereference the tests' fake handles.
    open_or_exit(env_or("PTXBLAS_FAKE_CUBLAS", beside_executable("libptxblas_cpu_shim_fake_cublas.so")));
    return open_or_exit(library_path());
  }();
  return lib;
}

void* cublas_symbol(const char* name) {
  void* f = dlvsym(library(), name, "libcublas.so.13");
  if (!f) fail(std::string("no ") + name + "@libcublas.so.13 in " + library_path());
  return f;
}

void* cublas_symbol_if_present(const char* name) { return dlvsym(library(), name, "libcublas.so.13"); }

void* ptxblas_symbol(const char* name) {
  void* f = dlvsym(library(), name, "PTXBLAS_0");
  if (!f) fail(std::string("no ") + name + "@PTXBLAS_0 in " + library_path());
  return f;
}

FakeCublas& fake_cublas() {
  static FakeCublas* const state = [] {
    library();
    void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) fail("the stand-in libcublas.so.13 is not loaded");
    auto get = reinterpret_cast<FakeCublas* (*)()>(dlsym(lib, "fake_cublas_state"));
    if (!get) fail("the loaded libcublas.so.13 is not the stand-in (no fake_cublas_state)");
    return get();
  }();
  return *state;
}

std::string last_call() {
  static const auto f = ptxblas_fn<decltype(&ptxblas_last_call)>("ptxblas_last_call");
  const char* s = f();
  return s ? s : "(null)";
}

Counters counters() {
  static const auto f = ptxblas_fn<decltype(&ptxblas_counters)>("ptxblas_counters");
  Counters c;
  f(&c.served, &c.forwarded);
  return c;
}

bool ptxblas_disable_set() {
  const char* v = std::getenv("PTXBLAS_DISABLE");
  return v && *v && std::string(v) != "0";
}

bool driver_loadable() {
  static const bool ok = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
  return ok;
}

int describe(const char* type, char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, char* buf,
             std::size_t buflen) {
  static const auto f = ptxblas_fn<decltype(&ptxblas_describe_gemm)>("ptxblas_describe_gemm");
  return f(type, transa, transb, m, n, k, buf, buflen);
}

int force_tile(const char* spec) {
  static const auto f = ptxblas_fn<decltype(&ptxblas_force_tile)>("ptxblas_force_tile");
  return f(spec);
}

int set_benchmark_top_k(int k) {
  static const auto f = ptxblas_fn<decltype(&ptxblas_set_benchmark_top_k)>("ptxblas_set_benchmark_top_k");
  return f(k);
}

}  // namespace cpushim
