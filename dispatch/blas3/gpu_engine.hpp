// The GPU engine of the level-3 adaptors: GEMM steps through dispatch's generated kernels, the
// helpers through generated helper kernels, scratch from the stream-ordered allocator, all on
// the caller's stream. Part of dispatch (it touches CUDA); the adaptors themselves do not.
#pragma once

#include <memory>
#include <string>

#include "engine.hpp"

namespace ptxblas::dispatch {

// An engine for data type t on `stream` in the current context, or nullptr with the reason
// (no driver, no context, device older than sm_80, no stream-ordered allocator): the caller then
// forwards the whole routine.
std::unique_ptr<blas3::Engine> make_gpu_engine(gen::DataType t, void* stream, std::string& why);

// Reads `bytes` of scalar from device memory, ordered after the stream's earlier work (for
// routines whose control flow depends on alpha/beta in CUBLAS_POINTER_MODE_DEVICE).
bool read_device_scalar(const void* device_ptr, void* host, std::size_t bytes, void* stream, std::string& why);

// True when `stream` is being captured into a CUDA graph (false when the driver cannot tell).
bool stream_is_capturing(void* stream);

}  // namespace ptxblas::dispatch
