#include "host_blas.hpp"

#include <cstdio>
#include <cstring>

#include "cpu_blas.hpp"
#include "cpu_engine.hpp"
#include "offload_policy.hpp"

// Weak: the program's (or its BLAS's) xerbla_ when the process has one, else null.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t len) __attribute__((weak));

namespace ptxblas::shim {

void report_bad_argument(const char* name, int info) noexcept {
  const std::size_t len = std::strlen(name);
  if (xerbla_) {
    xerbla_(name, &info, len);
    return;
  }
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n",
               static_cast<int>(std::strcspn(name, " ")), name, info);
}

void run_host(const HostCall& call, const std::function<void(void*)>& cpu,
              const std::function<void(blas3::Engine&)>& loops) noexcept {
  try {
    // No device path for host memory yet: the policy is asked so the log says what it would do.
    const host::Placement where = host::place(host::config().rule(call.family), call.flops, call.bytes, false);
    std::string why;
    if (const host::CpuBlas* blas = host::CpuBlas::get(why)) {
      if (void* fn = blas->symbol(call.fortran)) {
        cpu(fn);
        record_forwarded(call.shape, "CPU BLAS " + blas->path() + " (" + where.why + ")");
        return;
      }
      why = blas->path() + " lacks " + call.fortran;
    }
    auto engine = blas3::make_cpu_engine(call.data);
    loops(*engine);
    record_forwarded(call.shape, "built-in CPU loops (" + why + ")");
  } catch (const std::exception& e) {
    record_error(call.shape, e.what());
    std::fprintf(stderr, "ptxblas: %s failed: %s\n", call.shape.entry, e.what());
  } catch (...) {
    record_error(call.shape, "internal error");
  }
}

}  // namespace ptxblas::shim
