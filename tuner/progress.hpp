// A one-line progress bar with an ETA on stderr, for the tuner's long loops.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace ptxblas::tuner {

class Progress {
 public:
  Progress(std::string what, long total) : what_(std::move(what)), total_(total), start_(std::chrono::steady_clock::now()) {}

  void step(long done) {
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double eta = done > 0 ? secs * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
    const int width = 30, filled = total_ > 0 ? static_cast<int>(width * done / total_) : width;
    std::fprintf(stderr, "\r%s [%s%s] %ld/%ld  %.0fs elapsed, ETA %.0fs ", what_.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), done, total_, secs, eta);
  }
  void done() { std::fprintf(stderr, "\n"); }

 private:
  std::string what_;
  long total_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace ptxblas::tuner
