// The tuning space the model searches (ISAAC's parameters that this generator implements, plus
// the split of K over blocks), its pruning rules (BACUGen-style performance guidelines on top of
// the hard legality of resources.hpp), and its enumeration. Pure: no CUDA.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "kernel_config.hpp"
#include "resources.hpp"

namespace ptxblas::gen {

// One point of the space: the block/thread (or warp) tile and K-step of KernelConfig, KG (slices
// of K run by separate blocks and summed by the split-K reduction), the instruction family
// (0: SIMT FMA, 1: mma.sync; ms x ns is then the warp tile; 2: wgmma, which the model's space
// does not hold yet), the shared-memory stages (1-2 staged through registers, 3-4 by cp.async;
// kernel_config.hpp) and the f16/bf16 store padding.
struct Tuning {
  int ml = 64, nl = 64, u = 8, ms = 4, ns = 4, vec = 1, kg = 1;
  int family = 0, stages = 1, pad = 0;
  bool operator==(const Tuning&) const = default;
};

inline constexpr int kTuningParams = 10;
// The first kLogParams are sizes (the model sees their log2); the rest are categorical flags.
inline constexpr int kLogParams = 7;

// Categorical values of each parameter, in the order ml, nl, u, ms, ns, vec, kg, family, stages,
// pad.
const std::array<std::vector<int>, kTuningParams>& tuning_values();
const char* tuning_param_name(int i);
int tuning_value(const Tuning& t, int i);
void set_tuning_value(Tuning& t, int i, int v);

// The kernel configuration of `t` for a problem of `base`'s type and ops.
KernelConfig apply_tuning(KernelConfig base, const Tuning& t);

// Performance guidelines that remove legal but hopeless points (BACUGen): enough threads to hide
// latency, enough elements per thread for register reuse.
struct Pruning {
  int min_threads = 64;
  int min_thread_tile = 4;  // ms * ns: register reuse
};

// Empty when `t` is legal for this type on this device and survives pruning; else why not.
std::string why_excluded(DataType data, const Tuning& t, const Limits& lim = {}, const Pruning& p = {});
// The same without allocating: nullptr when not excluded.
const char* exclusion_reason(DataType data, const Tuning& t, const Limits& lim = {}, const Pruning& p = {});

// Calls fn(t) for every combination of the listed values of every parameter but kg (t.kg = 1),
// in a fixed order: kg does not change a kernel, so legality is judged once per tile.
void for_each_tile(const std::function<void(const Tuning&)>& fn);

// Every point that is not excluded, for type `data` (ops do not change legality).
std::vector<Tuning> enumerate_space(DataType data, const Limits& lim = {}, const Pruning& p = {});

// enumerate_space is the concatenation, in space_parts() order, of its parts (one per family and
// stage count), which a caller may enumerate on threads of its own: a new type's space is most of
// the host time of its first call (~25 ms on one core).
struct SpacePart {
  int family = 0;
  int stages = 1;
};
std::vector<SpacePart> space_parts();
std::vector<Tuning> enumerate_space_part(DataType data, int family, int stages, const Limits& lim = {},
                                         const Pruning& p = {});

// "simt_s_nn_64x64x8_4x4_v4 kg=8"-style name of a configuration.
std::string tuning_name(const KernelConfig& base, const Tuning& t);

}  // namespace ptxblas::gen
