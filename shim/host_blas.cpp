#include "host_blas.hpp"

#include <cstdio>
#include <cstring>

#include "config.hpp"
#include "cpu_blas.hpp"
#include "cpu_engine.hpp"
#include "offload_policy.hpp"

// Weak: the program's (or its BLAS's) xerbla_ when the process has one, else null.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t len) __attribute__((weak));

namespace ptxblas::shim {
namespace {

double bytes_of(const HostCall& call) {
  double b = 0;
  for (const auto& o : call.operands)
    b += static_cast<double>(o.rows * o.cols) * gen::storage_bytes(call.data) * (o.written ? 2 : 1);
  return b;
}

// On the CPU: the CPU BLAS, else the adaptor on the CPU engine. `note`: why not on the GPU.
void run_on_cpu(const HostCall& call, const std::function<void(void*)>& cpu, const dispatch::HostBody& body,
                const std::string& note) {
  std::string why;
  if (const host::CpuBlas* blas = host::CpuBlas::get(why)) {
    if (void* fn = blas->symbol(call.fortran)) {
      cpu(fn);
      record_forwarded(call.shape, "CPU BLAS " + blas->path() + " (" + note + ")");
      return;
    }
    why = blas->path() + " lacks " + call.fortran;
  }
  auto engine = blas3::make_cpu_engine(call.data);
  std::vector<blas3::MatView> views;
  for (const auto& o : call.operands) views.push_back({o.host, o.ld});
  body(*engine, views);
  record_forwarded(call.shape, "built-in CPU loops (" + why + ")");
}

}  // namespace

void report_bad_argument(const char* name, int info) noexcept {
  const std::size_t len = std::strlen(name);
  if (xerbla_) {
    xerbla_(name, &info, len);
    return;
  }
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n",
               static_cast<int>(std::strcspn(name, " ")), name, info);
}

void run_host(const HostCall& call, const std::function<void(void*)>& cpu, const dispatch::HostBody& body) noexcept {
  try {
    const host::Config& cfg = host::config();
    const host::OffloadRule& rule = cfg.rule(call.family);
    std::string why;
    const bool gpu = rule.mode != host::OffloadRule::Mode::Never && dispatch::offload_available(cfg.gpu_device, why);
    host::Placement where = host::place(rule, call.flops, bytes_of(call), gpu);
    if (!gpu && rule.mode != host::OffloadRule::Mode::Never) where.why += ": " + why;
    if (where.where == host::Where::Gpu) {
      switch (dispatch::offload(cfg.gpu_device, call.data, call.operands, body, why)) {
        case dispatch::OffloadResult::Done:
          record_served(call.shape, "GPU (" + where.why + ")");
          return;
        case dispatch::OffloadResult::Failed:
          record_error(call.shape, "GPU offload failed: " + why);
          std::fprintf(stderr, "ptxblas: %s: GPU offload failed: %s\n", call.shape.entry, why.c_str());
          return;
        case dispatch::OffloadResult::NotRun:
          where.why = "GPU offload not run: " + why;
          break;
      }
    }
    run_on_cpu(call, cpu, body, where.why);
  } catch (const std::exception& e) {
    record_error(call.shape, e.what());
    std::fprintf(stderr, "ptxblas: %s failed: %s\n", call.shape.entry, e.what());
  } catch (...) {
    record_error(call.shape, "internal error");
  }
}

}  // namespace ptxblas::shim
