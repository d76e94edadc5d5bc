#include "eval_candidates.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include "dataset.hpp"

namespace ptxblas::tuner {
namespace {

gen::Op parse_op(const std::string& s) {
  if (s == "N") return gen::Op::N;
  if (s == "T") return gen::Op::T;
  if (s == "C") return gen::Op::C;
  throw std::invalid_argument("op must be N, T or C, not '" + s + "'");
}

}  // namespace

std::vector<EvalShape> read_eval_shapes(std::istream& in) {
  std::vector<EvalShape> out;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    line = line.substr(0, line.find('#'));
    std::istringstream is(line);
    std::string type, ta, tb;
    if (!(is >> type)) continue;  // blank or comment
    EvalShape s;
    try {
      if (type.size() != 1) throw std::invalid_argument("type must be one letter");
      s.problem.data = parse_type(type[0]);
      if (!(is >> ta >> tb >> s.problem.m >> s.problem.n >> s.problem.k)) throw std::invalid_argument("too few fields");
      s.problem.op_a = parse_op(ta);
      s.problem.op_b = parse_op(tb);
      if (s.problem.m < 1 || s.problem.n < 1 || s.problem.k < 1) throw std::invalid_argument("sizes must be >= 1");
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error("shapes line " + std::to_string(no) + ": " + e.what());
    }
    is >> s.name;
    out.push_back(s);
  }
  return out;
}

std::vector<gen::Tuning> eval_candidates(model::Picker& picker, const model::Problem& p, int top, int random,
                                         std::uint64_t seed) {
  std::vector<gen::Tuning> out = picker.top(p, 1 + std::max(top, 0));  // the pick, then its runners-up
  auto add = [&](const gen::Tuning& t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  std::vector<gen::Tuning> fitting;
  for (const gen::Tuning& t : picker.space(p.data))
    if (model::candidate_fits(p, t)) fitting.push_back(t);
  std::mt19937_64 rng(seed);
  std::shuffle(fitting.begin(), fitting.end(), rng);
  const std::size_t want = out.size() + static_cast<std::size_t>(std::max(random, 0));
  for (std::size_t i = 0; i < fitting.size() && out.size() < want; ++i) add(fitting[i]);
  return out;
}

}  // namespace ptxblas::tuner
