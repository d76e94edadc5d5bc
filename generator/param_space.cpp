#include "param_space.hpp"

#include <stdexcept>

namespace ptxblas::gen {

const std::array<std::vector<int>, kTuningParams>& tuning_values() {
  static const std::array<std::vector<int>, kTuningParams> v = {{
      {16, 32, 64, 128, 256},                // ml
      {16, 32, 64, 128, 256},                // nl
      {4, 8, 16, 32},                        // u
      {1, 2, 4, 8, 16, 32, 64},              // ms (thread tile; warp tile for mma)
      {1, 2, 4, 8, 16, 32, 64},              // ns
      {1, 2, 4},                             // vec
      {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128},  // kg: 3s too, for whole waves of 132 SMs
      {0, 1},                                // family: SIMT, mma
      {1, 2, 3, 4},                          // stages: 3 and 4 fill shared memory by cp.async
      {0, 1},                                // pad (f16/bf16 mma only)
  }};
  return v;
}

const char* tuning_param_name(int i) {
  static const char* names[kTuningParams] = {"ml", "nl", "u", "ms", "ns", "vec", "kg", "family", "stages", "pad"};
  if (i < 0 || i >= kTuningParams) throw std::out_of_range("tuning parameter index");
  return names[i];
}

int tuning_value(const Tuning& t, int i) {
  switch (i) {
    case 0: return t.ml;
    case 1: return t.nl;
    case 2: return t.u;
    case 3: return t.ms;
    case 4: return t.ns;
    case 5: return t.vec;
    case 6: return t.kg;
    case 7: return t.family;
    case 8: return t.stages;
    case 9: return t.pad;
    default: throw std::out_of_range("tuning parameter index");
  }
}

void set_tuning_value(Tuning& t, int i, int v) {
  switch (i) {
    case 0: t.ml = v; break;
    case 1: t.nl = v; break;
    case 2: t.u = v; break;
    case 3: t.ms = v; break;
    case 4: t.ns = v; break;
    case 5: t.vec = v; break;
    case 6: t.kg = v; break;
    case 7: t.family = v; break;
    case 8: t.stages = v; break;
    case 9: t.pad = v; break;
    default: throw std::out_of_range("tuning parameter index");
  }
}

KernelConfig apply_tuning(KernelConfig base, const Tuning& t) {
  base.ml = t.ml;
  base.nl = t.nl;
  base.u = t.u;
  base.ms = t.ms;
  base.ns = t.ns;
  base.vec = t.vec;
  base.family = t.family == 2 ? Family::Wgmma : t.family ? Family::Mma : Family::Simt;
  base.stages = t.stages;
  base.store_pad = t.pad != 0;
  return canonical(base);
}

const char* exclusion_reason(DataType data, const Tuning& t, const Limits& lim, const Pruning& p) {
  KernelConfig c;
  c.data = data;
  c = apply_tuning(c, t);
  // SIMT legality does not depend on the layout; an mma tile's shared-memory loads do (operands
  // copied along M/N stay [k][mn]), so it must be legal for every layout the dispatcher may use.
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T}) {
      if (t.family == 0 && (a != Op::N || b != Op::N)) continue;
      KernelConfig l = c;
      l.op_a = a;
      l.op_b = b;
      if (const char* why = illegal_reason(canonical(l), lim)) return why;
    }
  if (t.kg < 1) return "kg below 1";
  if (t.family != 0 && t.family != 1) return "family must be 0 (SIMT) or 1 (mma)";
  if (t.pad != 0 && t.pad != 1) return "pad must be 0 or 1";
  if (c.threads() < p.min_threads) return "pruned: fewer threads than the minimum";
  if (t.ms * t.ns < p.min_thread_tile) return "pruned: thread tile below the minimum";
  return nullptr;
}

std::string why_excluded(DataType data, const Tuning& t, const Limits& lim, const Pruning& p) {
  const char* why = exclusion_reason(data, t, lim, p);
  return why ? why : "";
}

namespace {

void for_each_tile_of(int family, int stages, const std::function<void(const Tuning&)>& fn) {
  const auto& v = tuning_values();
  for (int pad : v[9])
    for (int ml : v[0])
      for (int nl : v[1])
        for (int u : v[2])
          for (int ms : v[3])
            for (int ns : v[4])
              for (int vec : v[5]) fn(Tuning{ml, nl, u, ms, ns, vec, 1, family, stages, pad});
}

}  // namespace

std::vector<SpacePart> space_parts() {
  std::vector<SpacePart> parts;
  for (int family : tuning_values()[7])
    for (int stages : tuning_values()[8]) parts.push_back({family, stages});
  return parts;
}

void for_each_tile(const std::function<void(const Tuning&)>& fn) {
  for (const SpacePart& part : space_parts()) for_each_tile_of(part.family, part.stages, fn);
}

std::vector<Tuning> enumerate_space_part(DataType data, int family, int stages, const Limits& lim,
                                         const Pruning& p) {
  std::vector<Tuning> out;
  for_each_tile_of(family, stages, [&](const Tuning& tile) {
    if (exclusion_reason(data, tile, lim, p)) return;
    for (int kg : tuning_values()[6]) {
      Tuning t = tile;
      t.kg = kg;
      out.push_back(t);
    }
  });
  return out;
}

std::vector<Tuning> enumerate_space(DataType data, const Limits& lim, const Pruning& p) {
  std::vector<Tuning> out;
  for (const SpacePart& part : space_parts()) {
    const std::vector<Tuning> some = enumerate_space_part(data, part.family, part.stages, lim, p);
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

std::string tuning_name(const KernelConfig& base, const Tuning& t) {
  std::string s = kernel_name(apply_tuning(base, t));
  if (t.kg > 1) s += " kg=" + std::to_string(t.kg);
  return s;
}

}  // namespace ptxblas::gen
