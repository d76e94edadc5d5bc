#include "copy_workers.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ptxblas::dispatch {
namespace {

class Pool {
 public:
  explicit Pool(int helpers) {
    for (int i = 0; i < helpers; ++i) std::thread([this] { serve(); }).detach();
  }

  void run(int tasks, const std::function<void(int)>& fn) {
    std::lock_guard turn(turn_);
    {
      std::lock_guard lock(m_);
      fn_ = &fn;
      tasks_ = tasks;
      next_.store(0);
      busy_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(m_);
    done_.wait(lock, [&] { return busy_ == 0 && next_.load() >= tasks_; });
    fn_ = nullptr;
  }

 private:
  void work() {
    for (int t = next_.fetch_add(1); t < tasks_; t = next_.fetch_add(1)) (*fn_)(t);
  }
  void serve() {
    unsigned long long seen = 0;
    for (;;) {
      std::unique_lock lock(m_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (!fn_) continue;
      ++busy_;
      lock.unlock();
      work();
      lock.lock();
      if (--busy_ == 0) done_.notify_all();
    }
  }

  std::mutex turn_, m_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* fn_ = nullptr;
  int tasks_ = 0, busy_ = 0;
  std::atomic<int> next_{0};
  unsigned long long generation_ = 0;
};

Pool& pool() {
  static Pool* p = new Pool(copy_threads() - 1);  // never destroyed: its threads outlive main
  return *p;
}

}  // namespace

int copy_threads() {
  static const int n = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 8);
  return n;
}

void parallel_for(int tasks, const std::function<void(int)>& fn) {
  if (tasks <= 0) return;
  if (tasks == 1 || copy_threads() == 1) {
    for (int t = 0; t < tasks; ++t) fn(t);
    return;
  }
  pool().run(tasks, fn);
}

}  // namespace ptxblas::dispatch
