// The CPU BLAS behind the host path: the library ptxblas.toml names, else OpenBLAS when present,
// else the reference BLAS, opened with dlopen (RTLD_LOCAL) at first use. Its Fortran symbols are
// looked up in that library itself, so they are never ptxblas's own exports.
#pragma once

#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace ptxblas::host {

class CpuBlas {
 public:
  // Fortran symbol `name` (e.g. "dgemm_") of the CPU BLAS, or nullptr. Resolved once per name
  // (the lookup and the is-it-ours check cost microseconds; every host BLAS call asks).
  void* symbol(const char* name) const;
  const std::string& path() const { return path_; }

  // Loaded once per process; nullptr when no CPU BLAS could be opened (the reason in `why`).
  static const CpuBlas* get(std::string& why);

 private:
  void* resolve(const char* name) const;

  void* handle_ = nullptr;
  std::string path_;
  struct Cache {
    std::shared_mutex mutex;
    std::unordered_map<std::string, void*> symbols;
  };
  std::shared_ptr<Cache> cache_ = std::make_shared<Cache>();
};

// A LAPACK routine of the host (e.g. "dpotrf_") for ptxblas's factorization exports, never
// ptxblas's own; nullptr when none has it. cpu_blas_first true (the panels of a factorization on
// the GPU; whole calls kept on the CPU by default): the CPU BLAS library's first (OpenBLAS carries
// a LAPACK with multithreaded panels; reference LAPACK's calls the BLAS ~1000 times per 256-wide
// block), else the process's. false: the process's next definition after ptxblas or its global
// one (the LAPACK the program linked), else the CPU BLAS library's.
void* host_lapack_symbol(const char* name, bool cpu_blas_first);

// Library names tried when ptxblas.toml names none.
inline constexpr const char* kDefaultCpuBlas[] = {"libopenblas.so.0", "libblas.so.3"};

}  // namespace ptxblas::host
