#include "bench_runner.hpp"

#include <cuda_runtime.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "cuda_driver.hpp"
#include "dataset.hpp"
#include "dispatch_mirror.hpp"
#include "gemm_call.hpp"
#include "gpu_timing.hpp"
#include "kernel_cache.hpp"
#include "kernel_set.hpp"
#include "model_file.hpp"
#include "progress.hpp"

extern char** environ;

namespace ptxblas::tuner {

void warm_jit_cache(const std::vector<Sample>& pending, int workers, double max_seconds) {
  const std::vector<Sample> reps = one_sample_per_kernel(pending);
  workers = std::min<int>(workers, static_cast<int>(reps.size()));
  if (workers < 2) return;
  if (const char* off = std::getenv("CUDA_CACHE_DISABLE"); off && std::string(off) == "1") {
    std::fprintf(stderr, "jit-warm skipped: CUDA_CACHE_DISABLE=1 leaves nothing for the timing loop to find\n");
    return;
  }
  char path[] = "/tmp/ptxblas-jit-warm-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("jit-warm: cannot create a temporary file");
  close(fd);
  {
    std::ofstream f(path);
    write_header(f);
    for (const Sample& s : reps) write_row(f, s);
    if (!f) throw std::runtime_error(std::string("jit-warm: cannot write ") + path);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> kids;
  const std::string n = std::to_string(workers);
  for (int i = 0; i < workers; ++i) {
    const std::string shard = std::to_string(i);
    const char* argv[] = {"ptxblas-tune", "jit-warm", "--samples", path, "--shard", shard.c_str(), "--shards",
                          n.c_str(), nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, const_cast<char* const*>(argv), environ) == 0)
      kids.push_back(pid);
    else
      std::fprintf(stderr, "jit-warm: could not start worker %d\n", i);
  }
  int failed = 0;
  std::vector<pid_t> running = kids;
  while (!running.empty()) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (elapsed > max_seconds)
      for (pid_t pid : running) kill(pid, SIGKILL);
    std::erase_if(running, [&](pid_t pid) {
      int status = 0;
      const pid_t r = waitpid(pid, &status, elapsed > max_seconds ? 0 : WNOHANG);
      if (r == 0) return false;
      if (r != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
      return true;
    });
    if (!running.empty()) usleep(20000);
  }
  unlink(path);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("jit-warm: %zu kernel sets in %zu processes, %.1f s%s\n", reps.size(), kids.size(), secs,
              failed ? " (some workers failed: their kernels compile in the timing loop)" : "");
}

long run_jit_warm(const std::string& samples, int shard, int shards) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) throw std::runtime_error("no GPU");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");
  const dispatch::CudaDriver* d = dispatch::cuda_driver();
  CUcontext ctx = nullptr;
  if (!d || d->cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) throw std::runtime_error("no current CUDA context");
  dispatch::DeviceInfo info;
  std::string error;
  if (!dispatch::device_info(ctx, info, error)) throw std::runtime_error(error);
  const std::vector<Sample> all = read_dataset_file(samples);
  long compiled = 0;
  for (std::size_t j = static_cast<std::size_t>(shard); j < all.size(); j += static_cast<std::size_t>(shards)) {
    const model::Problem& p = all[j].problem;
    const dispatch::Plan plan =
        dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, all[j].tuning);
    // Through dispatch's own loader: the same PTX and JIT options, so the same cache entry.
    bool ok = dispatch::cached_kernel(ctx, launched_config(p, plan), info.sm, error) != nullptr;
    if (ok && plan.kg > 1) ok = dispatch::cached_reduce_kernel(ctx, p.data, false, info.sm, error) != nullptr;
    if (!ok) std::fprintf(stderr, "jit-warm: %s: %s\n", kernels_of(all[j]).c_str(), error.c_str());
    compiled += ok;
  }
  return compiled;
}

long run_bench(const BenchOptions& opt) {
  // Room in the driver's JIT cache for every kernel of a run (the default is far smaller);
  // before the first CUDA call, so this process and the JIT workers see it.
  setenv("CUDA_CACHE_MAXSIZE", "4294967296", 0);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) throw std::runtime_error("no GPU");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");  // the primary context dispatch will find current
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  const std::string device = model::device_key(prop.name, prop.major * 10 + prop.minor);

  std::vector<Sample> pending = read_dataset_file(opt.samples);
  std::set<std::string> done;
  if (std::ifstream(opt.out))
    for (const Sample& s : read_dataset_file(opt.out)) done.insert(sample_key(s));
  std::erase_if(pending, [&](Sample& s) {
    s.device_key = device;
    return s.tflops.has_value() || done.count(sample_key(s)) > 0;
  });
  // One buffer set per problem: samples of the same problem run back to back, problems in the
  // order they first appear (the sampler's random order, so a run cut short by its budget still
  // covers every size range).
  {
    std::map<std::string, std::size_t> first;
    auto problem_key = [](const Sample& s) {
      return std::to_string(static_cast<int>(s.problem.data)) + gen::op_letter(s.problem.op_a) +
             gen::op_letter(s.problem.op_b) + std::to_string(s.problem.m) + "x" + std::to_string(s.problem.n) + "x" +
             std::to_string(s.problem.k);
    };
    for (std::size_t j = 0; j < pending.size(); ++j) first.emplace(problem_key(pending[j]), j);
    std::stable_sort(pending.begin(), pending.end(), [&](const Sample& x, const Sample& y) {
      return first.at(problem_key(x)) < first.at(problem_key(y));
    });
  }
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(opt.minutes * 60);
  warm_jit_cache(pending, opt.jit_workers, budget.count() / 2);  // part of the budget, at most half
  const bool fresh = done.empty() && !std::ifstream(opt.out);
  std::ofstream out(opt.out, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + opt.out);
  if (fresh) write_header(out);

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  Progress bar("bench", static_cast<long>(pending.size()));
  long measured = 0, refused = 0;
  std::size_t i = 0;
  while (i < pending.size() && std::chrono::steady_clock::now() - start < budget) {
    const model::Problem p = pending[i].problem;
    const Buffers buf(p);
    for (; i < pending.size() && pending[i].problem == p && std::chrono::steady_clock::now() - start < budget; ++i) {
      Sample s = pending[i];
      dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, s.tuning);
      if (opt.as_dispatched) plan = as_dispatched(p, plan, prop.multiProcessorCount);
      std::string why;
      const double secs = time_plan(p, plan, buf, stream, TimingOptions{opt.min_ms, opt.max_reps}, why);
      if (secs <= 0) {
        ++refused;
        std::fprintf(stderr, "\nskipped %s: %s\n", sample_key(s).c_str(), why.c_str());
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
