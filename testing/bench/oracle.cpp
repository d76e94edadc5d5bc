#include "oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace bench {
namespace {

struct Tile {
  const char* family;
  int ml, nl, u, ms, ns, vec;
  int store_pad = 0, stages = 1;
};

// Each tile as catalogued, and with store_pad (f16/bf16 mma) and two shared stages; 4-byte and
// wider types first with 3 and 4 cp.async stages, their usual winners (perf notes §28), since on
// the large shapes the search budget runs out after a few dozen candidates.
void with_variants(std::vector<Tile>& out, Tile t, bool half) {
  const int pads = std::string(t.family) == "mma" && half ? 2 : 1;
  static constexpr int kHalfStages[] = {1, 2}, kWideStages[] = {3, 4, 1, 2};
  for (int stages : half ? std::vector<int>(std::begin(kHalfStages), std::end(kHalfStages))
                         : std::vector<int>(std::begin(kWideStages), std::end(kWideStages)))
    for (int pad = 0; pad < pads; ++pad) {
      t.store_pad = pad;
      t.stages = stages;
      out.push_back(t);
    }
}

// Per type: the large-square winners and the catalog's tiles with their pipeline variants first,
// then other shapes.
std::vector<Tile> tiles_for(char type) {
  std::vector<Tile> out;
  auto add = [&](std::initializer_list<Tile> ts) {
    for (const Tile& t : ts) with_variants(out, t, type == 'H');
  };
  switch (type) {
    case 'S':
      add({{"simt", 128, 128, 8, 8, 8, 4}, {"simt", 64, 64, 8, 4, 4, 4}, {"simt", 32, 32, 8, 2, 2, 2},
           {"simt", 32, 32, 16, 2, 2, 2}, {"simt", 128, 64, 8, 8, 4, 4}});
      break;
    case 'C':
      add({{"simt", 64, 64, 8, 4, 4, 2}, {"simt", 64, 32, 8, 4, 2, 2}, {"simt", 32, 32, 8, 2, 2, 2}});
      break;
    case 'D':
      add({{"mma", 64, 128, 8, 32, 64, 1}, {"mma", 128, 64, 8, 64, 32, 1}, {"mma", 64, 64, 8, 32, 32, 1},
           {"mma", 32, 32, 16, 16, 16, 1}, {"mma", 64, 64, 16, 32, 32, 1}, {"mma", 128, 64, 16, 32, 32, 1},
           {"mma", 64, 32, 16, 32, 16, 1}, {"mma", 128, 128, 8, 64, 32, 1}, {"mma", 128, 64, 16, 64, 32, 1}});
      break;
    case 'Z':
      add({{"mma", 64, 32, 8, 32, 16, 1}, {"mma", 64, 64, 8, 64, 16, 1}, {"mma", 64, 32, 8, 16, 16, 1},
           {"mma", 32, 32, 16, 16, 16, 1}, {"mma", 64, 64, 8, 32, 16, 1}, {"mma", 32, 32, 8, 16, 16, 1},
           {"mma", 64, 32, 16, 32, 16, 1}, {"mma", 64, 64, 16, 32, 16, 1}});
      break;
    default:  // H: wgmma tiles first (the catalogue's, with other stage counts), then mma tiles
      out.insert(out.end(), {{"wgmma", 128, 256, 64, 64, 256, 1, 0, 4}, {"wgmma", 128, 128, 64, 64, 128, 1, 0, 3},
                             {"wgmma", 64, 128, 64, 64, 128, 1, 0, 4},  {"wgmma", 64, 64, 64, 64, 64, 1, 0, 4},
                             {"wgmma", 128, 256, 64, 64, 256, 1, 0, 3}, {"wgmma", 128, 128, 64, 64, 128, 1, 0, 4},
                             {"wgmma", 256, 128, 64, 64, 128, 1, 0, 4}, {"wgmma", 64, 64, 64, 64, 64, 1, 0, 6},
                             {"wgmma", 128, 256, 64, 64, 256, 1, 0, 2}, {"wgmma", 128, 128, 64, 64, 128, 1, 0, 2},
                             {"wgmma", 64, 128, 64, 64, 128, 1, 0, 2},  {"wgmma", 64, 256, 64, 64, 256, 1, 0, 4},
                             {"wgmma", 256, 128, 64, 128, 128, 1, 0, 4}});
      add({{"mma", 128, 128, 32, 64, 32, 1}, {"mma", 64, 64, 16, 32, 32, 1}, {"mma", 32, 32, 16, 16, 16, 1},
           {"mma", 64, 64, 32, 32, 32, 1}});
  }
  return out;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<std::string> oracle_candidates(const Shape& s, int multiprocessors) {
  std::vector<std::string> out;
  for (const Tile& t : tiles_for(s.type)) {
    const std::string base = std::string(t.family) + " " + std::to_string(t.ml) + " " + std::to_string(t.nl) + " " +
                             std::to_string(t.u) + " " + std::to_string(t.ms) + " " + std::to_string(t.ns) + " " +
                             std::to_string(t.vec);
    const std::string pipeline = " " + std::to_string(t.store_pad) + " " + std::to_string(t.stages);
    out.push_back(base + " 1" + pipeline);
    const std::int64_t blocks = ceil_div(s.m, t.ml) * ceil_div(s.n, t.nl);
    const std::int64_t want = ceil_div(2 * multiprocessors, std::max<std::int64_t>(blocks, 1));
    for (std::int64_t kg = 2; kg <= std::min<std::int64_t>(256, 2 * want) && kg * 2 * t.u <= s.k; kg *= 2)
      out.push_back(base + " " + std::to_string(kg) + pipeline);
  }
  return out;
}

}  // namespace bench
