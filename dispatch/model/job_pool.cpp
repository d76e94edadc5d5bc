#include "job_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxblas::model {

void run_jobs(std::size_t jobs, std::size_t max_threads, const std::function<void(std::size_t)>& job) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(jobs, max_threads > 0 ? max_threads : cores);
  std::atomic<std::size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;
  auto worker = [&] {
    for (std::size_t j = next++; j < jobs; j = next++) {
      try {
        job(j);
      } catch (...) {
        std::lock_guard lock(failed_mutex);
        if (!failed) failed = std::current_exception();
        next = jobs;
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(threads);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  } catch (...) {  // fewer threads (or none) to be had
  }
  worker();
  for (std::thread& th : pool) th.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace ptxblas::model
