// Per-type PTX vocabulary shared by the kernel emitters.
#pragma once

#include <string>

#include "kernel_config.hpp"

namespace ptxblas::gen {

struct TypeInfo {
  DataType data;
  bool cplx;
  std::string ct;    // compute type: f32 / f64
  std::string zero;  // literal 0 of ct
  int es;            // stored element bytes
  int cb;            // computed element bytes (shared memory)
  int part;          // bytes of one real part in compute type
};

inline TypeInfo type_info(DataType t) {
  TypeInfo ti{t, is_complex(t), "f32", "0f00000000", storage_bytes(t), compute_bytes(t), 4};
  if (t == DataType::F64 || t == DataType::C64) {
    ti.ct = "f64";
    ti.zero = "0d0000000000000000";
    ti.part = 8;
  }
  return ti;
}

// A value in compute precision: real part, and imaginary part for complex types.
struct Value {
  std::string re, im;
};

}  // namespace ptxblas::gen
