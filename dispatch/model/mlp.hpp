// A small fully connected network (ISAAC's performance model): ReLU between layers, linear
// output. Inference only; training lives in the tuner.
#pragma once

#include <cstdint>
#include <vector>

namespace ptxblas::model {

struct DenseLayer {
  int in = 0, out = 0;
  std::vector<float> w;  // out x in, row-major: w[o * in + i]
  std::vector<float> b;  // out
};

class Mlp {
 public:
  Mlp() = default;
  explicit Mlp(std::vector<DenseLayer> layers);  // throws std::invalid_argument if sizes mismatch

  // Layer widths {inputs, hidden..., outputs}, weights drawn He-uniform from `seed`, biases 0.
  static Mlp random(const std::vector<int>& widths, std::uint64_t seed);

  int inputs() const { return layers_.empty() ? 0 : layers_.front().in; }
  int outputs() const { return layers_.empty() ? 0 : layers_.back().out; }
  std::vector<int> widths() const;
  std::size_t parameter_count() const;

  // rows x inputs() (row-major) -> rows x outputs().
  void predict(const float* x, int rows, float* out) const;

  const std::vector<DenseLayer>& layers() const { return layers_; }
  std::vector<DenseLayer>& layers() { return layers_; }

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace ptxblas::model
