#include "oracle.hpp"

#include <algorithm>
#include <cstdint>

namespace bench {
namespace {

struct Tile {
  const char* family;
  int ml, nl, u, ms, ns, vec;
};

// Per type: the catalog's tiles, the other family's, and deeper K-steps.
std::vector<Tile> tiles_for(char type) {
  switch (type) {
    case 'S':
    case 'C':
      return {{"simt", 128, 128, 8, 8, 8, 4}, {"simt", 64, 64, 8, 4, 4, 4},  {"simt", 32, 32, 8, 2, 2, 2},
              {"simt", 128, 64, 8, 8, 4, 4},  {"simt", 64, 64, 8, 4, 4, 2},  {"simt", 64, 32, 8, 4, 2, 2},
              {"simt", 32, 32, 16, 2, 2, 2},  {"simt", 16, 16, 16, 1, 1, 1}};
    case 'D':
      return {{"mma", 128, 64, 8, 32, 32, 1},  {"mma", 64, 64, 8, 32, 32, 1},  {"mma", 32, 32, 8, 16, 16, 1},
              {"mma", 128, 64, 16, 32, 32, 1}, {"mma", 64, 64, 16, 32, 32, 1}, {"mma", 32, 32, 16, 16, 16, 1},
              {"mma", 64, 32, 16, 32, 16, 1},  {"simt", 128, 64, 8, 8, 4, 2},  {"simt", 32, 32, 8, 2, 2, 2}};
    case 'Z':
      return {{"mma", 64, 64, 8, 32, 16, 1},  {"mma", 64, 32, 8, 16, 16, 1},  {"mma", 32, 32, 8, 16, 16, 1},
              {"mma", 64, 64, 16, 32, 16, 1}, {"mma", 32, 32, 16, 16, 16, 1}, {"mma", 64, 32, 16, 32, 16, 1},
              {"simt", 64, 64, 4, 4, 4, 1},   {"simt", 32, 32, 8, 2, 2, 1}};
    default:  // H
      return {{"mma", 128, 128, 16, 64, 32, 1}, {"mma", 64, 64, 16, 32, 32, 1}, {"mma", 32, 32, 16, 16, 16, 1},
              {"mma", 128, 128, 32, 64, 32, 1}, {"mma", 128, 64, 32, 64, 32, 1}, {"mma", 64, 64, 32, 32, 32, 1},
              {"mma", 128, 64, 16, 32, 32, 1},  {"mma", 32, 32, 32, 16, 16, 1}, {"simt", 128, 128, 8, 8, 8, 4}};
  }
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<std::string> oracle_candidates(const Shape& s, int multiprocessors) {
  std::vector<std::string> out;
  for (const Tile& t : tiles_for(s.type)) {
    const std::string base = std::string(t.family) + " " + std::to_string(t.ml) + " " + std::to_string(t.nl) + " " +
                             std::to_string(t.u) + " " + std::to_string(t.ms) + " " + std::to_string(t.ns) + " " +
                             std::to_string(t.vec);
    out.push_back(base + " 1");
    const std::int64_t blocks = ceil_div(s.m, t.ml) * ceil_div(s.n, t.nl);
    const std::int64_t want = ceil_div(2 * multiprocessors, std::max<std::int64_t>(blocks, 1));
    for (std::int64_t kg = 2; kg <= std::min<std::int64_t>(256, 2 * want) && kg * 2 * t.u <= s.k; kg *= 2)
      out.push_back(base + " " + std::to_string(kg));
  }
  return out;
}

}  // namespace bench
