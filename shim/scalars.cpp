#include "scalars.hpp"

#include <cuComplex.h>
#include <cuda_fp16.h>

namespace ptxblas::shim {

std::size_t scalar_bytes(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F16: return 2;
    case ScalarKind::F32: return 4;
    case ScalarKind::F64:
    case ScalarKind::C32: return 8;
    case ScalarKind::C64: return 16;
  }
  return 0;
}

void read_host_scalar(ScalarKind kind, const void* p, double out[2]) {
  out[1] = 0;
  switch (kind) {
    case ScalarKind::F16: out[0] = __half2float(*static_cast<const __half*>(p)); break;
    case ScalarKind::F32: out[0] = *static_cast<const float*>(p); break;
    case ScalarKind::F64: out[0] = *static_cast<const double*>(p); break;
    case ScalarKind::C32: {
      const auto* z = static_cast<const cuComplex*>(p);
      out[0] = z->x;
      out[1] = z->y;
      break;
    }
    case ScalarKind::C64: {
      const auto* z = static_cast<const cuDoubleComplex*>(p);
      out[0] = z->x;
      out[1] = z->y;
      break;
    }
  }
}

}  // namespace ptxblas::shim
