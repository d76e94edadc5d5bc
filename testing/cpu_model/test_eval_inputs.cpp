// `ptxblas-tune eval`'s CUDA-free inputs: the held-out shapes file and the oracle's candidate set.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "eval_candidates.hpp"
#include "synthetic.hpp"
#include "trainer.hpp"

namespace {

using namespace modeltest;

TEST(EvalShapes, ReadsTheSuiteFormat) {
  std::istringstream in(
      "# TYPE TRANSA TRANSB M N K NAME\n"
      "S N T 4096 4096 32 lapack-4096\n"
      "\n"
      "Z C N 7 9 11   # a comment\n"
      "B T T 1 2 3 tiny\n");
  const std::vector<tuner::EvalShape> s = tuner::read_eval_shapes(in);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].problem, (model::Problem{gen::DataType::F32, gen::Op::N, gen::Op::T, 4096, 4096, 32}));
  EXPECT_EQ(s[0].name, "lapack-4096");
  EXPECT_EQ(s[1].problem, (model::Problem{gen::DataType::C64, gen::Op::C, gen::Op::N, 7, 9, 11}));
  EXPECT_EQ(s[1].name, "");
  EXPECT_EQ(s[2].problem.data, gen::DataType::BF16);
}

TEST(EvalShapes, BadLinesNameTheirNumber) {
  for (const char* bad : {"S N T 4 4\n", "Q N T 4 4 4\n", "S X T 4 4 4\n", "S N T 0 4 4\n", "\nSS N T 4 4 4\n"}) {
    std::istringstream in(bad);
    try {
      tuner::read_eval_shapes(in);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("shapes line "), std::string::npos) << e.what();
    }
  }
}

TEST(EvalCandidates, ModelPickFirstThenTopThenRandomWithoutRepeats) {
  tuner::TrainOptions o;
  o.hidden = {16};
  o.epochs = 5;
  o.seed = 3;
  tuner::TrainReport rep;
  model::Picker picker(tuner::train_model(synthetic_dataset(800, 5), o, rep));
  const model::Problem p{gen::DataType::F32, gen::Op::N, gen::Op::T, 2560, 64, 2560};
  const std::vector<gen::Tuning> c = tuner::eval_candidates(picker, p, 8, 40, 7);
  ASSERT_EQ(c.size(), 49u);
  EXPECT_EQ(c[0], picker.pick(p));
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_TRUE(model::candidate_fits(p, c[i]));
    EXPECT_EQ(std::count(c.begin(), c.end(), c[i]), 1) << "repeated candidate " << i;
  }
  // The first nine are the model's nine best by predicted speed.
  const std::vector<float> s = picker.score(p, c);
  for (std::size_t i = 9; i < c.size(); ++i) EXPECT_LE(s[i], s[8] + 1e-6f);
  // Reproducible from the seed; another seed draws other random candidates.
  EXPECT_EQ(tuner::eval_candidates(picker, p, 8, 40, 7), c);
  EXPECT_NE(tuner::eval_candidates(picker, p, 8, 40, 8), c);
}

}  // namespace
