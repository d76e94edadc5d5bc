#include "sampler.hpp"

#include <cmath>

namespace ptxblas::tuner {

gen::Tuning draw_uniform(std::mt19937_64& rng) {
  gen::Tuning t;
  const auto& values = gen::tuning_values();
  for (int i = 0; i < gen::kTuningParams; ++i) {
    std::uniform_int_distribution<std::size_t> pick(0, values[static_cast<std::size_t>(i)].size() - 1);
    gen::set_tuning_value(t, i, values[static_cast<std::size_t>(i)][pick(rng)]);
  }
  return t;
}

CategoricalSampler::CategoricalSampler(double alpha) {
  const auto& values = gen::tuning_values();
  for (int i = 0; i < gen::kTuningParams; ++i)
    counts_[static_cast<std::size_t>(i)].assign(values[static_cast<std::size_t>(i)].size(), alpha);
}

void CategoricalSampler::learn(gen::DataType t, int draws, std::mt19937_64& rng, const gen::Limits& lim) {
  const auto& values = gen::tuning_values();
  for (int d = 0; d < draws; ++d) {
    const gen::Tuning x = draw_uniform(rng);
    if (!gen::why_excluded(t, x, lim).empty()) continue;
    for (int i = 0; i < gen::kTuningParams; ++i) {
      const auto& vs = values[static_cast<std::size_t>(i)];
      for (std::size_t j = 0; j < vs.size(); ++j)
        if (vs[j] == gen::tuning_value(x, i)) counts_[static_cast<std::size_t>(i)][j] += 1;
    }
  }
}

gen::Tuning CategoricalSampler::draw(std::mt19937_64& rng) const {
  gen::Tuning t;
  const auto& values = gen::tuning_values();
  for (int i = 0; i < gen::kTuningParams; ++i) {
    const auto& c = counts_[static_cast<std::size_t>(i)];
    std::discrete_distribution<std::size_t> pick(c.begin(), c.end());
    gen::set_tuning_value(t, i, values[static_cast<std::size_t>(i)][pick(rng)]);
  }
  return t;
}

double CategoricalSampler::probability(int param, std::size_t value_index) const {
  const auto& c = counts_[static_cast<std::size_t>(param)];
  double total = 0;
  for (double x : c) total += x;
  return c[value_index] / total;
}

model::Problem draw_problem(std::mt19937_64& rng, double min_flops, std::int64_t max_mn, std::int64_t max_k) {
  constexpr gen::DataType kTypes[] = {gen::DataType::F16, gen::DataType::BF16, gen::DataType::F32,
                                      gen::DataType::F64, gen::DataType::C32,  gen::DataType::C64};
  std::uniform_int_distribution<int> type(0, 5), op(0, 2);
  auto log_uniform = [&](std::int64_t hi) {
    std::uniform_real_distribution<double> u(0.0, std::log(static_cast<double>(hi)));
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(std::exp(u(rng)))));
  };
  model::Problem p;
  p.data = kTypes[type(rng)];
  p.op_a = static_cast<gen::Op>(op(rng));
  p.op_b = static_cast<gen::Op>(op(rng));
  if (!gen::is_complex(p.data)) {  // real types: C is T
    if (p.op_a == gen::Op::C) p.op_a = gen::Op::T;
    if (p.op_b == gen::Op::C) p.op_b = gen::Op::T;
  }
  // Redraw sizes whose operands or work would not fit one benchmark call (256 Mi elements per
  // operand, 0.2 TFLOP: a poor configuration still times in well under a second).
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
  constexpr double kMaxFlops = 2e11;
  auto flops = [&] { return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k); };
  do {
    p.m = log_uniform(max_mn);
    p.n = log_uniform(max_mn);
    p.k = log_uniform(max_k);
  } while (p.m * p.k > kMaxElements || p.k * p.n > kMaxElements || p.m * p.n > kMaxElements ||
           flops() > kMaxFlops || flops() < std::min(min_flops, kMaxFlops / 2));
  return p;
}

}  // namespace ptxblas::tuner
