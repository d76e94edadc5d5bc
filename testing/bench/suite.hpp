// Suite files: one GEMM shape a line, `TYPE TRANSA TRANSB M N K NAME` (column-major, cuBLAS
// conventions), '#' starts a comment. TYPE is S, D, C, Z, H (cublasHgemm) or B (cublasGemmEx on
// bf16 with f32 compute and scalars); ops are N, T or C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct Shape {
  char type;  // S D C Z H B
  char transa, transb;
  std::int64_t m, n, k;
  std::string name;
};

// Throws std::runtime_error naming the file and line of the first malformed row.
std::vector<Shape> read_suite(const std::string& path);

// --filter: the name contains `filter`, or `filter` is the type letter ("" matches everything).
bool matches(const Shape& s, const std::string& filter);

// Storage of the operands as passed to cuBLAS (lda = rows of the stored A, and so on).
struct Layout {
  std::int64_t lda, ldb, ldc;
  std::size_t a_elems, b_elems, c_elems;
};
Layout layout(const Shape& s);

std::size_t elem_bytes(char type);
bool is_complex(char type);
bool is_half(char type);  // H or B: 2-byte elements, the tensor-core tile lists
double flops(const Shape& s);  // 2mnk, or 8mnk real operations for complex types

}  // namespace bench
