// alpha/beta as the cuBLAS API passes them: behind a pointer, in one of five storage types.
#pragma once

#include <cstddef>

namespace ptxblas::shim {

enum class ScalarKind { F16, F32, F64, C32, C64 };

std::size_t scalar_bytes(ScalarKind kind);

// {re, im} of the scalar at p, a host pointer.
void read_host_scalar(ScalarKind kind, const void* p, double out[2]);

}  // namespace ptxblas::shim
