#include "oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
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

// Every tile of `ts` with its variants, appended to `out`.
void add_with_variants(std::vector<Tile>& out, std::initializer_list<Tile> ts, bool half) {
  for (const Tile& t : ts) with_variants(out, t, half);
}

// Per type: the large-square winners and the catalog's tiles with their pipeline variants first,
// then other shapes.
std::vector<Tile> tiles_for(char type) {
  std::vector<Tile> out;
  auto add = [&](std::initializer_list<Tile> ts) { add_with_variants(out, ts, is_half(type)); };
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
    default:  // H and B: wgmma tiles first (the catalogue's, with other stage counts), then mma tiles
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

// Narrow tiles for a C at most 16 wide on one side (deepbench's N = 16): a 16-wide side spends
// no FMA or DMMA slot on rows or columns that C lacks, and the long side streams the large
// operand in long runs (perf notes §70: the oracle's best at N = 16; at N = 32 only f32's beat
// the catalogue's 32-wide tiles, §71, and H's wgmma tiles beat every narrow mma tile; c64's
// 32-deep 32x32 blocks beat them later, §94). Listed for a narrow N; a narrow M gets them
// mirrored.
std::vector<Tile> narrow_tiles(char type, int width) {
  std::vector<Tile> out;
  auto add = [&](std::initializer_list<Tile> ts) { add_with_variants(out, ts, false); };
  if (width > 16) {
    if (type == 'S') add({{"simt", 256, 32, 8, 8, 8, 4}, {"simt", 128, 32, 16, 4, 4, 4}});
    if (type == 'Z') add({{"mma", 32, 32, 32, 16, 16, 1}});
    return out;
  }
  switch (type) {
    case 'S':
      add({{"simt", 256, 16, 8, 16, 4, 4}, {"simt", 128, 16, 32, 4, 4, 4}, {"simt", 128, 16, 16, 4, 4, 4},
           {"simt", 64, 16, 32, 4, 4, 4}, {"simt", 128, 16, 8, 8, 2, 2}});
      break;
    case 'D':
      add({{"mma", 128, 16, 32, 32, 16, 1}, {"mma", 128, 16, 32, 16, 16, 1}, {"mma", 256, 16, 8, 64, 16, 1},
           {"mma", 64, 16, 32, 16, 16, 1}, {"mma", 128, 16, 16, 32, 16, 1}});
      break;
    case 'Z':
      add({{"mma", 32, 16, 16, 32, 8, 1}, {"mma", 32, 16, 32, 16, 8, 1}, {"mma", 64, 16, 32, 16, 16, 1},
           {"mma", 64, 16, 16, 32, 8, 1}, {"mma", 128, 16, 16, 32, 16, 1}});
      break;
    default:
      break;
  }
  return out;
}

Tile mirrored(Tile t) {
  std::swap(t.ml, t.nl);
  std::swap(t.ms, t.ns);
  return t;
}

// The narrow tiles first where C is at most 32 wide on one side (and the other side is wider),
// f64's 32-deep skinny tile where it is 113-128 wide (dispatch's plan_skinny, §94), then the
// per-type list.
std::vector<Tile> candidate_tiles(const Shape& s) {
  std::vector<Tile> out;
  const std::int64_t narrow = std::min(s.m, s.n), wide = std::max(s.m, s.n);
  if (narrow <= 32 && wide > 32)
    for (const Tile& t : narrow_tiles(s.type, narrow <= 16 ? 16 : 32)) out.push_back(s.n <= s.m ? t : mirrored(t));
  if (s.type == 'D' && narrow > 112 && narrow <= 128 && wide > 128) {
    std::vector<Tile> skinny;
    add_with_variants(skinny, {{"mma", 128, 64, 32, 32, 32, 1}}, false);
    for (const Tile& t : skinny) out.push_back(s.n <= s.m ? t : mirrored(t));
  }
  const std::vector<Tile> rest = tiles_for(s.type);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<std::string> oracle_candidates(const Shape& s, int multiprocessors) {
  std::vector<std::string> out;
  for (const Tile& t : candidate_tiles(s)) {
    const std::string base = std::string(t.family) + " " + std::to_string(t.ml) + " " + std::to_string(t.nl) + " " +
                             std::to_string(t.u) + " " + std::to_string(t.ms) + " " + std::to_string(t.ns) + " " +
                             std::to_string(t.vec);
    const std::string pipeline = std::string(" ") + std::to_string(t.store_pad) + " " + std::to_string(t.stages);
    out.push_back(base + " 1" + pipeline);
    const std::int64_t blocks = ceil_div(s.m, t.ml) * ceil_div(s.n, t.nl);
    const std::int64_t want = ceil_div(2 * multiprocessors, std::max<std::int64_t>(blocks, 1));
    for (std::int64_t kg = 2; kg <= std::min<std::int64_t>(256, 2 * want) && kg * 2 * t.u <= s.k; kg *= 2)
      out.push_back(base + " " + std::to_string(kg) + pipeline);
    // And the split that gives every SM one block, where that is not a power of two: big blocks
    // overrunning the SMs by a part-round lose up to a third (perf notes §76).
    const std::int64_t one_round = multiprocessors / std::max<std::int64_t>(blocks, 1);
    if (one_round > 2 && (one_round & (one_round - 1)) != 0 && one_round <= 256 && one_round * 2 * t.u <= s.k)
      out.push_back(base + " " + std::to_string(one_round) + pipeline);
  }
  return out;
}

}  // namespace bench
