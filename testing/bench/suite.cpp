#include "suite.hpp"

#include <climits>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bench {
namespace {

bool valid_type(char t) { return t == 'S' || t == 'D' || t == 'C' || t == 'Z' || t == 'H' || t == 'B'; }
bool valid_op(char o) { return o == 'N' || o == 'T' || o == 'C'; }

Shape parse_row(const std::string& line, const std::string& where) {
  std::istringstream in(line);
  std::string type, ta, tb, extra;
  Shape s{};
  if (!(in >> type >> ta >> tb >> s.m >> s.n >> s.k >> s.name) || (in >> extra))
    throw std::runtime_error(where + ": expected `TYPE TRANSA TRANSB M N K NAME`");
  if (type.size() != 1 || !valid_type(type[0])) throw std::runtime_error(where + ": type must be S, D, C, Z, H or B");
  if (ta.size() != 1 || tb.size() != 1 || !valid_op(ta[0]) || !valid_op(tb[0]))
    throw std::runtime_error(where + ": ops must be N, T or C");
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > INT_MAX || s.n > INT_MAX || s.k > INT_MAX)
    throw std::runtime_error(where + ": M, N, K must be in 1..INT_MAX");
  s.type = type[0];
  s.transa = ta[0];
  s.transb = tb[0];
  return s;
}

}  // namespace

std::vector<Shape> read_suite(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read suite " + path);
  std::vector<Shape> shapes;
  std::string line;
  for (int no = 1; std::getline(f, line); ++no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    shapes.push_back(parse_row(line, path + ":" + std::to_string(no)));
  }
  return shapes;
}

bool matches(const Shape& s, const std::string& filter) {
  return filter.empty() || s.name.find(filter) != std::string::npos || filter == std::string(1, s.type);
}

Layout layout(const Shape& s) {
  Layout l{};
  const std::int64_t a_cols = s.transa == 'N' ? s.k : s.m;
  const std::int64_t b_cols = s.transb == 'N' ? s.n : s.k;
  l.lda = s.transa == 'N' ? s.m : s.k;
  l.ldb = s.transb == 'N' ? s.k : s.n;
  l.ldc = s.m;
  l.a_elems = static_cast<std::size_t>(l.lda * a_cols);
  l.b_elems = static_cast<std::size_t>(l.ldb * b_cols);
  l.c_elems = static_cast<std::size_t>(l.ldc * s.n);
  return l;
}

std::size_t elem_bytes(char type) {
  switch (type) {
    case 'H':
    case 'B': return 2;
    case 'S': return 4;
    case 'D':
    case 'C': return 8;
    case 'Z': return 16;
    default: return 0;
  }
}

bool is_complex(char type) { return type == 'C' || type == 'Z'; }

bool is_half(char type) { return type == 'H' || type == 'B'; }

double flops(const Shape& s) {
  return (is_complex(s.type) ? 8.0 : 2.0) * static_cast<double>(s.m) * static_cast<double>(s.n) *
         static_cast<double>(s.k);
}

}  // namespace bench
