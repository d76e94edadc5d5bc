// Decisions of first-sight benchmarks (ptxblas.toml dispatch.benchmark_top_k), kept in memory and
// appended to a file so that the next process starts with them: one line per problem,
//   <type> <op_a> <op_b> <m> <n> <k> <ml> <nl> <u> <ms> <ns> <vec> <kg> <family> <stages> <pad>
// (type and ops as the generator's enum values). Lines that do not parse are skipped with one
// warning; a tuning read back is checked for legality by its user before it runs.
#pragma once

#include <cstdio>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "picker.hpp"

namespace ptxblas::dispatch {

class DecisionStore {
 public:
  // Reads `path` if it exists; an empty path keeps decisions in memory only.
  explicit DecisionStore(std::string path);

  std::optional<gen::Tuning> find(const model::Problem& p) const;

  // Remembers t for p and appends it to the file (best effort: a failed write warns once).
  void add(const model::Problem& p, const gen::Tuning& t);

  const std::string& path() const { return path_; }
  std::size_t size() const;

 private:
  std::string path_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<model::Problem, gen::Tuning, model::ProblemHash> decisions_;
  bool write_failed_ = false;
};

// One line of the file, and its parse (nullopt for a malformed line).
std::string decision_line(const model::Problem& p, const gen::Tuning& t);
std::optional<std::pair<model::Problem, gen::Tuning>> parse_decision_line(const std::string& line);

// <dir>/decisions-<device key>.txt, dir: ptxblas.toml paths.cache, else $XDG_CACHE_HOME/ptxblas,
// else $HOME/.cache/ptxblas; empty when none of them is set.
std::string decisions_path(const std::string& device_key);

}  // namespace ptxblas::dispatch
