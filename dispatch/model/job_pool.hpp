// A small pool of short-lived threads for the model's large, rare work: a first pick's space and
// scores (dispatch) and an ensemble's members (the tuner's trainer).
#pragma once

#include <cstddef>
#include <functional>

namespace ptxblas::model {

// job(0) .. job(jobs - 1) on up to `max_threads` threads (this one included; 0: one per core).
// Without threads to be had, whatever is left runs here. The first exception a job throws stops
// the jobs not yet started and is rethrown here once all threads are joined, so the caller sees
// it as if the work had run on its own thread.
void run_jobs(std::size_t jobs, std::size_t max_threads, const std::function<void(std::size_t)>& job);

}  // namespace ptxblas::model
