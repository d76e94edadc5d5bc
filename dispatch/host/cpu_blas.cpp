#include "cpu_blas.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "config.hpp"

namespace ptxblas::host {
namespace {

struct Loaded {
  CpuBlas blas;
  bool ok = false;
  std::string why;
};

// True when `p` lies in the same shared object as this code (a CPU BLAS that is ptxblas itself
// would call back into ptxblas forever).
bool is_ours(void* p) {
  Dl_info mine{}, theirs{};
  return p && dladdr(reinterpret_cast<void*>(&is_ours), &mine) && dladdr(p, &theirs) &&
         mine.dli_fbase == theirs.dli_fbase;
}

}  // namespace

void* host_lapack_symbol(const char* name, bool cpu_blas_first) {
  std::string why;
  const CpuBlas* blas = CpuBlas::get(why);
  void* from_blas = blas ? blas->symbol(name) : nullptr;
  if (cpu_blas_first && from_blas) return from_blas;
  // Preloaded or linked, the next definition after ptxblas; dlopen'ed (RTLD_LOCAL), RTLD_NEXT
  // sees only ptxblas's own dependencies and the program's global scope holds the LAPACK.
  if (void* s = dlsym(RTLD_NEXT, name); s && !is_ours(s)) return s;
  if (void* s = dlsym(RTLD_DEFAULT, name); s && !is_ours(s)) return s;
  return from_blas;
}

void* CpuBlas::resolve(const char* name) const {
  void* s = handle_ ? dlsym(handle_, name) : nullptr;
  return is_ours(s) ? nullptr : s;
}

void* CpuBlas::symbol(const char* name) const {
  {
    std::shared_lock lock(cache_->mutex);
    if (auto it = cache_->symbols.find(name); it != cache_->symbols.end()) return it->second;
  }
  void* s = resolve(name);
  std::unique_lock lock(cache_->mutex);
  cache_->symbols.emplace(name, s);
  return s;
}

const CpuBlas* CpuBlas::get(std::string& why) {
  static const Loaded l = [] {
    Loaded r;
    std::vector<std::string> tries;
    if (!config().cpu_blas.empty())
      tries.push_back(config().cpu_blas);
    else
      tries.assign(std::begin(kDefaultCpuBlas), std::end(kDefaultCpuBlas));
    for (const std::string& t : tries) {
      void* h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      r.blas.handle_ = h;
      r.blas.path_ = t;
      if (!r.blas.resolve("dgemm_")) {  // not a BLAS, or ptxblas itself
        r.blas.handle_ = nullptr;
        continue;
      }
      r.ok = true;
      return r;
    }
    r.why = "no CPU BLAS could be opened (tried";
    for (const std::string& t : tries) r.why += " " + t;
    r.why += ")";
    return r;
  }();
  why = l.why;
  return l.ok ? &l.blas : nullptr;
}

}  // namespace ptxblas::host
