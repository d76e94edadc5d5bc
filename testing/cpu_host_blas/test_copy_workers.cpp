// dispatch/copy_workers: the threads that pack and unpack the host offload's staging buffers.
// Every task runs exactly once, on several threads when there are several, and callers on
// several threads at once take turns without losing or repeating a task.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "copy_workers.hpp"

namespace {

using ptxblas::dispatch::copy_threads;
using ptxblas::dispatch::parallel_for;

TEST(CopyWorkers, EveryTaskExactlyOnce) {
  for (int tasks : {0, 1, 2, 7, 64, 1000}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(tasks));
    parallel_for(tasks, [&](int t) { runs[static_cast<std::size_t>(t)].fetch_add(1); });
    for (int t = 0; t < tasks; ++t)
      EXPECT_EQ(runs[static_cast<std::size_t>(t)].load(), 1) << "task " << t << " of " << tasks;
  }
}

TEST(CopyWorkers, UsesSeveralThreads) {
  if (copy_threads() < 2) GTEST_SKIP() << "one hardware thread";
  std::mutex m;
  std::set<std::thread::id> seen;
  std::atomic<int> waiting{0};
  // Each task waits (bounded) for a second one to start, so one thread cannot run them all.
  parallel_for(copy_threads(), [&](int) {
    {
      std::lock_guard lock(m);
      seen.insert(std::this_thread::get_id());
    }
    waiting.fetch_add(1);
    for (int spin = 0; spin < 2000000 && waiting.load() < 2; ++spin) std::this_thread::yield();
  });
  EXPECT_GE(seen.size(), 2u);
}

TEST(CopyWorkers, ConcurrentCallersTakeTurns) {
  constexpr int kCallers = 4, kRounds = 50, kTasks = 33;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        std::vector<std::atomic<int>> runs(kTasks);
        parallel_for(kTasks, [&](int t) { runs[static_cast<std::size_t>(t)].fetch_add(1); });
        for (auto& x : runs) total.fetch_add(x.load() == 1 ? 1 : 1000000);
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), static_cast<long>(kCallers) * kRounds * kTasks);
}

}  // namespace
