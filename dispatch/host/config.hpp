// ptxblas.toml: settings of the host BLAS path (and the few library-wide ones). Found through
// $PTXBLAS_CONFIG, then $XDG_CONFIG_HOME/ptxblas/ptxblas.toml (~/.config/... when unset), else
// built-in defaults. A bad key or value gives one line on stderr naming file, line and key, and
// that setting keeps its default; a file that does not parse keeps every default. Never throws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxblas::host {

inline constexpr int kMaxBenchmarkTopK = 16;

// When a host BLAS3 call goes to the GPU: always, never, or from a size (flops) on.
struct OffloadRule {
  enum class Mode { Always, Never, Threshold } mode = Mode::Threshold;
  double min_flops = 2e9;
};

struct Config {
  std::string source = "built-in defaults";  // the file read, for logs
  std::string cpu_blas;                      // empty: libopenblas.so.0 if present, else libblas.so.3
  double cpu_gflops = 500;                   // the CPU BLAS's double-precision rate (single: twice)
  int gpu_device = 0;
  std::int64_t gpu_keep_mib = 2048;          // device memory offload keeps between calls (0: none)
  std::int64_t gpu_memory_mib = 0;           // device memory one offloaded call may use (0: 3/4 of the free)
  std::int64_t gpu_tile_mib = 512;           // operand MiB per tile of a pipelined offload (0: whole calls)
  std::string model_dir, cache_dir;          // empty: defaults
  int benchmark_top_k = 0;                   // first sight of a shape: time the model's k best (0: off)
  std::string log_level = "warn";            // quiet | warn | info
  std::int64_t lapack_panel = 256;           // columns per panel of the GPU factorizations (32-1024)
  bool lapack_program_first = false;         // ?potrf_/?getrf_ kept on the CPU: the program's LAPACK
                                             // before the CPU BLAS library's (lapack.cpu_calls)
  bool lapack_lu_panels_on_gpu = true;       // getrf's panels by the GPU's column kernel, not the
                                             // host's LAPACK (lapack.lu_panels)
  OffloadRule default_rule;
  std::map<std::string, OffloadRule> rules;  // per routine: gemm symm hemm syrk herk syr2k her2k trmm trsm potrf getrf

  const OffloadRule& rule(const std::string& routine) const;
};

// Parses TOML text (`source` names it in messages); problems are appended to `errors`.
Config parse_config(const std::string& text, const std::string& source, std::vector<std::string>& errors);

// The process's configuration, read once (errors printed once).
const Config& config();

// Where config() looks, in order.
std::vector<std::string> config_paths();

}  // namespace ptxblas::host
