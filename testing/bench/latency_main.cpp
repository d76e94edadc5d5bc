// ptxblas-bench-latency: host-side costs of a call (issue 4's runtime targets), side by side with
// cuBLAS in one process. A microbenchmark, not a test:
//   first call of a new shape: host wall time from the call to its completion, which includes
//     generating the kernel and loading it (the driver JITs the PTX or finds the cubin in its
//     on-disk cache, CUDA_CACHE_PATH); run twice with the same CUDA_CACHE_PATH to see both;
//   a repeated shape: host time per call to enqueue a tiny GEMM (batches of 128 calls, each batch
//     timed without the synchronisation after it), ptxblas and cuBLAS: S 16x16x16, and H
//     64x64x64, which takes the wgmma path (its plan rules per call, its tensor maps from a
//     per-thread cache, §132), and an H strided batch of 64 entries of 128x128x64 (its plan
//     kept per shape since §138; the cost model took 0.1-0.5 us a call); and the same for a bare
//     cuLaunchKernel of an empty kernel on the same stream (the driver's own floor), so that
//     ptxblas's time above it is its dispatch overhead (issue 4: at most 1 us for a cached shape).
//     They take turns batch by batch, and "above it" is the median of each round's difference:
//     measured one after another, the floor read 0.5-1 us apart between two runs on one
//     machine, as much as the overhead itself. A second floor launches an empty kernel with an S
//     GEMM kernel's 20 parameters (the driver copies them per launch): it costs no more than the
//     first on the H100 machine (perf notes §87).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cuda.h>
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <vector>

#include "cli_checks.hpp"
#include "gemm_call.hpp"
#include "status.hpp"
#include "suite.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Device {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
};

// `entries` operands of the shape, one after another (a strided batch's).
Device alloc(const bench::Shape& s, std::size_t entries = 1) {
  const bench::Layout l = bench::layout(s);
  const std::size_t es = bench::elem_bytes(s.type) * entries;
  Device d;
  CUDA_CHECK(cudaMalloc(&d.a, l.a_elems * es));
  CUDA_CHECK(cudaMalloc(&d.b, l.b_elems * es));
  CUDA_CHECK(cudaMalloc(&d.c, l.c_elems * es));
  CUDA_CHECK(cudaMemset(d.a, 0, l.a_elems * es));
  CUDA_CHECK(cudaMemset(d.b, 0, l.b_elems * es));
  return d;
}

void release(Device& d) {
  CUDA_CHECK(cudaFree(d.a));
  CUDA_CHECK(cudaFree(d.b));
  CUDA_CHECK(cudaFree(d.c));
}

// Host microseconds per call of one batch of 128 enqueued calls (timed before the
// synchronisation that follows it).
double batch_us(const std::function<void()>& call, cudaStream_t st) {
  constexpr int kBatch = 128;
  const auto t0 = Clock::now();
  for (int i = 0; i < kBatch; ++i) call();
  const double us = ms_since(t0) * 1000.0 / kBatch;
  CUDA_CHECK(cudaStreamSynchronize(st));
  return us;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// An empty kernel enqueued with the driver API, as ptxblas launches its own (the driver is opened
// with dlopen, as ptxblas does, so that the binary starts without one): with no parameters, or
// with an S GEMM kernel's 20 (generator/kernel_abi.hpp: 132 bytes), which the driver copies into
// its command buffer on every launch. Empty when unavailable.
std::function<void()> launch_floor(cudaStream_t st, bool gemm_params) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return {};
  using LoadData = CUresult (*)(CUmodule*, const void*);
  using GetFunction = CUresult (*)(CUfunction*, CUmodule, const char*);
  using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);
  const auto load = reinterpret_cast<LoadData>(dlsym(lib, "cuModuleLoadData"));
  const auto get = reinterpret_cast<GetFunction>(dlsym(lib, "cuModuleGetFunction"));
  const auto launch = reinterpret_cast<Launch>(dlsym(lib, "cuLaunchKernel"));
  static const char kPtx[] =
      ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty() { ret; }\n"
      ".visible .entry empty_gemm_params(.param .u64 a, .param .u64 b, .param .u64 c, .param .s64 lda,\n"
      "  .param .s64 ldb, .param .s64 ldc, .param .s32 m, .param .s32 n, .param .s32 k,\n"
      "  .param .f32 ar, .param .f32 ai, .param .f32 br, .param .f32 bi, .param .u64 ap, .param .u64 bp,\n"
      "  .param .u64 ws, .param .s32 kchunk, .param .s32 fill, .param .s32 fill_diag, .param .s64 d_off) { ret; }\n";
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  if (!load || !get || !launch || load(&mod, kPtx) != CUDA_SUCCESS ||
      get(&fn, mod, gemm_params ? "empty_gemm_params" : "empty") != CUDA_SUCCESS)
    return {};
  const auto stream = reinterpret_cast<CUstream>(st);
  if (!gemm_params)
    return [=] {
      if (launch(fn, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr) != CUDA_SUCCESS) std::abort();
    };
  return [=] {
    std::uint64_t u = 0;
    std::int64_t l = 16;
    std::int32_t i = 16;
    float f = 1.0f;
    void* params[20] = {&u, &u, &u, &l, &l, &l, &i, &i, &i, &f, &f, &f, &f, &u, &u, &u, &i, &i, &i, &l};
    if (launch(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr) != CUDA_SUCCESS) std::abort();
  };
}

// Host time per call of a repeated tiny GEMM (a strided batch of `entries` where > 1: H only),
// ptxblas, cuBLAS and the two launch floors in turn (printed as one line each).
void repeated_calls(cublasHandle_t h, cudaStream_t st, const bench::Shape& tiny, int entries, int batches) {
  Device d = alloc(tiny, static_cast<std::size_t>(entries));
  auto gemm = [&](bench::Impl impl) {
    const bench::Operands o{d.a, d.b, d.c};
    CUBLAS_CHECK(entries > 1 ? bench::run_h_strided_batch(impl, h, tiny, entries, o) : bench::run_gemm(impl, h, tiny, o));
  };
  for (int i = 0; i < 3; ++i) {  // warm both paths
    gemm(bench::Impl::Ptxblas);
    gemm(bench::Impl::Cublas);
  }
  // The two floors (launch_floor): a launch each, its times, and ptxblas's time above it per round.
  struct Floor {
    const char* label;
    std::function<void()> launch;
    std::vector<double> us, above;
  };
  Floor floors[2] = {{"launch floor (empty kernel, cuLaunchKernel)", launch_floor(st, false), {}, {}},
                     {"launch floor with the GEMM's 20 parameters", launch_floor(st, true), {}, {}}};
  for (const Floor& f : floors)
    if (f.launch)
      for (int i = 0; i < 3; ++i) f.launch();
  CUDA_CHECK(cudaStreamSynchronize(st));
  std::vector<double> ptx, cub;
  for (int b = 0; b < batches; ++b) {  // all in turn, so that drift hits each alike
    ptx.push_back(batch_us([&] { gemm(bench::Impl::Ptxblas); }, st));
    cub.push_back(batch_us([&] { gemm(bench::Impl::Cublas); }, st));
    for (Floor& f : floors) {
      if (!f.launch) continue;
      f.us.push_back(batch_us(f.launch, st));
      f.above.push_back(ptx.back() - f.us.back());
    }
  }
  const double p = median(ptx), c = median(cub);
  std::printf("repeated %s: host us per call  ptxblas %.2f  cuBLAS %.2f  difference %.2f  (%s)\n",
              tiny.name.c_str(), p, c, p - c, bench::last_ptxblas_call().c_str());
  for (const Floor& f : floors)
    std::printf("%s: host us per call %.2f  ptxblas above it %.2f (median of %d rounds' differences)\n", f.label,
                median(f.us), median(f.above), static_cast<int>(f.above.size()));
  release(d);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptxblas-bench-latency: first-call and per-call host costs, ptxblas vs cuBLAS"};
  std::string library = bench::default_library_path();
  int batches = 101;
  app.add_option("--library", library, "libptxblas.so");
  app.add_option("--batches", batches, "batches of 128 calls for the per-call time")->check(ptxblas::cli::kPositive);
  CLI11_PARSE(app, argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: benchmark skipped\n");
    return 0;
  }
  bench::load_ptxblas(library);
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreate(&st));
  CUBLAS_CHECK(cublasSetStream(h, st));

  // Shapes whose kernels nothing in this process has loaded yet: one per type, ragged sizes.
  const std::vector<bench::Shape> first = {{'S', 'N', 'N', 300, 200, 100, "first-s"},
                                           {'D', 'N', 'T', 200, 136, 72, "first-d"},
                                           {'Z', 'T', 'N', 90, 70, 200, "first-z"},
                                           {'H', 'N', 'T', 130, 100, 300, "first-h"}};
  std::printf("%-8s %12s %12s %12s  %s\n", "shape", "ptx_1st_ms", "ptx_2nd_ms", "cublas_1st_ms", "kernel");
  for (const bench::Shape& s : first) {
    Device d = alloc(s);
    double ms[3];
    const bench::Impl order[3] = {bench::Impl::Ptxblas, bench::Impl::Ptxblas, bench::Impl::Cublas};
    for (int i = 0; i < 3; ++i) {
      CUDA_CHECK(cudaStreamSynchronize(st));
      const auto t0 = Clock::now();
      CUBLAS_CHECK(bench::run_gemm(order[i], h, s, {d.a, d.b, d.c}));
      CUDA_CHECK(cudaStreamSynchronize(st));
      ms[i] = ms_since(t0);
    }
    std::printf("%-8s %12.3f %12.3f %12.3f  %s\n", s.name.c_str(), ms[0], ms[1], ms[2],
                bench::last_ptxblas_call().c_str());
    release(d);
  }

  repeated_calls(h, st, bench::Shape{'S', 'N', 'N', 16, 16, 16, "S 16x16x16"}, 1, batches);
  repeated_calls(h, st, bench::Shape{'H', 'N', 'T', 64, 64, 64, "H 64x64x64"}, 1, batches);
  repeated_calls(h, st, bench::Shape{'H', 'T', 'N', 128, 128, 64, "H 128x128x64 x64 (strided batch)"}, 64, batches);
  CUBLAS_CHECK(cublasDestroy(h));
  CUDA_CHECK(cudaStreamDestroy(st));
  return 0;
}
