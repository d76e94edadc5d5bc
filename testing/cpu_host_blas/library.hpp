// libptxblas.so for the host-path tests: dlopen'ed once from this executable's folder (or
// $PTXBLAS_LIBRARY), its Fortran symbols looked up in it alone.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace hosttest {

inline std::string beside_executable(const std::string& file) {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  return exe.substr(0, exe.rfind('/') + 1) + file;
}

inline std::string library_path() {
  const char* env = std::getenv("PTXBLAS_LIBRARY");
  return env && *env ? env : beside_executable("libptxblas.so");
}

inline void* library() {
  static void* h = [] {
    void* l = dlopen(library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l) {
      std::fprintf(stderr, "cannot load %s: %s\n", library_path().c_str(), dlerror());
      std::abort();
    }
    return l;
  }();
  return h;
}

template <class Fn>
Fn ptxblas(const char* name) {
  void* s = dlsym(library(), name);
  if (!s) {
    std::fprintf(stderr, "libptxblas.so lacks %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(s);
}

// The tests compare with Netlib's reference BLAS and LAPACK. Where libblas.so.3 resolves to
// OpenBLAS instead (as on the lent GPU machine), error reports differ in form and its LAPACK
// calls its own BLAS internally: those comparisons are skipped there, with this reason.
inline const char* reference_is_not_netlib() {
  return dlsym(RTLD_DEFAULT, "openblas_get_config") ? "libblas.so.3 is OpenBLAS here, not the Netlib reference"
                                                     : nullptr;
}

#define SKIP_WITHOUT_NETLIB()                                                           \
  do {                                                                                  \
    if (const char* why = hosttest::reference_is_not_netlib()) GTEST_SKIP() << why;    \
  } while (0)

inline std::string last_call() { return ptxblas<const char* (*)()>("ptxblas_last_call")(); }

}  // namespace hosttest
