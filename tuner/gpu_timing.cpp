#include "gpu_timing.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "dispatch_mirror.hpp"

namespace ptxblas::tuner {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

double flops_of(const model::Problem& p) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) *
         (gen::is_complex(p.data) ? 4.0 : 1.0);
}

Buffers::Buffers(const model::Problem& p) {
  const std::size_t es = static_cast<std::size_t>(gen::storage_bytes(p.data));
  const std::size_t na = es * static_cast<std::size_t>(p.m * p.k), nb = es * static_cast<std::size_t>(p.k * p.n),
                    nc = es * static_cast<std::size_t>(p.m * p.n);
  check(cudaMalloc(&a, std::max<std::size_t>(na, 1)), "cudaMalloc A");
  check(cudaMalloc(&b, std::max<std::size_t>(nb, 1)), "cudaMalloc B");
  check(cudaMalloc(&c, std::max<std::size_t>(nc, 1)), "cudaMalloc C");
  check(cudaMemset(a, 0, na), "memset");
  check(cudaMemset(b, 0, nb), "memset");
}

Buffers::~Buffers() {
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

double median_seconds(const std::function<void()>& call, cudaStream_t stream, const TimingOptions& opt) {
  cudaEvent_t first, last;
  check(cudaEventCreate(&first), "event");
  check(cudaEventCreate(&last), "event");
  // Warm-up (and, for a new kernel, its JIT), then one call alone for an estimate of its length.
  call();
  check(cudaStreamSynchronize(stream), "warm-up");
  check(cudaEventRecord(first, stream), "record");
  call();
  check(cudaEventRecord(last, stream), "record");
  check(cudaEventSynchronize(last), "sync");
  float estimate = 0;
  check(cudaEventElapsedTime(&estimate, first, last), "elapsed");
  cudaEventDestroy(first);
  cudaEventDestroy(last);
  // A call far longer than min_ms hides the host's part anyway: its own time is the answer (a
  // slow configuration of a large problem would otherwise cost seconds of the tuner's budget).
  if (estimate >= 3 * opt.min_ms) return estimate * 1e-3;
  // Then a run of calls enqueued back to back with an event between consecutive calls and one
  // synchronisation at the end, as ptxblas-bench (and an application on a stream) runs them: the
  // host's work for a call overlaps the previous kernel, and a split's workspace is not handed
  // back to the driver between calls. Synchronising after every call (as this did before) put
  // both inside the time and made K splits of small problems look up to 2x slower than the
  // bench measures them (docs/perf-notes.md §17).
  const int reps = std::clamp(static_cast<int>(opt.min_ms / std::max(estimate, 1e-3f)), 3, opt.max_reps);
  std::vector<cudaEvent_t> marks(static_cast<std::size_t>(reps) + 1);
  for (cudaEvent_t& e : marks) check(cudaEventCreate(&e), "event");
  check(cudaEventRecord(marks[0], stream), "record");
  for (int i = 0; i < reps; ++i) {
    call();
    check(cudaEventRecord(marks[static_cast<std::size_t>(i) + 1], stream), "record");
  }
  check(cudaEventSynchronize(marks.back()), "sync");
  std::vector<float> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i)
    check(cudaEventElapsedTime(&ms[static_cast<std::size_t>(i)], marks[static_cast<std::size_t>(i)],
                               marks[static_cast<std::size_t>(i) + 1]),
          "elapsed");
  for (cudaEvent_t& e : marks) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e-3;
}

double time_plan(const model::Problem& p, const dispatch::Plan& plan, const Buffers& buf, cudaStream_t stream,
                 const TimingOptions& opt, std::string& why) {
  dispatch::GemmCall call = call_of(p);
  call.a = buf.a;
  call.lda = p.op_a == gen::Op::N ? p.m : p.k;
  call.b = buf.b;
  call.ldb = p.op_b == gen::Op::N ? p.k : p.n;
  call.c = buf.c;
  call.ldc = p.m;
  call.alpha[0] = 1;
  call.beta[0] = 0;
  call.stream = stream;
  const dispatch::Outcome first = dispatch::run_gemm_with_plan(call, plan);  // refused plans are not timed
  if (!first.served) {
    why = first.detail;
    return -1;
  }
  return median_seconds([&] { dispatch::run_gemm_with_plan(call, plan); }, stream, opt);
}

}  // namespace ptxblas::tuner
