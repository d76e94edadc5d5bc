// Level-3 suite files: `ROUTINE TYPE SIDE UPLO TRANS DIAG M N K NAME`, one a line, '#' comments;
// '-' where a routine has no such argument. ROUTINE is symm hemm syrk herk syr2k her2k syrkx
// herkx trmm trsm; TYPE S D C Z. SYRK-like routines use N (C is n x n) and K; the others M, N.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct L3Shape {
  std::string routine;
  char type, side, uplo, trans, diag;
  std::int64_t m, n, k;
  std::string name;
};

std::vector<L3Shape> read_l3_suite(const std::string& path);  // throws std::runtime_error (file:line)

bool rank_k_routine(const std::string& r);  // syrk herk syr2k her2k syrkx herkx
double l3_flops(const L3Shape& s);           // real operations (complex: 4 per multiply-add pair)

}  // namespace bench
