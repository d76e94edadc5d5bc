#include "decision_store.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "config.hpp"

namespace ptxblas::dispatch {

std::string decision_line(const model::Problem& p, const gen::Tuning& t) {
  std::ostringstream os;
  os << static_cast<int>(p.data) << ' ' << static_cast<int>(p.op_a) << ' ' << static_cast<int>(p.op_b) << ' ' << p.m
     << ' ' << p.n << ' ' << p.k;
  for (int i = 0; i < gen::kTuningParams; ++i) os << ' ' << gen::tuning_value(t, i);
  return os.str();
}

std::optional<std::pair<model::Problem, gen::Tuning>> parse_decision_line(const std::string& line) {
  std::istringstream is(line);
  long long v[6 + gen::kTuningParams];
  for (long long& x : v)
    if (!(is >> x)) return std::nullopt;
  std::string rest;
  if (is >> rest) return std::nullopt;  // trailing garbage
  if (v[0] < 0 || v[0] > static_cast<int>(gen::DataType::C64) || v[1] < 0 || v[1] > 2 || v[2] < 0 || v[2] > 2 ||
      v[3] < 1 || v[4] < 1 || v[5] < 1)
    return std::nullopt;
  model::Problem p{static_cast<gen::DataType>(v[0]), static_cast<gen::Op>(v[1]), static_cast<gen::Op>(v[2]), v[3],
                   v[4], v[5]};
  gen::Tuning t;
  for (int i = 0; i < gen::kTuningParams; ++i) {
    const long long x = v[6 + i];
    if (x < 0 || x > (1 << 20)) return std::nullopt;
    gen::set_tuning_value(t, i, static_cast<int>(x));
  }
  return std::make_pair(p, t);
}

DecisionStore::DecisionStore(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  std::ifstream in(path_);
  if (!in) return;  // none yet
  std::string line;
  int line_no = 0, bad = 0, first_bad = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    if (auto d = parse_decision_line(line))
      decisions_.insert_or_assign(d->first, d->second);  // a later line wins
    else if (!bad++)
      first_bad = line_no;
  }
  if (bad && host::config().log_level != "quiet")
    std::fprintf(stderr, "ptxblas: warning: %s: %d malformed line(s) (first: line %d) skipped\n", path_.c_str(), bad,
                 first_bad);
}

std::optional<gen::Tuning> DecisionStore::find(const model::Problem& p) const {
  std::shared_lock lock(mutex_);
  if (auto it = decisions_.find(p); it != decisions_.end()) return it->second;
  return std::nullopt;
}

std::size_t DecisionStore::size() const {
  std::shared_lock lock(mutex_);
  return decisions_.size();
}

void DecisionStore::add(const model::Problem& p, const gen::Tuning& t) {
  std::unique_lock lock(mutex_);
  decisions_.insert_or_assign(p, t);
  if (path_.empty() || write_failed_) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
  // One short line per write, appended: concurrent processes interleave whole lines.
  std::ofstream out(path_, std::ios::app);
  out << decision_line(p, t) << '\n';
  out.flush();
  if (!out) {
    write_failed_ = true;
    if (host::config().log_level != "quiet")
      std::fprintf(stderr, "ptxblas: warning: cannot write %s; first-sight decisions stay in memory\n",
                   path_.c_str());
  }
}

std::string decisions_path(const std::string& device_key) {
  namespace fs = std::filesystem;
  fs::path dir;
  if (!host::config().cache_dir.empty())
    dir = host::config().cache_dir;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = fs::path(xdg) / "ptxblas";
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = fs::path(home) / ".cache" / "ptxblas";
  else
    return {};
  return (dir / ("decisions-" + device_key + ".txt")).string();
}

}  // namespace ptxblas::dispatch
