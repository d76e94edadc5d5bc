// Device-side timing of single calls: each call between its own pair of CUDA events on one stream,
// all of a block enqueued before one synchronisation (so the host runs ahead of the GPU), the
// median taken over the calls.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace bench {

class CallTimer {
 public:
  static constexpr int kMaxCalls = 200;

  explicit CallTimer(cudaStream_t stream);
  ~CallTimer();
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;

  // Runs call() `calls` times (at most kMaxCalls) and appends each call's milliseconds to `ms`.
  // Stops early, returning false, when a call reports failure.
  bool time(int calls, const std::function<bool()>& call, std::vector<float>& ms);

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> start_, stop_;
};

double median(std::vector<float> v);

// Repetitions that spend about `budget_ms` at `estimate_ms` a call, clamped to [5, 200].
int auto_reps(double estimate_ms, double budget_ms);

}  // namespace bench
