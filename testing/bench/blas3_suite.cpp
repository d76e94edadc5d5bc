#include "blas3_suite.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace bench {

bool rank_k_routine(const std::string& r) {
  return r == "syrk" || r == "herk" || r == "syr2k" || r == "her2k" || r == "syrkx" || r == "herkx";
}

std::vector<L3Shape> read_l3_suite(const std::string& path) {
  static const std::set<std::string> kRoutines = {"symm", "hemm",  "syrk",  "herk", "syr2k",
                                                  "her2k", "syrkx", "herkx", "trmm", "trsm"};
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<L3Shape> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream is(line);
    L3Shape s;
    if (!(is >> s.routine)) continue;
    std::string t, side, uplo, trans, diag;
    if (!(is >> t >> side >> uplo >> trans >> diag >> s.m >> s.n >> s.k >> s.name) || !kRoutines.count(s.routine) ||
        t.size() != 1 || std::string("SDCZ").find(t[0]) == std::string::npos ||
        ((s.routine[0] == 'h') && (t[0] == 'S' || t[0] == 'D')) || s.m < 0 || s.n < 0 || s.k < 0)
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected ROUTINE TYPE SIDE UPLO TRANS DIAG M N K NAME");
    s.type = t[0];
    s.side = side[0];
    s.uplo = uplo[0];
    s.trans = trans[0];
    s.diag = diag[0];
    out.push_back(s);
  }
  return out;
}

double l3_flops(const L3Shape& s) {
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double cplx = (s.type == 'C' || s.type == 'Z') ? 4.0 : 1.0;
  const double dim = s.side == 'L' ? m : n;
  if (s.routine == "symm" || s.routine == "hemm") return cplx * 2.0 * m * n * dim;
  if (s.routine == "syrk" || s.routine == "herk" || s.routine == "syrkx" || s.routine == "herkx")
    return cplx * n * (n + 1) * k;
  if (s.routine == "syr2k" || s.routine == "her2k") return cplx * 2.0 * n * (n + 1) * k;
  return cplx * m * n * dim;  // trmm, trsm
}

}  // namespace bench
