#include "trainer.hpp"

#include "ensemble.hpp"
#include "job_pool.hpp"
#include "picker.hpp"

#include <algorithm>
#include <functional>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ptxblas::tuner {
namespace {

using model::DenseLayer;

struct Rows {
  std::vector<float> x;                // rows x features, normalised
  std::vector<float> y;                // log2 TFLOP/s
  std::vector<std::uint32_t> problem;  // each row's problem, numbered in order of first appearance
  std::size_t problems = 0;
  std::size_t count() const { return y.size(); }
};

Rows featurise(const std::vector<const Sample*>& rows, const model::Model& m) {
  const int f = model::feature_count();
  Rows r;
  r.x.resize(rows.size() * static_cast<std::size_t>(f));
  r.y.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    float* x = r.x.data() + i * static_cast<std::size_t>(f);
    model::write_features(rows[i]->problem, rows[i]->tuning, x);
    for (int j = 0; j < f; ++j)
      x[j] = (x[j] - m.mean[static_cast<std::size_t>(j)]) / m.stddev[static_cast<std::size_t>(j)];
    r.y[i] = static_cast<float>(std::log2(*rows[i]->tflops));
  }
  std::unordered_map<model::Problem, std::uint32_t, model::ProblemHash> ids;
  r.problem.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    r.problem[i] = ids.emplace(rows[i]->problem, static_cast<std::uint32_t>(ids.size())).first->second;
  r.problems = ids.size();
  return r;
}

// For the rows idx[begin, end): each one's error less the mean error of those of its problem.
std::vector<float> centred_errors(const std::vector<float>& err, const Rows& data, const std::vector<std::size_t>& idx,
                                  std::size_t begin, std::size_t end) {
  std::unordered_map<std::uint32_t, std::pair<double, int>> sums;
  for (std::size_t r = begin; r < end; ++r) {
    auto& [s, n] = sums[data.problem[idx[r]]];
    s += err[r - begin];
    ++n;
  }
  std::vector<float> out(end - begin);
  for (std::size_t r = begin; r < end; ++r) {
    const auto& [s, n] = sums[data.problem[idx[r]]];
    out[r - begin] = err[r - begin] - static_cast<float>(s / n);
  }
  return out;
}

// Adam state for one layer's parameters.
struct Moments {
  std::vector<float> mw, vw, mb, vb;
};

class Adam {
 public:
  Adam(const model::Mlp& net, float lr) : lr_(lr) {
    for (const DenseLayer& l : net.layers())
      m_.push_back({std::vector<float>(l.w.size()), std::vector<float>(l.w.size()), std::vector<float>(l.b.size()),
                    std::vector<float>(l.b.size())});
  }
  void step(model::Mlp& net, const std::vector<std::vector<float>>& gw, const std::vector<std::vector<float>>& gb) {
    ++t_;
    const float c1 = 1.0f - std::pow(kB1, static_cast<float>(t_)), c2 = 1.0f - std::pow(kB2, static_cast<float>(t_));
    for (std::size_t li = 0; li < net.layers().size(); ++li) {
      DenseLayer& l = net.layers()[li];
      update(l.w, gw[li], m_[li].mw, m_[li].vw, c1, c2);
      update(l.b, gb[li], m_[li].mb, m_[li].vb, c1, c2);
    }
  }

 private:
  static constexpr float kB1 = 0.9f, kB2 = 0.999f, kEps = 1e-8f;
  void update(std::vector<float>& p, const std::vector<float>& g, std::vector<float>& m, std::vector<float>& v,
              float c1, float c2) const {
    for (std::size_t i = 0; i < p.size(); ++i) {
      m[i] = kB1 * m[i] + (1 - kB1) * g[i];
      v[i] = kB2 * v[i] + (1 - kB2) * g[i] * g[i];
      p[i] -= lr_ * (m[i] / c1) / (std::sqrt(v[i] / c2) + kEps);
    }
  }
  float lr_;
  long t_ = 0;
  std::vector<Moments> m_;
};

// One mini-batch: forward with stored activations, the loss's gradient backward (MSE, plus
// rank_weight x the within-problem MSE). Returns the batch loss.
double train_batch(model::Mlp& net, Adam& adam, const Rows& data, const std::vector<std::size_t>& idx,
                   std::size_t begin, std::size_t end, float rank_weight) {
  const auto& layers = net.layers();
  const std::size_t nl = layers.size(), rows = end - begin;
  const int f = net.inputs();
  // acts[0] = inputs; acts[l + 1] = output of layer l (after ReLU for hidden layers).
  std::vector<std::vector<float>> acts(nl + 1);
  acts[0].resize(rows * static_cast<std::size_t>(f));
  for (std::size_t r = 0; r < rows; ++r)
    std::copy_n(data.x.data() + idx[begin + r] * static_cast<std::size_t>(f), f,
                acts[0].data() + r * static_cast<std::size_t>(f));
  for (std::size_t li = 0; li < nl; ++li) {
    const DenseLayer& l = layers[li];
    acts[li + 1].assign(rows * static_cast<std::size_t>(l.out), 0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (int o = 0; o < l.out; ++o) {
        float s = l.b[static_cast<std::size_t>(o)];
        const float* w = l.w.data() + static_cast<std::size_t>(o) * l.in;
        const float* in = acts[li].data() + r * static_cast<std::size_t>(l.in);
        for (int i = 0; i < l.in; ++i) s += w[i] * in[i];
        acts[li + 1][r * static_cast<std::size_t>(l.out) + static_cast<std::size_t>(o)] =
            li + 1 < nl ? std::max(s, 0.0f) : s;
      }
  }
  // d loss / d output for mean squared error over the batch. The within-problem term's gradient
  // is its centred error alone: the centred errors of a problem sum to zero, so the mean's own
  // derivative cancels.
  double loss = 0;
  std::vector<float> err(rows), delta(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    err[r] = acts[nl][r] - data.y[idx[begin + r]];
    loss += static_cast<double>(err[r]) * err[r];
    delta[r] = 2.0f * err[r] / static_cast<float>(rows);
  }
  if (rank_weight > 0) {
    const std::vector<float> c = centred_errors(err, data, idx, begin, end);
    for (std::size_t r = 0; r < rows; ++r) {
      loss += static_cast<double>(rank_weight) * c[r] * c[r];
      delta[r] += rank_weight * 2.0f * c[r] / static_cast<float>(rows);
    }
  }
  std::vector<std::vector<float>> gw(nl), gb(nl);
  for (std::size_t li = nl; li-- > 0;) {
    const DenseLayer& l = layers[li];
    gw[li].assign(l.w.size(), 0.0f);
    gb[li].assign(l.b.size(), 0.0f);
    std::vector<float> prev(rows * static_cast<std::size_t>(l.in), 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
      const float* in = acts[li].data() + r * static_cast<std::size_t>(l.in);
      for (int o = 0; o < l.out; ++o) {
        const float d = delta[r * static_cast<std::size_t>(l.out) + static_cast<std::size_t>(o)];
        if (d == 0.0f) continue;
        gb[li][static_cast<std::size_t>(o)] += d;
        float* g = gw[li].data() + static_cast<std::size_t>(o) * l.in;
        const float* w = l.w.data() + static_cast<std::size_t>(o) * l.in;
        float* p = prev.data() + r * static_cast<std::size_t>(l.in);
        for (int i = 0; i < l.in; ++i) {
          g[i] += d * in[i];
          p[i] += d * w[i];
        }
      }
    }
    if (li > 0)  // through the previous layer's ReLU
      for (std::size_t i = 0; i < prev.size(); ++i)
        if (acts[li][i] <= 0.0f) prev[i] = 0.0f;
    delta.swap(prev);
  }
  adam.step(net, gw, gb);
  return loss / static_cast<double>(rows);
}

// Mean squared error on data; `within` takes each problem's mean error out first.
double mse(const model::Mlp& net, const Rows& data, bool within = false) {
  if (data.count() == 0) return 0;
  std::vector<float> err(data.count());
  net.predict(data.x.data(), static_cast<int>(data.count()), err.data());
  for (std::size_t i = 0; i < err.size(); ++i) err[i] -= data.y[i];
  if (within) {
    std::vector<std::size_t> all(data.count());
    std::iota(all.begin(), all.end(), 0);
    err = centred_errors(err, data, all, 0, all.size());
  }
  double s = 0;
  for (float e : err) s += static_cast<double>(e) * e;
  return s / static_cast<double>(err.size());
}

// The order rows are visited in one epoch, and where its batches end. Shuffled rows in batches of
// `batch`, or (rank_weight > 0) shuffled whole problems, a batch ending after the problem that
// brings it to at least `batch` rows.
void epoch_order(const Rows& tr, const std::vector<std::vector<std::size_t>>& by_problem, const TrainOptions& opt,
                 std::mt19937_64& rng, std::vector<std::size_t>& idx, std::vector<std::size_t>& ends) {
  const std::size_t batch = static_cast<std::size_t>(std::max(1, opt.batch));
  ends.clear();
  if (opt.rank_weight <= 0) {
    std::shuffle(idx.begin(), idx.end(), rng);
    for (std::size_t b = batch; b < idx.size() + batch; b += batch) ends.push_back(std::min(idx.size(), b));
    return;
  }
  std::vector<std::uint32_t> order(tr.problems);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  idx.clear();
  std::size_t start = 0;
  for (std::uint32_t p : order) {
    idx.insert(idx.end(), by_problem[p].begin(), by_problem[p].end());
    if (idx.size() - start >= batch) ends.push_back(start = idx.size());
  }
  if (start < idx.size()) ends.push_back(idx.size());
}

// One network trained from `seed`'s initial weights, mini-batches shuffled by `rng`; the
// training loss after each epoch into `epoch_mse`.
model::Mlp train_member(const std::vector<int>& widths, std::uint64_t seed, std::mt19937_64& rng, const Rows& tr,
                        const TrainOptions& opt, std::vector<double>& epoch_mse) {
  model::Mlp net = model::Mlp::random(widths, seed);
  Adam adam(net, opt.learning_rate);
  std::vector<std::size_t> idx(tr.count()), ends;
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<std::vector<std::size_t>> by_problem(tr.problems);
  for (std::size_t i = 0; i < tr.count(); ++i) by_problem[tr.problem[i]].push_back(i);
  epoch_mse.clear();
  for (int e = 0; e < opt.epochs; ++e) {
    epoch_order(tr, by_problem, opt, rng, idx, ends);
    std::size_t b = 0;
    for (std::size_t end : ends) {
      train_batch(net, adam, tr, idx, b, end, opt.rank_weight);
      b = end;
    }
    epoch_mse.push_back(mse(net, tr));
  }
  return net;
}

}  // namespace

std::mt19937_64 member_rng(std::uint64_t seed, int k) {
  // seed_seq keeps 32 bits of each value: a seed's high half joins where it has one (seeds below
  // 2^32 keep the sequence, and so the weights, they always had).
  const std::uint64_t low = seed & 0xffffffffu, high = seed >> 32;
  std::seed_seq seeds = high ? std::seed_seq{low, static_cast<std::uint64_t>(k), high}
                             : std::seed_seq{low, static_cast<std::uint64_t>(k)};
  return std::mt19937_64(seeds);
}

namespace {

std::vector<const Sample*> benchmarked(const std::vector<Sample>& rows) {
  std::vector<const Sample*> usable;
  for (const Sample& s : rows)
    if (s.tflops && *s.tflops > 0) usable.push_back(&s);
  return usable;
}

// Whole problems are held out (every configuration of a held-out problem), so the held-out
// error and ranking say how the model does on shapes it has never seen. The split is the first
// thing drawn from `rng`, so a seed names it.
void split_problems(const std::vector<const Sample*>& usable, double fraction, std::mt19937_64& rng,
                    std::vector<const Sample*>& train, std::vector<const Sample*>& holdout) {
  std::vector<model::Problem> problems;  // in order of first appearance
  {
    std::unordered_set<model::Problem, model::ProblemHash> seen;
    for (const Sample* s : usable)
      if (seen.insert(s->problem).second) problems.push_back(s->problem);
  }
  std::shuffle(problems.begin(), problems.end(), rng);
  const auto held = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(problems.size())));
  std::unordered_set<model::Problem, model::ProblemHash> held_out(problems.begin(),
                                                                  problems.begin() + static_cast<std::ptrdiff_t>(held));
  for (const Sample* s : usable) (held_out.count(s->problem) ? holdout : train).push_back(s);
}

}  // namespace

std::vector<const Sample*> held_out_rows(const std::vector<Sample>& rows, std::uint64_t seed, double fraction) {
  std::mt19937_64 rng(seed);
  std::vector<const Sample*> train, holdout;
  split_problems(benchmarked(rows), fraction, rng, train, holdout);
  return holdout;
}

model::Model train_model(const std::vector<Sample>& rows, const TrainOptions& opt, TrainReport& report) {
  const std::vector<const Sample*> usable = benchmarked(rows);
  if (usable.empty()) throw std::invalid_argument("no benchmarked rows to train on");
  std::mt19937_64 rng(opt.seed);
  std::vector<const Sample*> holdout, train;
  split_problems(usable, opt.holdout, rng, train, holdout);
  std::shuffle(train.begin(), train.end(), rng);
  if (train.empty()) throw std::invalid_argument("holdout leaves no rows to train on");

  model::Model m;
  m.device_key = train.front()->device_key;
  m.max_stages = 1;
  for (const Sample* s : usable) m.max_stages = std::max(m.max_stages, s->tuning.stages);
  for (const Sample* s : usable)
    m.max_flops = std::max(m.max_flops, 2.0 * static_cast<double>(s->problem.m) * static_cast<double>(s->problem.n) *
                                            static_cast<double>(s->problem.k));
  const int f = model::feature_count();
  m.mean.assign(static_cast<std::size_t>(f), 0.0f);
  m.stddev.assign(static_cast<std::size_t>(f), 0.0f);
  std::vector<float> x(static_cast<std::size_t>(f));
  for (const Sample* s : train) {
    model::write_features(s->problem, s->tuning, x.data());
    for (int j = 0; j < f; ++j) m.mean[static_cast<std::size_t>(j)] += x[static_cast<std::size_t>(j)];
  }
  for (float& v : m.mean) v /= static_cast<float>(train.size());
  for (const Sample* s : train) {
    model::write_features(s->problem, s->tuning, x.data());
    for (int j = 0; j < f; ++j) {
      const float d = x[static_cast<std::size_t>(j)] - m.mean[static_cast<std::size_t>(j)];
      m.stddev[static_cast<std::size_t>(j)] += d * d;
    }
  }
  for (float& v : m.stddev) v = std::max(std::sqrt(v / static_cast<float>(train.size())), 1e-3f);

  std::vector<int> widths = {f};
  widths.insert(widths.end(), opt.hidden.begin(), opt.hidden.end());
  widths.push_back(1);
  const Rows tr = featurise(train, m), ho = featurise(holdout, m);
  // Member 0 goes on with the split's generator (one member is the single network as before,
  // bit for bit); the others start from seeds of their own. Each trains on its own thread.
  const int count = std::max(1, opt.members);
  std::vector<model::Mlp> members(static_cast<std::size_t>(count));
  std::vector<std::vector<double>> epochs(members.size());
  auto train_one = [&](int k) {
    std::mt19937_64 own = member_rng(opt.seed, k);
    std::mt19937_64& r = k == 0 ? rng : own;
    members[static_cast<std::size_t>(k)] = train_member(widths, k == 0 ? opt.seed : r(), r, tr, opt,
                                                        epochs[static_cast<std::size_t>(k)]);
  };
  // Each job's result depends only on its own seed, so the thread count never changes the weights.
  model::run_jobs(static_cast<std::size_t>(count), static_cast<std::size_t>(std::max(0, opt.threads)),
                  [&](std::size_t k) { train_one(static_cast<int>(k)); });
  report.member_holdout_mse.clear();
  for (const model::Mlp& net : members) report.member_holdout_mse.push_back(mse(net, ho));
  report.epoch_mse = epochs.front();
  m.mlp = count == 1 ? members.front() : ensemble_of(members);
  // Members without hidden layers fold into one linear network (their mean): nothing to screen.
  m.members = widths.size() > 2 ? count : 1;
  report.train_rows = tr.count();
  report.holdout_rows = ho.count();
  report.train_mse = mse(m.mlp, tr);
  report.holdout_mse = mse(m.mlp, ho);
  report.holdout_rank_mse = mse(m.mlp, ho, true);
  report.holdout_pick = pick_quality(m, holdout);
  return m;
}

PickQuality pick_quality(const model::Model& m, const std::vector<const Sample*>& rows) {
  std::unordered_map<model::Problem, std::vector<const Sample*>, model::ProblemHash> by_problem;
  for (const Sample* s : rows) by_problem[s->problem].push_back(s);
  std::vector<double> ratios;
  std::vector<float> x(static_cast<std::size_t>(model::feature_count()));
  for (const auto& [p, group] : by_problem) {
    if (group.size() < 2) continue;
    double best = 0, picked = 0;
    float best_score = -1e30f;
    for (const Sample* s : group) {
      model::write_features(s->problem, s->tuning, x.data());
      for (std::size_t j = 0; j < x.size(); ++j) x[j] = (x[j] - m.mean[j]) / m.stddev[j];
      float score = 0;
      m.mlp.predict(x.data(), 1, &score);
      best = std::max(best, *s->tflops);
      if (score > best_score) best_score = score, picked = *s->tflops;
    }
    ratios.push_back(picked / best);
  }
  PickQuality q;
  q.problems = ratios.size();
  if (ratios.empty()) return q;
  std::sort(ratios.begin(), ratios.end());
  double lg = 0;
  for (double r : ratios) lg += std::log(r);
  q.median = ratios[ratios.size() / 2];
  q.p10 = ratios[ratios.size() / 10];
  q.worst = ratios.front();
  q.geomean = std::exp(lg / static_cast<double>(ratios.size()));
  return q;
}

double within_problem_mse(const model::Model& m, const std::vector<const Sample*>& rows) {
  return mse(m.mlp, featurise(rows, m), true);
}

double model_mse(const model::Model& m, const std::vector<const Sample*>& rows) { return mse(m.mlp, featurise(rows, m)); }

double model_mse(const model::Model& m, const std::vector<Sample>& rows) { return model_mse(m, benchmarked(rows)); }

}  // namespace ptxblas::tuner
