// A small fully connected network (ISAAC's performance model): ReLU between layers, linear
// output. Inference only; training lives in the tuner. Layers may be grouped (block-diagonal),
// which is how several networks averaged into one (an ensemble) run as a single network.
#pragma once

#include <cstdint>
#include <vector>

namespace ptxblas::model {

struct DenseLayer {
  int in = 0, out = 0;
  std::vector<float> w;  // per group, out/groups x in/groups row-major: w[(g * og + o) * ig + i]
  std::vector<float> b;  // out
  // groups > 1: block-diagonal, output block g (out / groups wide) sees only input block g
  // (in / groups wide). An ensemble's members side by side are such layers (tuner/ensemble.hpp).
  int groups = 1;
};

class Mlp {
 public:
  Mlp() = default;
  explicit Mlp(std::vector<DenseLayer> layers);  // throws std::invalid_argument if sizes mismatch

  // Layer widths {inputs, hidden..., outputs}, dense, weights drawn He-uniform from `seed`, biases 0.
  static Mlp random(const std::vector<int>& widths, std::uint64_t seed);

  int inputs() const { return layers_.empty() ? 0 : layers_.front().in; }
  int outputs() const { return layers_.empty() ? 0 : layers_.back().out; }
  std::vector<int> widths() const;
  std::size_t parameter_count() const;

  // rows x inputs() (row-major) -> rows x outputs().
  void predict(const float* x, int rows, float* out) const;

  // Member k of an ensemble of `members` networks folded into this one (tuner::ensemble_of):
  // its own first rows, hidden blocks and output weights. Its output is the member's up to a
  // constant (the folded output bias is the members' mean), which is all that ranking
  // candidates or comparing two of them needs. Throws std::invalid_argument if this network is
  // not such a fold.
  Mlp member(int members, int k) const;

  const std::vector<DenseLayer>& layers() const { return layers_; }
  std::vector<DenseLayer>& layers() { return layers_; }

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace ptxblas::model
