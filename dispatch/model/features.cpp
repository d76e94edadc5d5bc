#include "features.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ptxblas::model {
namespace {

constexpr gen::DataType kTypes[] = {gen::DataType::F16, gen::DataType::BF16, gen::DataType::F32,
                                    gen::DataType::F64, gen::DataType::C32,  gen::DataType::C64};

float log2p1(std::int64_t v) { return static_cast<float>(std::log2(static_cast<double>(v) + 1.0)); }

}  // namespace

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (gen::DataType t : kTypes) v.push_back(std::string("type_") + gen::type_letter(t));
    for (const char* op : {"a_n", "a_t", "a_c", "b_n", "b_t", "b_c"}) v.push_back(std::string("op_") + op);
    for (const char* d : {"log2_m", "log2_n", "log2_k"}) v.push_back(d);
    for (int i = 0; i < gen::kTuningParams; ++i)
      v.push_back(std::string(i < gen::kLogParams ? "log2_" : "") + gen::tuning_param_name(i));
    for (const char* d : {"log2_blocks", "log2_slice_k", "tile_fill"}) v.push_back(d);
    if (static_cast<int>(v.size()) != kProblemFeatures + gen::kTuningParams + kPairFeatures) throw std::logic_error("feature count");
    return v;
  }();
  return names;
}

int feature_count() { return static_cast<int>(feature_names().size()); }

void write_problem_features(const Problem& p, float* out) {
  int f = 0;
  for (gen::DataType d : kTypes) out[f++] = p.data == d ? 1.0f : 0.0f;
  for (gen::Op op : {gen::Op::N, gen::Op::T, gen::Op::C}) out[f++] = p.op_a == op ? 1.0f : 0.0f;
  for (gen::Op op : {gen::Op::N, gen::Op::T, gen::Op::C}) out[f++] = p.op_b == op ? 1.0f : 0.0f;
  out[f++] = log2p1(p.m);
  out[f++] = log2p1(p.n);
  out[f++] = log2p1(p.k);
}

void write_tuning_features(const gen::Tuning& t, float* out) {
  for (int i = 0; i < gen::kTuningParams; ++i) {
    const double v = gen::tuning_value(t, i);
    out[i] = static_cast<float>(i < gen::kLogParams ? std::log2(v) : v);  // flags as they are
  }
}

void write_pair_features(const Problem& p, const gen::Tuning& t, float* out) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t bm = ceil_div(p.m, t.ml), bn = ceil_div(p.n, t.nl), kg = std::max(t.kg, 1);
  out[0] = static_cast<float>(std::log2(static_cast<double>(bm * bn * kg)));
  out[1] = log2p1(ceil_div(p.k, kg));
  out[2] = static_cast<float>(static_cast<double>(p.m) * static_cast<double>(p.n) /
                              (static_cast<double>(bm * t.ml) * static_cast<double>(bn * t.nl)));
}

void write_features(const Problem& p, const gen::Tuning& t, float* out) {
  write_problem_features(p, out);
  write_tuning_features(t, out + kProblemFeatures);
  write_pair_features(p, t, out + kProblemFeatures + gen::kTuningParams);
}

}  // namespace ptxblas::model
