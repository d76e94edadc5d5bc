#include "real_cublas.hpp"

#include <dlfcn.h>

namespace ptxblas::shim {
namespace {

constexpr const char* kSoname = "libcublas.so.13";

void* cublas_library() {
  static void* const lib = [] {
    void* h = dlopen(kSoname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    return h;
  }();
  return lib;
}

}  // namespace

void* real_cublas_symbol(const char* name) {
  void* lib = cublas_library();
  if (!lib) return nullptr;
  // Search the library's own scope, never the global one, which starts with ptxblas itself.
  if (void* f = dlvsym(lib, name, kSoname)) return f;
  return dlsym(lib, name);
}

}  // namespace ptxblas::shim
