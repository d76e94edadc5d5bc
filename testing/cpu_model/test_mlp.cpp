// The forward pass against a case computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mlp.hpp"

namespace {

using ptxblas::model::DenseLayer;
using ptxblas::model::Mlp;

TEST(Mlp, ForwardMatchesHandComputation) {
  // 2 inputs -> 2 hidden (ReLU) -> 1 output.
  DenseLayer h{2, 2, {1.0f, -2.0f, 0.5f, 0.25f}, {0.5f, -1.0f}};
  DenseLayer o{2, 1, {3.0f, -1.0f}, {0.25f}};
  const Mlp net({h, o});
  const float x[4] = {1.0f, 2.0f, 4.0f, -1.0f};  // two rows
  float y[2];
  net.predict(x, 2, y);
  // Row 1: hidden = relu(1 - 4 + 0.5, 0.5 + 0.5 - 1) = (0, 0); out = 0.25.
  // Row 2: hidden = relu(4 + 2 + 0.5, 2 - 0.25 - 1) = (6.5, 0.75); out = 19.5 - 0.75 + 0.25 = 19.
  EXPECT_FLOAT_EQ(y[0], 0.25f);
  EXPECT_FLOAT_EQ(y[1], 19.0f);
  EXPECT_EQ(net.inputs(), 2);
  EXPECT_EQ(net.outputs(), 1);
  EXPECT_EQ(net.parameter_count(), 9u);
}

// The batched path (rows in 4s, outputs in 8s, chunks of rows) against a plain loop, with row
// counts and widths that leave every kind of remainder.
TEST(Mlp, BatchedForwardMatchesPlainLoops) {
  const Mlp net = Mlp::random({13, 24, 7, 16, 1}, 5);
  for (int rows : {1, 3, 4, 5, 255, 256, 257, 1030}) {
    std::vector<float> x(static_cast<std::size_t>(rows) * 13), y(static_cast<std::size_t>(rows));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 23) / 11.0f - 1.0f;
    net.predict(x.data(), rows, y.data());
    for (int r = 0; r < rows; ++r) {
      std::vector<double> a(x.begin() + r * 13, x.begin() + (r + 1) * 13);
      for (std::size_t li = 0; li < net.layers().size(); ++li) {
        const DenseLayer& l = net.layers()[li];
        std::vector<double> o(static_cast<std::size_t>(l.out));
        for (int j = 0; j < l.out; ++j) {
          double s = l.b[static_cast<std::size_t>(j)];
          for (int i = 0; i < l.in; ++i) s += static_cast<double>(l.w[static_cast<std::size_t>(j * l.in + i)]) * a[static_cast<std::size_t>(i)];
          o[static_cast<std::size_t>(j)] = li + 1 < net.layers().size() ? std::max(s, 0.0) : s;
        }
        a = o;
      }
      ASSERT_NEAR(y[static_cast<std::size_t>(r)], a[0], 1e-4 * (1 + std::abs(a[0]))) << "rows " << rows << " row " << r;
    }
  }
}

// A row's output is the same bits wherever it sits in a batch (alone, in a block of 4, among the
// last 1-3 rows, in a later chunk), dense and grouped, widths that are and are not 8-wide: the
// picker's score() of one candidate and its top_scored() of many must agree on near-ties.
TEST(Mlp, ARowsOutputDoesNotDependOnItsPlaceInTheBatch) {
  const DenseLayer grouped{32, 32, std::vector<float>(32 * 16), std::vector<float>(32), 2};
  std::vector<Mlp> nets = {Mlp::random({13, 24, 7, 16, 1}, 5), Mlp::random({9, 32, 64, 32, 1}, 6)};
  {
    Mlp g = Mlp::random({9, 32, 32, 1}, 7);
    std::vector<DenseLayer> layers = g.layers();
    DenseLayer mid = grouped;
    for (std::size_t i = 0; i < mid.w.size(); ++i) mid.w[i] = std::sin(static_cast<float>(i)) * 0.3f;
    layers[1] = mid;
    nets.push_back(Mlp(layers));
  }
  for (const Mlp& net : nets) {
    const int in = net.inputs();
    for (int rows : {1, 2, 3, 5, 6, 7, 9, 259}) {
      std::vector<float> x(static_cast<std::size_t>(rows) * in), y(static_cast<std::size_t>(rows));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::cos(static_cast<float>(i) * 0.37f) * 1.7f;
      net.predict(x.data(), rows, y.data());
      for (int r = 0; r < rows; ++r) {
        float alone = 0;
        net.predict(x.data() + static_cast<std::size_t>(r) * in, 1, &alone);
        ASSERT_EQ(y[static_cast<std::size_t>(r)], alone) << "inputs " << in << " rows " << rows << " row " << r;
      }
    }
  }
}

TEST(Mlp, InconsistentLayersAreRejected) {
  DenseLayer a{2, 3, std::vector<float>(6), std::vector<float>(3)};
  DenseLayer b{2, 1, std::vector<float>(2), std::vector<float>(1)};  // expects 2 inputs, gets 3
  EXPECT_THROW(Mlp({a, b}), std::invalid_argument);
  DenseLayer c{2, 3, std::vector<float>(5), std::vector<float>(3)};  // short weights
  EXPECT_THROW(Mlp({c}), std::invalid_argument);
}

TEST(Mlp, RandomInitialisationIsSeeded) {
  const Mlp a = Mlp::random({4, 8, 1}, 7), b = Mlp::random({4, 8, 1}, 7), c = Mlp::random({4, 8, 1}, 8);
  EXPECT_EQ(a.layers()[0].w, b.layers()[0].w);
  EXPECT_NE(a.layers()[0].w, c.layers()[0].w);
  EXPECT_EQ(a.widths(), (std::vector<int>{4, 8, 1}));
}

}  // namespace
