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
#include "model_file.hpp"
#include "progress.hpp"

namespace ptxblas::tuner {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The row without its measurement: identifies a sample across runs.
std::string key_of(const Sample& s) {
  Sample k = s;
  k.tflops.reset();
  std::ostringstream os;
  write_row(os, k);
  return os.str();
}

double flops_of(const model::Problem& p) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) *
         (gen::is_complex(p.data) ? 4.0 : 1.0);
}

struct Buffers {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

// Median seconds per call of `plan` on p, or a negative value when dispatch refused it.
double time_plan(const model::Problem& p, const dispatch::Plan& plan, const Buffers& buf, cudaStream_t stream,
                 const BenchOptions& opt, std::string& why) {
  dispatch::GemmCall call;
  call.data = p.data;
  call.op_a = p.op_a;
  call.op_b = p.op_b;
  call.m = p.m;
  call.n = p.n;
  call.k = p.k;
  call.a = buf.a;
  call.lda = p.op_a == gen::Op::N ? p.m : p.k;
  call.b = buf.b;
  call.ldb = p.op_b == gen::Op::N ? p.k : p.n;
  call.c = buf.c;
  call.ldc = p.m;
  call.alpha[0] = 1;
  call.beta[0] = 0;
  call.stream = stream;
  // First call compiles (JIT) and warms up.
  dispatch::Outcome o = dispatch::run_gemm_with_plan(call, plan);
  if (!o.served) {
    why = o.detail;
    return -1;
  }
  check(cudaStreamSynchronize(stream), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<float> ms;
  float total = 0;
  while (static_cast<int>(ms.size()) < opt.max_reps && (total < opt.min_ms || ms.size() < 3)) {
    check(cudaEventRecord(start, stream), "record");
    o = dispatch::run_gemm_with_plan(call, plan);
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "elapsed");
    ms.push_back(t);
    total += t;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e-3;
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
    const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(p.data));
    Buffers buf;
    check(cudaMalloc(&buf.a, es * static_cast<std::size_t>(p.m * p.k)), "cudaMalloc A");
    check(cudaMalloc(&buf.b, es * static_cast<std::size_t>(p.k * p.n)), "cudaMalloc B");
    check(cudaMalloc(&buf.c, es * static_cast<std::size_t>(p.m * p.n)), "cudaMalloc C");
    check(cudaMemset(buf.a, 0, es * static_cast<std::size_t>(p.m * p.k)), "memset");
    check(cudaMemset(buf.b, 0, es * static_cast<std::size_t>(p.k * p.n)), "memset");
    for (; i < pending.size() && pending[i].problem == p && std::chrono::steady_clock::now() - start < budget; ++i) {
      Sample s = pending[i];
      const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, s.tuning);
      std::string why;
      const double secs = time_plan(p, plan, buf, stream, opt, why);
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
