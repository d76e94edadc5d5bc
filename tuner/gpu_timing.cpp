#include "gpu_timing.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

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
  call();  // warm-up (and, for a new kernel, its JIT)
  check(cudaStreamSynchronize(stream), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<float> ms;
  float total = 0;
  // At least min_ms and three calls, except that calls far longer than min_ms need fewer (a slow
  // configuration of a large problem would otherwise cost seconds of the tuner's budget).
  while (static_cast<int>(ms.size()) < opt.max_reps && (total < opt.min_ms || (ms.size() < 3 && total < 3 * opt.min_ms))) {
    check(cudaEventRecord(start, stream), "record");
    call();
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

double time_plan(const model::Problem& p, const dispatch::Plan& plan, const Buffers& buf, cudaStream_t stream,
                 const TimingOptions& opt, std::string& why) {
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
  const dispatch::Outcome first = dispatch::run_gemm_with_plan(call, plan);  // refused plans are not timed
  if (!first.served) {
    why = first.detail;
    return -1;
  }
  return median_seconds([&] { dispatch::run_gemm_with_plan(call, plan); }, stream, opt);
}

}  // namespace ptxblas::tuner
