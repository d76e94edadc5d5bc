#include "host_blas.hpp"

#include <dlfcn.h>

#include <chrono>
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

thread_local int cpu_only_depth = 0;

double bytes_of(const HostCall& call) {
  double b = 0;
  for (const auto& o : call.operands)
    b += static_cast<double>(o.rows * o.cols) * gen::storage_bytes(call.data) * (o.written && o.read ? 2 : 1);
  return b;
}

// The shared object that defines `fn` (which LAPACK a whole factorization ran on, for the log).
std::string library_of(void* fn) {
  Dl_info info{};
  return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "(unknown library)";
}

// On the CPU: the CPU BLAS, else the adaptor on the CPU engine. `note`: why not on the GPU.
void run_on_cpu(const HostCall& call, const std::function<void(void*)>& cpu, const dispatch::HostBody& body,
                const std::string& note) {
  std::string why;
  const host::CpuBlas* blas = call.cpu_fn ? nullptr : host::CpuBlas::get(why);
  if (call.cpu_fn || blas) {
    if (void* fn = call.cpu_fn ? call.cpu_fn : blas->symbol(call.fortran)) {
      const auto t0 = std::chrono::steady_clock::now();
      cpu(fn);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      char took[32];
      std::snprintf(took, sizeof took, "; %.3f ms", ms);
      const std::string ran = blas ? "CPU BLAS " + blas->path() : "host LAPACK " + library_of(fn);
      record_forwarded(call.shape, ran + " (" + note + took + ")");
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

// "in 1.234 run 0.456 out 1.100 ms": where an offloaded call's time went; a tiled one's "in" is its
// shared operands, "run" its tiles' copies and kernels ("in 3.1 run 40.2 ms in 8 tiles").
std::string phase_times(const dispatch::OffloadTimes& t) {
  char buf[96];
  if (t.tiles)
    std::snprintf(buf, sizeof buf, "in %.3f run %.3f ms in %d tiles", t.in * 1e3, t.run * 1e3, t.tiles);
  else
    std::snprintf(buf, sizeof buf, "in %.3f run %.3f out %.3f ms", t.in * 1e3, t.run * 1e3, t.out * 1e3);
  return buf;
}

}  // namespace

CpuOnlyScope::CpuOnlyScope() { ++cpu_only_depth; }
CpuOnlyScope::~CpuOnlyScope() { --cpu_only_depth; }
bool CpuOnlyScope::active() { return cpu_only_depth > 0; }

void report_bad_argument(const char* name, int info) noexcept {
  const std::size_t len = std::strlen(name);
  if (xerbla_) {
    xerbla_(name, &info, len);
    return;
  }
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n",
               static_cast<int>(std::strcspn(name, " ")), name, info);
}

void* quick_cpu(QuickCpu& q, const char* family, const char* symbol, double flops, void* routine) noexcept {
  try {
    if (log_enabled()) return nullptr;
    const host::OffloadRule* rule = q.rule.load(std::memory_order_acquire);
    if (!rule) {
      rule = &host::config().rule(family);  // the configuration is read once and kept
      q.rule.store(rule, std::memory_order_release);
    }
    const bool cpu = CpuOnlyScope::active() || rule->mode == host::OffloadRule::Mode::Never ||
                     (rule->mode == host::OffloadRule::Mode::Threshold && flops < rule->min_flops);
    if (!cpu) return nullptr;
    void* fn = routine ? routine : q.fn.load(std::memory_order_acquire);
    if (!fn) {
      std::string why;
      const host::CpuBlas* blas = host::CpuBlas::get(why);
      if (!blas || !(fn = blas->symbol(symbol))) return nullptr;
      q.fn.store(fn, std::memory_order_release);
    }
    record_quick_forward(routine ? "forwarded: host LAPACK (below the offload threshold)"
                                 : "forwarded: CPU BLAS (below the offload threshold)");
    return fn;
  } catch (...) {
    return nullptr;
  }
}

void run_host(const HostCall& call, const std::function<void(void*)>& cpu, const dispatch::HostBody& body) noexcept {
  try {
    const host::Config& cfg = host::config();
    const host::OffloadRule& rule = cfg.rule(call.family);
    std::string why;
    if (CpuOnlyScope::active()) return run_on_cpu(call, cpu, body, "inside an offloaded factorization");
    const bool gpu = rule.mode != host::OffloadRule::Mode::Never && dispatch::offload_available(cfg.gpu_device, why);
    const bool single = call.data == gen::DataType::F32 || call.data == gen::DataType::C32;
    const double cpu_rate = cfg.cpu_gflops * 1e9 * (single ? 2 : 1);
    host::Placement where = host::place(rule, call.flops, bytes_of(call), cpu_rate, gpu, call.gpu_steps);
    if (!gpu && rule.mode != host::OffloadRule::Mode::Never) where.why += ": " + why;
    if (where.where == host::Where::Gpu) {
      dispatch::OffloadTimes tm;
      const std::vector<dispatch::TiledWork> ways = call.tiles ? call.tiles() : std::vector<dispatch::TiledWork>{};
      switch (dispatch::offload_tiled(cfg.gpu_device, call.data, call.flops, call.operands, body, ways, why, &tm)) {
        case dispatch::OffloadResult::Done:
          record_served(call.shape,
                        "GPU (" + where.why + "; " + phase_times(tm) + (call.gpu_note ? "; " + call.gpu_note() : "") + ")");
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
