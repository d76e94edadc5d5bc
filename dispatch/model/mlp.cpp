#include "mlp.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace ptxblas::model {

Mlp::Mlp(std::vector<DenseLayer> layers) : layers_(std::move(layers)) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const DenseLayer& l = layers_[i];
    if (l.in <= 0 || l.out <= 0 || l.groups <= 0 || l.in % l.groups != 0 || l.out % l.groups != 0 ||
        l.w.size() != static_cast<std::size_t>(l.in / l.groups) * l.out || l.b.size() != static_cast<std::size_t>(l.out))
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

Mlp Mlp::member(int members, int k) const {
  const std::size_t nl = layers_.size();
  if (members < 1 || k < 0 || k >= members || nl < 2)
    throw std::invalid_argument("not an ensemble of " + std::to_string(members) + " members");
  std::vector<DenseLayer> out;
  for (std::size_t li = 0; li < nl; ++li) {
    const DenseLayer& l = layers_[li];
    const bool first = li == 0, last = li + 1 == nl;
    // The first layer is dense over the shared inputs, hidden layers one group per member, the
    // output layer dense over every member's block.
    if ((first || last ? l.groups != 1 : l.groups != members) || (!first && l.in % members != 0) ||
        (!last && l.out % members != 0) || (last && l.out != 1))
      throw std::invalid_argument("not an ensemble of " + std::to_string(members) + " members");
    DenseLayer m;
    m.in = first ? l.in : l.in / members;
    m.out = last ? 1 : l.out / members;
    const std::size_t nw = static_cast<std::size_t>(m.in) * static_cast<std::size_t>(m.out);
    const std::size_t wk = last ? static_cast<std::size_t>(m.in) : nw;  // this member's weights
    const auto w0 = l.w.begin() + static_cast<std::ptrdiff_t>(wk * static_cast<std::size_t>(k));
    m.w.assign(w0, w0 + static_cast<std::ptrdiff_t>(wk));
    if (last) {
      for (float& w : m.w) w *= static_cast<float>(members);  // ensemble_of divided them
      m.b = l.b;
    } else {
      const auto b0 = l.b.begin() + static_cast<std::ptrdiff_t>(m.out) * k;
      m.b.assign(b0, b0 + m.out);
    }
    out.push_back(std::move(m));
  }
  return Mlp(std::move(out));
}

std::size_t Mlp::parameter_count() const {
  std::size_t n = 0;
  for (const DenseLayer& l : layers_) n += l.w.size() + l.b.size();
  return n;
}

namespace {

// out[r][j] = b[j] + sum_i a[r][i] * wt[i][j] for rows [r0, r0 + 4) and outputs [j0, j0 + 8):
// four 8-wide sums held in registers across the whole input loop (GCC/Clang vector types: one
// AVX register each in the AVX2 clone, two SSE registers in the default one). `in` inputs per
// row, rows of a `as` apart, of wt and o `ws` and `os` apart (a group of a grouped layer is a
// window of the whole layer's rows).
typedef float v8 __attribute__((vector_size(32)));

struct Block {
  const float* __restrict a;
  std::size_t as, in;
  const float* __restrict wt;
  std::size_t ws;
  const float* __restrict b;
  float* __restrict o;
  std::size_t os;
};

inline void block_4x8(const Block& k, std::size_t j0) {
  v8 bias;
  std::memcpy(&bias, k.b + j0, sizeof bias);
  v8 acc0 = bias, acc1 = bias, acc2 = bias, acc3 = bias;
  for (std::size_t i = 0; i < k.in; ++i) {
    v8 w;
    std::memcpy(&w, k.wt + i * k.ws + j0, sizeof w);
    acc0 += k.a[i] * w;
    acc1 += k.a[k.as + i] * w;
    acc2 += k.a[2 * k.as + i] * w;
    acc3 += k.a[3 * k.as + i] * w;
  }
  std::memcpy(k.o + j0, &acc0, sizeof acc0);
  std::memcpy(k.o + k.os + j0, &acc1, sizeof acc1);
  std::memcpy(k.o + 2 * k.os + j0, &acc2, sizeof acc2);
  std::memcpy(k.o + 3 * k.os + j0, &acc3, sizeof acc3);
}

// The same for outputs [j0, j0 + 16): eight independent sums, enough to keep both FMA pipes of
// a core busy (four leave half their latency exposed). Each output's sum runs in the same order
// as in block_4x8, so the two give identical results.
inline void block_4x16(const Block& k, std::size_t j0) {
  v8 lo, hi;
  std::memcpy(&lo, k.b + j0, sizeof lo);
  std::memcpy(&hi, k.b + j0 + 8, sizeof hi);
  v8 acc0 = lo, acc1 = lo, acc2 = lo, acc3 = lo, acc4 = hi, acc5 = hi, acc6 = hi, acc7 = hi;
  for (std::size_t i = 0; i < k.in; ++i) {
    v8 w0, w1;
    std::memcpy(&w0, k.wt + i * k.ws + j0, sizeof w0);
    std::memcpy(&w1, k.wt + i * k.ws + j0 + 8, sizeof w1);
    const float x0 = k.a[i], x1 = k.a[k.as + i], x2 = k.a[2 * k.as + i], x3 = k.a[3 * k.as + i];
    acc0 += x0 * w0;
    acc4 += x0 * w1;
    acc1 += x1 * w0;
    acc5 += x1 * w1;
    acc2 += x2 * w0;
    acc6 += x2 * w1;
    acc3 += x3 * w0;
    acc7 += x3 * w1;
  }
  std::memcpy(k.o + j0, &acc0, sizeof acc0);
  std::memcpy(k.o + k.os + j0, &acc1, sizeof acc1);
  std::memcpy(k.o + 2 * k.os + j0, &acc2, sizeof acc2);
  std::memcpy(k.o + 3 * k.os + j0, &acc3, sizeof acc3);
  std::memcpy(k.o + j0 + 8, &acc4, sizeof acc4);
  std::memcpy(k.o + k.os + j0 + 8, &acc5, sizeof acc5);
  std::memcpy(k.o + 2 * k.os + j0 + 8, &acc6, sizeof acc6);
  std::memcpy(k.o + 3 * k.os + j0 + 8, &acc7, sizeof acc7);
}

}  // namespace

// Clones for FMA (which brings 256-bit AVX) and the default, chosen when the library loads: a first pick scores
// ~10^4-10^5 candidates, so the network's speed is what a new shape waits for.
__attribute__((target_clones("fma", "default"))) void Mlp::predict(const float* x, int rows, float* out) const {
  if (layers_.empty() || rows <= 0) return;
  // Input-major per group, so outputs are the vector loop: group g's block at g * ig * og.
  std::vector<std::vector<float>> wts(layers_.size());
  for (std::size_t li = 0; li < layers_.size(); ++li) {
    const DenseLayer& l = layers_[li];
    const std::size_t groups = static_cast<std::size_t>(l.groups), ig = static_cast<std::size_t>(l.in) / groups,
                      og = static_cast<std::size_t>(l.out) / groups;
    wts[li].resize(ig * og * groups);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j = 0; j < og; ++j)
        for (std::size_t i = 0; i < ig; ++i) wts[li][g * ig * og + i * og + j] = l.w[(g * og + j) * ig + i];
  }
  // Rows in chunks that keep every layer's activations in cache.
  constexpr std::size_t kChunk = 256;
  std::vector<float> cur, next, pad_in, pad_out;
  const std::size_t nin = static_cast<std::size_t>(inputs()), nouts = static_cast<std::size_t>(outputs());
  for (std::size_t r0 = 0; r0 < static_cast<std::size_t>(rows); r0 += kChunk) {
    const std::size_t nrows = std::min(kChunk, static_cast<std::size_t>(rows) - r0);
    cur.assign(x + r0 * nin, x + (r0 + nrows) * nin);
    for (std::size_t li = 0; li < layers_.size(); ++li) {
      const DenseLayer& l = layers_[li];
      const std::size_t in = static_cast<std::size_t>(l.in), nout = static_cast<std::size_t>(l.out);
      const std::size_t groups = static_cast<std::size_t>(l.groups), ig = in / groups, og = nout / groups;
      next.resize(nrows * nout);
      // Groups 8 wide run in blocks of 4 rows; the last 1-3 rows too, padded with zero rows, so a
      // row's result never depends on where it sits in the batch (the compiler may contract or
      // vectorise a plain loop differently: score() of one candidate and top_scored() of many
      // then disagreed in the last bits at -O2).
      const bool blocked = og % 8 == 0;
      const std::size_t rows4 = blocked ? nrows / 4 * 4 : 0, rest = blocked ? nrows - rows4 : 0;
      if (rest > 0) {
        pad_in.assign(4 * in, 0.0f);
        std::copy(cur.data() + rows4 * in, cur.data() + nrows * in, pad_in.begin());
        pad_out.resize(4 * nout);
      }
      auto run_blocks = [&](const Block& k) {
        std::size_t j0 = 0;
        for (; j0 + 16 <= og; j0 += 16) block_4x16(k, j0);
        if (j0 < og) block_4x8(k, j0);
      };
      for (std::size_t g = 0; g < groups; ++g) {
        const float* wt = wts[li].data() + g * ig * og;
        const float* bias = l.b.data() + g * og;
        for (std::size_t r = 0; r < rows4; r += 4)
          run_blocks({cur.data() + r * in + g * ig, in, ig, wt, og, bias, next.data() + r * nout + g * og, nout});
        if (rest > 0) {
          run_blocks({pad_in.data() + g * ig, in, ig, wt, og, bias, pad_out.data() + g * og, nout});
          for (std::size_t r = 0; r < rest; ++r)
            std::copy_n(pad_out.data() + r * nout + g * og, og, next.data() + (rows4 + r) * nout + g * og);
        }
        if (blocked) continue;
        for (std::size_t r = 0; r < nrows; ++r) {  // groups not 8 wide: every row the same loop
          const float* a = cur.data() + r * in + g * ig;
          float* o = next.data() + r * nout + g * og;
          std::copy(bias, bias + og, o);
          for (std::size_t i = 0; i < ig; ++i)
            for (std::size_t j = 0; j < og; ++j) o[j] += a[i] * wt[i * og + j];
        }
      }
      if (li + 1 < layers_.size())
        for (float& v : next) v = std::max(v, 0.0f);
      cur.swap(next);
    }
    std::copy(cur.begin(), cur.end(), out + r0 * nouts);
  }
}

}  // namespace ptxblas::model
