// The CPU engine: every primitive as plain loops in the routine's own precision, on host memory.
// It exists so that CI checks the adaptors' arithmetic against the reference BLAS without a GPU.
#pragma once

#include <memory>

#include "engine.hpp"

namespace ptxblas::blas3 {

// An engine for F32, F64, C32 or C64 data (throws std::invalid_argument for others). max_inverse:
// the largest diagonal block it inverts (TRSM's leaves are at most that wide).
std::unique_ptr<Engine> make_cpu_engine(DataType t, std::int64_t max_inverse = 1 << 30);

}  // namespace ptxblas::blas3
