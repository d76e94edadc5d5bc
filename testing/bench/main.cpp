// ptxblas-bench: ptxblas against the real cuBLAS on the shapes of a suite, in one process, on the
// same buffers and stream. Prints an aligned table (and `cublas_version N`), writes a CSV.
// Exit status: 0 all served and matching, 1 a mismatch, an error or a forwarded call, 2 a failed
// CUDA/cuBLAS call or bad arguments. Without a GPU it says so and exits 0.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli_checks.hpp"
#include "gemm_call.hpp"
#include "gpu_session.hpp"
#include "output.hpp"
#include "run_shape.hpp"
#include "status.hpp"
#include "suite.hpp"
#include "timing.hpp"

namespace {

struct Options {
  std::string suite = "testing/bench/suite_public.txt";
  std::string csv;
  std::string filter;
  std::string library = bench::default_library_path();
  std::uint64_t seed = 0;
  bench::RunOptions run;
  bool atomics = false;
};

std::vector<bench::Shape> selected_shapes(const Options& o) {
  std::vector<bench::Shape> out;
  try {
    for (const bench::Shape& s : bench::read_suite(o.suite))
      if (bench::matches(s, o.filter)) out.push_back(s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(2);
  }
  if (out.empty()) {
    std::fprintf(stderr, "no shape of %s matches --filter '%s'\n", o.suite.c_str(), o.filter.c_str());
    std::exit(2);
  }
  return out;
}

// Geometric mean of the ratio per type and the count of shapes where ptxblas is at least as fast.
void print_summary(const std::vector<bench::Result>& results) {
  std::map<std::string, int> by_check;
  std::map<char, std::pair<double, int>> log_ratio;
  int at_least = 0;
  for (const bench::Result& r : results) {
    ++by_check[r.check];
    const double ratio = r.ptx_tflops / r.cublas_tflops;
    if (std::isfinite(ratio) && ratio > 0) {
      log_ratio[r.shape.type].first += std::log(ratio);
      ++log_ratio[r.shape.type].second;
      if (ratio >= 1) ++at_least;
    }
  }
  std::printf("summary: %zu shapes; check", results.size());
  for (const auto& [check, n] : by_check) std::printf(" %s %d", check.c_str(), n);
  std::printf("; ptxblas >= cuBLAS on %d; geomean ratio", at_least);
  for (const auto& [type, acc] : log_ratio) std::printf(" %c %.3f", type, std::exp(acc.first / acc.second));
  std::printf("\n");
  // Noise: the two timing rounds of one implementation should agree far better than the ratios differ.
  std::vector<double> spreads;
  const bench::Result* worst = nullptr;
  for (const bench::Result& r : results) {
    spreads.push_back(r.spread);
    if (!worst || r.spread > worst->spread) worst = &r;
  }
  std::sort(spreads.begin(), spreads.end());
  if (worst)
    std::printf("noise: round-to-round spread of medians %.1f%% (median shape), %.1f%% (worst: %c %s)\n",
                100 * spreads[spreads.size() / 2], 100 * worst->spread, worst->shape.type, worst->shape.name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"ptxblas-bench: ptxblas (dlopen'ed libptxblas.so) against the real cuBLAS, side by side"};
  app.add_option("--suite", o.suite, "suite file: TYPE TRANSA TRANSB M N K NAME per line")->capture_default_str();
  app.add_option("--csv", o.csv, "write the results to this CSV file");
  app.add_option("--filter", o.filter, "only shapes whose name contains this, or whose type is this letter");
  app.add_option("--reps", o.run.reps, "timed calls per implementation and shape, in two alternating blocks (default: auto, 5..200)")
      ->check(ptxblas::cli::kNonNegative);
  app.add_option("--max-ms", o.run.budget_ms, "auto reps: about this many ms per implementation and shape")
      ->capture_default_str()
      ->check(ptxblas::cli::kPositive);
  app.add_option("--warmup", o.run.warmup, "untimed calls per implementation first")->capture_default_str()
      ->check(ptxblas::cli::kNonNegative);
  app.add_option("--oracle-ms", o.run.oracle_ms,
                 "oracle column: brute-force search over candidate tiles, about this many ms per shape (0: off)")
      ->capture_default_str()
      ->check(ptxblas::cli::kNonNegative);
  app.add_option("--oracle-log", o.run.oracle_log, "append every oracle candidate's time to this CSV");
  app.add_option("--oracle-specs", o.run.oracle_specs,
                 "the oracle's candidates instead of its own list, as ptxblas_force_tile specs "
                 "(\"family ml nl u ms ns vec kg store_pad stages [kl [raster [ks]]]\"; for sweeps, e.g. of kg)")
      ->delimiter(';');
  app.add_flag("--beta-one", o.run.beta_one,
               "timed calls with beta = 1 (C read and added to, as LAPACK's updates); the check keeps beta = 0");
  app.add_flag("--atomics", o.atomics,
               "the handle allows atomics (cublasSetAtomicsMode ALLOWED), for cuBLAS and ptxblas alike: ptxblas's "
               "K splits of S, D, C, Z then add their slices into C atomically");
  app.add_option("--seed", o.seed, "seed of the random operands (default: fresh, printed)");
  app.add_option("--library", o.library, "libptxblas.so to load (default: $PTXBLAS_LIBRARY, else beside this binary)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::vector<bench::Shape> shapes = selected_shapes(o);

  const std::optional<bench::GpuSession> session = bench::open_gpu_session(o.library);
  if (!session) return 0;
  const cudaDeviceProp& prop = session->prop;
  cublasHandle_t handle = session->handle;
  cudaStream_t stream = session->stream;
  if (o.atomics) CUBLAS_CHECK(cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_ALLOWED));
  const int version = session->cublas_version;
  if (o.seed == 0) o.seed = std::random_device{}() | 1ull;

  std::printf("device %s sm_%d%d SMs %d L2 %d MB\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  std::printf("cublas_version %d\n", version);
  std::printf("library %s\nsuite %s (%zu shapes)  seed %llu  beta %d\n", o.library.c_str(), o.suite.c_str(),
              shapes.size(), static_cast<unsigned long long>(o.seed), o.run.beta_one ? 1 : 0);

  o.run.multiprocessors = prop.multiProcessorCount;
  bench::CallTimer timer(stream);
  bench::Bench b{handle, stream, timer, static_cast<std::size_t>(prop.l2CacheSize), o.seed, o.run};
  bench::CsvFile csv(o.csv);
  std::vector<bench::Result> results;
  bench::print_table_header();
  for (const bench::Shape& s : shapes) {
    results.push_back(bench::run_shape(b, s));
    csv.write(results.back());
    bench::print_table_row(results.back());
  }
  print_summary(results);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  for (const bench::Result& r : results)
    if (r.check != "ok") return 1;
  return 0;
}
