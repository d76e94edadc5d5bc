#include "call_record.hpp"

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "config.hpp"
#include "ptxblas/ptxblas.h"

namespace ptxblas::shim {
namespace {

std::atomic<std::uint64_t> g_served{0}, g_forwarded{0};
thread_local std::string t_last = "none";
thread_local const char* t_quick = nullptr;  // set instead of t_last by record_quick_forward

void emit(const CallShape& s, const std::string& what) {
  if (!log_enabled()) return;
  std::fprintf(stderr, "ptxblas: %s %s m=%lld n=%lld k=%lld -> %s\n", s.entry, s.flags.c_str(), s.m, s.n,
               s.k, what.c_str());
}

}  // namespace

bool log_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PTXBLAS_LOG");
    if (v && *v) return std::string(v) != "0";
    return host::config().log_level == "info";
  }();
  return on;
}

void record_quick_forward(const char* what) noexcept {
  g_forwarded.fetch_add(1, std::memory_order_relaxed);
  t_quick = what;
}

void record_served(const CallShape& s, const std::string& kernel, int kg, const char* note) {
  g_served.fetch_add(1, std::memory_order_relaxed);
  t_quick = nullptr;
  t_last.assign(kernel);  // reuses the thread's buffer: no allocation once it has held a name
  if (kg > 1) {
    char digits[16];
    const auto end = std::to_chars(digits, digits + sizeof digits, kg).ptr;
    t_last.append(" kg=").append(digits, end);
  }
  t_last.append(note);
  if (log_enabled()) emit(s, "kernel " + t_last);
}

void record_forwarded(const CallShape& s, const std::string& reason) {
  g_forwarded.fetch_add(1, std::memory_order_relaxed);
  t_quick = nullptr;
  t_last = "forwarded: " + reason;
  emit(s, t_last);
}

void record_error(const CallShape& s, const std::string& what) {
  t_quick = nullptr;
  t_last = "error: " + what;
  emit(s, t_last);
}

}  // namespace ptxblas::shim

extern "C" {

__attribute__((visibility("default"))) const char* ptxblas_last_call(void) {
  return ptxblas::shim::t_quick ? ptxblas::shim::t_quick : ptxblas::shim::t_last.c_str();
}

__attribute__((visibility("default"))) void ptxblas_counters(uint64_t* served, uint64_t* forwarded) {
  if (served) *served = ptxblas::shim::g_served.load();
  if (forwarded) *forwarded = ptxblas::shim::g_forwarded.load();
}

}
