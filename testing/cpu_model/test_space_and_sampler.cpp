// The configuration space and ISAAC's categorical sampler: every enumerated point is legal, the
// learned sampler's draws are legal far more often than uniform draws, and problems are drawn
// within the stated ranges.
#include <gtest/gtest.h>

#include <set>

#include "sampler.hpp"

namespace {

using namespace ptxblas;

constexpr gen::DataType kTypes[] = {gen::DataType::F32, gen::DataType::F64, gen::DataType::C32,
                                    gen::DataType::C64, gen::DataType::F16, gen::DataType::BF16};

TEST(Space, EveryEnumeratedPointIsLegalAndNamedUniquely) {
  for (gen::DataType t : kTypes) {
    const auto space = gen::enumerate_space(t);
    ASSERT_FALSE(space.empty());
    std::set<std::string> names;
    for (const gen::Tuning& x : space) {
      ASSERT_EQ(gen::why_excluded(t, x), "");
      gen::KernelConfig base;
      base.data = t;
      names.insert(gen::tuning_name(base, x));
    }
    EXPECT_EQ(names.size(), space.size());
    std::printf("type %c: %zu configurations\n", gen::type_letter(t), space.size());
  }
}

TEST(Space, PruningRemovesLegalButHopelessPoints) {
  // Some legal configurations have too few threads or too small a thread tile: all are excluded.
  int pruned = 0;
  const auto& v = gen::tuning_values();
  for (int ml : v[0])
    for (int ms : v[3])
      for (int ns : v[4]) {
        const gen::Tuning t{ml, 32, 8, ms, ns, 1, 1};
        gen::KernelConfig c;
        c = gen::apply_tuning(c, t);
        if (!gen::why_illegal(c).empty()) continue;
        const bool hopeless = c.threads() < 64 || ms * ns < 4;
        EXPECT_EQ(gen::why_excluded(gen::DataType::F32, t).find("pruned") != std::string::npos, hopeless)
            << ml << "x32 tile " << ms << "x" << ns;
        pruned += hopeless;
      }
  EXPECT_GT(pruned, 0);
}

TEST(Sampler, LearnedModelAcceptsFarMoreThanUniform) {
  for (gen::DataType t : kTypes) {
    std::mt19937_64 rng(42);
    tuner::CategoricalSampler s(1.0);
    s.learn(t, 5000, rng);
    const double learned = tuner::acceptance_rate([&](std::mt19937_64& r) { return s.draw(r); }, t, 3000, rng);
    const double uniform = tuner::acceptance_rate([](std::mt19937_64& r) { return tuner::draw_uniform(r); }, t, 3000, rng);
    std::printf("type %c: acceptance learned %.3f, uniform %.3f\n", gen::type_letter(t), learned, uniform);
    EXPECT_GT(learned, 1.5 * uniform);
    EXPECT_GT(learned, 0.1);
    // The prior keeps every value possible.
    for (int i = 0; i < gen::kTuningParams; ++i)
      for (std::size_t j = 0; j < gen::tuning_values()[static_cast<std::size_t>(i)].size(); ++j)
        EXPECT_GT(s.probability(i, j), 0.0);
  }
}

TEST(Sampler, ProblemsStayInRange) {
  std::mt19937_64 rng(1);
  std::set<gen::DataType> types;
  for (int i = 0; i < 2000; ++i) {
    const model::Problem p = tuner::draw_problem(rng);
    types.insert(p.data);
    ASSERT_GE(p.m, 1);
    ASSERT_LE(p.m, 65536);
    ASSERT_LE(p.k, 200000);
    ASSERT_LE(p.m * p.k, std::int64_t{1} << 28);
    if (!gen::is_complex(p.data)) {
      ASSERT_NE(p.op_a, gen::Op::C);
    }
  }
  EXPECT_EQ(types.size(), 6u);
}

TEST(Sampler, MinimumWorkDrawsOnlyLargeProblems) {
  std::mt19937_64 rng(3);
  std::set<std::int64_t> ms;
  for (int i = 0; i < 500; ++i) {
    const model::Problem p = tuner::draw_problem(rng, 1e10);
    const double flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    ASSERT_GE(flops, 1e10);
    ASSERT_LE(flops, 2e11);
    ASSERT_LE(p.m * p.n, std::int64_t{1} << 28);
    ms.insert(p.m);
  }
  EXPECT_GT(ms.size(), 100u);  // still spread over shapes, not one corner
}

}  // namespace
