#include "timing.hpp"

#include <algorithm>
#include <cmath>

#include "status.hpp"

namespace bench {

CallTimer::CallTimer(cudaStream_t stream) : stream_(stream), start_(kMaxCalls), stop_(kMaxCalls) {
  for (int i = 0; i < kMaxCalls; ++i) {
    CUDA_CHECK(cudaEventCreate(&start_[i]));
    CUDA_CHECK(cudaEventCreate(&stop_[i]));
  }
}

CallTimer::~CallTimer() {
  for (int i = 0; i < kMaxCalls; ++i) {
    cudaEventDestroy(start_[i]);
    cudaEventDestroy(stop_[i]);
  }
}

bool CallTimer::time(int calls, const std::function<bool()>& call, std::vector<float>& ms) {
  calls = std::clamp(calls, 1, kMaxCalls);
  int done = 0;
  bool ok = true;
  for (; done < calls && ok; ++done) {
    CUDA_CHECK(cudaEventRecord(start_[done], stream_));
    ok = call();
    CUDA_CHECK(cudaEventRecord(stop_[done], stream_));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaGetLastError());
  if (!ok) return false;
  for (int i = 0; i < done; ++i) {
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start_[i], stop_[i]));
    ms.push_back(t);
  }
  return true;
}

double median(std::vector<float> v) {
  if (v.empty()) return std::nan("");
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lo + hi);
}

int auto_reps(double estimate_ms, double budget_ms) {
  if (!(estimate_ms > 0)) return 5;
  return static_cast<int>(std::clamp(std::lround(budget_ms / estimate_ms), 5l, 200l));
}

}  // namespace bench
