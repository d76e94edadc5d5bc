// Correctness of one shape: ptxblas's C against cuBLAS's C, both computed from the same inputs into
// NaN-poisoned buffers. A sanity check beside the timings; the GPU tests do the thorough job.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

struct CheckResult {
  double rel_err;    // max |ptx - cublas| / (max |cublas| + tiny), over real and imaginary parts
  double tolerance;
  bool nan;          // a NaN or Inf in either output (an element left unwritten shows as NaN)
  bool ok;
};

double tolerance(char type, std::int64_t k);

// `ptx` and `ref` hold the bytes of C (elements of `type`).
CheckResult compare(char type, std::int64_t k, const std::vector<unsigned char>& ptx,
                    const std::vector<unsigned char>& ref);

}  // namespace bench
