#include "mlp.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace ptxblas::model {

Mlp::Mlp(std::vector<DenseLayer> layers) : layers_(std::move(layers)) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const DenseLayer& l = layers_[i];
    if (l.in <= 0 || l.out <= 0 || l.w.size() != static_cast<std::size_t>(l.in) * l.out ||
        l.b.size() != static_cast<std::size_t>(l.out))
      throw std::invalid_argument("MLP layer " + std::to_string(i) + " has inconsistent sizes");
    if (i > 0 && layers_[i - 1].out != l.in)
      throw std::invalid_argument("MLP layer " + std::to_string(i) + " does not follow its predecessor");
  }
}

Mlp Mlp::random(const std::vector<int>& widths, std::uint64_t seed) {
  if (widths.size() < 2) throw std::invalid_argument("an MLP needs at least inputs and outputs");
  std::mt19937_64 rng(seed);
  std::vector<DenseLayer> layers;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    DenseLayer l;
    l.in = widths[i];
    l.out = widths[i + 1];
    const float limit = std::sqrt(6.0f / static_cast<float>(l.in));
    std::uniform_real_distribution<float> u(-limit, limit);
    l.w.resize(static_cast<std::size_t>(l.in) * l.out);
    for (float& w : l.w) w = u(rng);
    l.b.assign(static_cast<std::size_t>(l.out), 0.0f);
    layers.push_back(std::move(l));
  }
  return Mlp(std::move(layers));
}

std::vector<int> Mlp::widths() const {
  std::vector<int> w;
  if (layers_.empty()) return w;
  w.push_back(layers_.front().in);
  for (const DenseLayer& l : layers_) w.push_back(l.out);
  return w;
}

std::size_t Mlp::parameter_count() const {
  std::size_t n = 0;
  for (const DenseLayer& l : layers_) n += l.w.size() + l.b.size();
  return n;
}

void Mlp::predict(const float* x, int rows, float* out) const {
  if (layers_.empty() || rows <= 0) return;
  std::vector<float> cur(x, x + static_cast<std::size_t>(rows) * inputs()), next;
  for (std::size_t li = 0; li < layers_.size(); ++li) {
    const DenseLayer& l = layers_[li];
    const bool relu = li + 1 < layers_.size();
    next.assign(static_cast<std::size_t>(rows) * l.out, 0.0f);
    for (int r = 0; r < rows; ++r) {
      const float* in = cur.data() + static_cast<std::size_t>(r) * l.in;
      float* o = next.data() + static_cast<std::size_t>(r) * l.out;
      for (int j = 0; j < l.out; ++j) {
        const float* w = l.w.data() + static_cast<std::size_t>(j) * l.in;
        float s = l.b[static_cast<std::size_t>(j)];
        for (int i = 0; i < l.in; ++i) s += w[i] * in[i];
        o[j] = relu ? std::max(s, 0.0f) : s;
      }
    }
    cur.swap(next);
  }
  std::copy(cur.begin(), cur.end(), out);
}

}  // namespace ptxblas::model
