#include "ensemble.hpp"

#include <algorithm>
#include <stdexcept>

namespace ptxblas::tuner {

model::Mlp ensemble_of(const std::vector<model::Mlp>& members) {
  if (members.empty()) throw std::invalid_argument("an ensemble needs at least one member");
  const std::vector<int> widths = members.front().widths();
  for (const model::Mlp& m : members) {
    if (m.widths() != widths) throw std::invalid_argument("ensemble members differ in widths");
    for (const model::DenseLayer& l : m.layers())
      if (l.groups != 1) throw std::invalid_argument("ensemble members must be dense");
  }
  if (widths.back() != 1) throw std::invalid_argument("ensemble members must have one output");
  const int n = static_cast<int>(members.size());
  const std::size_t last = widths.size() - 2;
  std::vector<model::DenseLayer> layers;
  for (std::size_t li = 0; li <= last; ++li) {
    model::DenseLayer l;
    const model::DenseLayer& first = members.front().layers()[li];
    l.in = li == 0 ? first.in : first.in * n;
    l.out = li == last ? 1 : first.out * n;
    // The first layer reads the shared inputs (one dense layer of stacked rows), hidden layers
    // read their own member's block, the output layer sums every member's block.
    l.groups = li == 0 || li == last ? 1 : n;
    l.b.assign(static_cast<std::size_t>(l.out), 0.0f);
    for (int k = 0; k < n; ++k) {
      const model::DenseLayer& src = members[static_cast<std::size_t>(k)].layers()[li];
      if (li == last) {
        for (float w : src.w) l.w.push_back(w / static_cast<float>(n));
        l.b[0] += src.b[0] / static_cast<float>(n);
      } else {
        l.w.insert(l.w.end(), src.w.begin(), src.w.end());
        std::copy(src.b.begin(), src.b.end(), l.b.begin() + static_cast<std::ptrdiff_t>(k) * src.out);
      }
    }
    if (li == 0 && li == last) {  // a single linear layer: the members' mean weights
      std::vector<float> mean(static_cast<std::size_t>(first.in), 0.0f);
      for (int k = 0; k < n; ++k)
        for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += l.w[static_cast<std::size_t>(k) * mean.size() + i];
      l.w = mean;
    }
    layers.push_back(std::move(l));
  }
  return model::Mlp(std::move(layers));
}

model::Model merge_models(const std::vector<model::Model>& models) {
  if (models.empty()) throw std::invalid_argument("nothing to merge");
  const model::Model& first = models.front();
  model::Model out = first;
  std::vector<model::Mlp> members;
  out.trained_with = "merge of " + std::to_string(models.size()) + " models:";
  for (const model::Model& m : models) {
    // The same inputs: each network saw features normalised the same way.
    if (m.mean != first.mean || m.stddev != first.stddev || m.device_key != first.device_key)
      throw std::invalid_argument("models to merge must be trained on the same rows for one device");
    for (int k = 0; k < m.members; ++k) members.push_back(m.members == 1 ? m.mlp : m.mlp.member(m.members, k));
    out.max_flops = std::max(out.max_flops, m.max_flops);
    out.max_stages = std::max(out.max_stages, m.max_stages);
    out.trained_with += " [" + m.trained_with + "]";
  }
  out.mlp = ensemble_of(members);
  out.members = static_cast<int>(members.size());
  return out;
}

}  // namespace ptxblas::tuner
