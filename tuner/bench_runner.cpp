#include "bench_runner.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "dataset.hpp"
#include "gemm_call.hpp"
#include "gpu_timing.hpp"
#include "model_file.hpp"
#include "progress.hpp"

namespace ptxblas::tuner {
namespace {

// The row without its measurement: identifies a sample across runs.
std::string key_of(const Sample& s) {
  Sample k = s;
  k.tflops.reset();
  std::ostringstream os;
  write_row(os, k);
  return os.str();
}

}  // namespace

long run_bench(const BenchOptions& opt) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) throw std::runtime_error("no GPU");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");  // the primary context dispatch will find current
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  const std::string device = model::device_key(prop.name, prop.major * 10 + prop.minor);

  std::ifstream in(opt.samples);
  if (!in) throw std::runtime_error("cannot read " + opt.samples);
  std::vector<Sample> pending = read_dataset(in);
  std::set<std::string> done;
  if (std::ifstream prev(opt.out); prev)
    for (const Sample& s : read_dataset(prev)) done.insert(key_of(s));
  std::erase_if(pending, [&](Sample& s) {
    s.device_key = device;
    return s.tflops.has_value() || done.count(key_of(s)) > 0;
  });
  // One buffer set per problem: samples of the same problem run back to back.
  std::stable_sort(pending.begin(), pending.end(), [](const Sample& x, const Sample& y) {
    return std::tie(x.problem.m, x.problem.n, x.problem.k) < std::tie(y.problem.m, y.problem.n, y.problem.k);
  });
  const bool fresh = done.empty() && !std::ifstream(opt.out);
  std::ofstream out(opt.out, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + opt.out);
  if (fresh) write_header(out);

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(opt.minutes * 60);
  Progress bar("bench", static_cast<long>(pending.size()));
  long measured = 0, refused = 0;
  std::size_t i = 0;
  while (i < pending.size() && std::chrono::steady_clock::now() - start < budget) {
    const model::Problem p = pending[i].problem;
    const Buffers buf(p);
    for (; i < pending.size() && pending[i].problem == p && std::chrono::steady_clock::now() - start < budget; ++i) {
      Sample s = pending[i];
      const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, s.tuning);
      std::string why;
      const double secs = time_plan(p, plan, buf, stream, TimingOptions{opt.min_ms, opt.max_reps}, why);
      if (secs <= 0) {
        ++refused;
        std::fprintf(stderr, "\nskipped %s: %s\n", key_of(s).c_str(), why.c_str());
        continue;
      }
      s.tflops = flops_of(p) / secs * 1e-12;
      write_row(out, s);
      out.flush();
      bar.step(++measured);
    }
  }
  bar.done();
  cudaStreamDestroy(stream);
  std::printf("measured %ld rows (%ld refused), %zu pending left\n", measured, refused, pending.size() - i);
  return measured;
}

}  // namespace ptxblas::tuner
