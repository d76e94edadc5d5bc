#include "check.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "suite.hpp"

namespace bench {
namespace {

// Part i (real and imaginary parts counted separately) of a C buffer, as double.
double part(char type, const std::vector<unsigned char>& bytes, std::size_t i) {
  switch (type) {
    case 'H': {
      __half h;
      std::memcpy(&h, bytes.data() + i * sizeof h, sizeof h);
      return __half2float(h);
    }
    case 'B': {
      __nv_bfloat16 b;
      std::memcpy(&b, bytes.data() + i * sizeof b, sizeof b);
      return __bfloat162float(b);
    }
    case 'S':
    case 'C': {
      float f;
      std::memcpy(&f, bytes.data() + i * sizeof f, sizeof f);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, bytes.data() + i * sizeof d, sizeof d);
      return d;
    }
  }
}

std::size_t part_bytes(char type) { return is_half(type) ? 2 : (type == 'S' || type == 'C') ? 4 : 8; }

}  // namespace

double tolerance(char type, std::int64_t k) {
  const double rk = std::sqrt(static_cast<double>(k));
  switch (type) {
    case 'S':
    case 'C': return 1e-5 * rk + 1e-5;
    case 'D':
    case 'Z': return 1e-12 * rk;
    // f32 sums rounded to 8 significant bits on both sides: at most one bf16 ulp (2^-7) apart.
    case 'B': return 1e-2;
    // cublasHgemm may accumulate in half precision: its own error grows with sqrt(k).
    default: return 1e-2 * std::max(1.0, rk / 32.0);
  }
}

CheckResult compare(char type, std::int64_t k, const std::vector<unsigned char>& ptx,
                    const std::vector<unsigned char>& ref) {
  CheckResult r{0, tolerance(type, k), false, false};
  const std::size_t parts = std::min(ptx.size(), ref.size()) / part_bytes(type);
  double max_diff = 0, max_ref = 0;
  for (std::size_t i = 0; i < parts; ++i) {
    const double p = part(type, ptx, i), c = part(type, ref, i);
    if (!std::isfinite(p) || !std::isfinite(c)) {
      r.nan = true;
      continue;
    }
    max_diff = std::max(max_diff, std::abs(p - c));
    max_ref = std::max(max_ref, std::abs(c));
  }
  r.rel_err = max_diff / (max_ref + 1e-300);
  r.ok = !r.nan && r.rel_err <= r.tolerance && ptx.size() == ref.size();
  return r;
}

}  // namespace bench
