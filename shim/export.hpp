// Marks a function as part of the library's ABI (everything else is hidden; the version script
// shim/exports.map assigns version nodes).
#pragma once
#define PTXBLAS_EXPORT extern "C" __attribute__((visibility("default")))
