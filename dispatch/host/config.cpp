#include "config.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace ptxblas::host {
namespace {

const std::set<std::string> kRoutines = {"gemm", "symm", "hemm",  "syrk", "herk",  "syr2k",
                                         "her2k", "trmm", "trsm", "potrf", "getrf"};

std::string where(const std::string& source, const toml::node& n) {
  return source + ":" + std::to_string(n.source().begin.line);
}

// "always" | "never" | a non-negative number of flops.
bool parse_rule(const toml::node& n, OffloadRule& out) {
  if (auto s = n.value<std::string>()) {
    if (*s == "always") return out = {OffloadRule::Mode::Always, 0}, true;
    if (*s == "never") return out = {OffloadRule::Mode::Never, 0}, true;
    return false;
  }
  if (auto d = n.value<double>(); d && *d >= 0) return out = {OffloadRule::Mode::Threshold, *d}, true;
  return false;
}

template <class T>
void read_value(const toml::table& t, const std::string& key, T& out, const std::string& source,
                std::vector<std::string>& errors) {
  const toml::node* n = t.get(key);
  if (!n) return;
  if (auto v = n->value<T>())
    out = *v;
  else
    errors.push_back(where(source, *n) + ": '" + key + "' has the wrong type; using the default");
}

void unknown_keys(const toml::table& t, const std::set<std::string>& known, const std::string& prefix,
                  const std::string& source, std::vector<std::string>& errors) {
  for (const auto& [k, v] : t)
    if (!known.count(std::string(k.str())))
      errors.push_back(where(source, v) + ": unknown key '" + prefix + std::string(k.str()) + "' (ignored)");
}

}  // namespace

const OffloadRule& Config::rule(const std::string& routine) const {
  auto it = rules.find(routine);
  return it == rules.end() ? default_rule : it->second;
}

Config parse_config(const std::string& text, const std::string& source, std::vector<std::string>& errors) {
  Config c;
  toml::table t;
  try {
    t = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << source << ":" << e.source().begin.line << ": " << e.description() << "; using built-in defaults";
    errors.push_back(os.str());
    return c;
  }
  c.source = source;
  unknown_keys(t, {"cpu", "offload", "gpu", "paths", "log", "dispatch", "lapack"}, "", source, errors);
  if (const toml::table* cpu = t["cpu"].as_table()) {
    unknown_keys(*cpu, {"blas", "gflops"}, "cpu.", source, errors);
    read_value(*cpu, "blas", c.cpu_blas, source, errors);
    double gflops = c.cpu_gflops;
    read_value(*cpu, "gflops", gflops, source, errors);
    if (gflops > 0)
      c.cpu_gflops = gflops;
    else if (const toml::node* n = cpu->get("gflops"))
      errors.push_back(where(source, *n) + ": 'cpu.gflops' must be > 0; using the default");
  }
  if (const toml::table* gpu = t["gpu"].as_table()) {
    unknown_keys(*gpu, {"device", "keep_mib", "memory_mib", "tile_mib"}, "gpu.", source, errors);
    std::int64_t dev = c.gpu_device;
    read_value(*gpu, "device", dev, source, errors);
    for (auto [key, value] : {std::pair{"keep_mib", &c.gpu_keep_mib}, std::pair{"memory_mib", &c.gpu_memory_mib},
                              std::pair{"tile_mib", &c.gpu_tile_mib}}) {
      std::int64_t v = *value;
      read_value(*gpu, key, v, source, errors);
      if (v >= 0)
        *value = v;
      else if (const toml::node* n = gpu->get(key))
        errors.push_back(where(source, *n) + ": 'gpu." + key + "' must be >= 0; using the default");
    }
    if (dev < 0) errors.push_back(source + ": 'gpu.device' must be >= 0; using 0");
    else c.gpu_device = static_cast<int>(dev);
  }
  if (const toml::table* disp = t["dispatch"].as_table()) {
    unknown_keys(*disp, {"benchmark_top_k"}, "dispatch.", source, errors);
    std::int64_t k = c.benchmark_top_k;
    read_value(*disp, "benchmark_top_k", k, source, errors);
    if (k >= 0 && k <= kMaxBenchmarkTopK)
      c.benchmark_top_k = static_cast<int>(k);
    else if (const toml::node* n = disp->get("benchmark_top_k"))
      errors.push_back(where(source, *n) + ": 'dispatch.benchmark_top_k' must be 0 to " +
                       std::to_string(kMaxBenchmarkTopK) + "; using 0");
  }
  if (const toml::table* lapack = t["lapack"].as_table()) {
    unknown_keys(*lapack, {"panel", "cpu_calls", "lu_panels"}, "lapack.", source, errors);
    std::int64_t panel = c.lapack_panel;
    read_value(*lapack, "panel", panel, source, errors);
    if (panel >= 32 && panel <= 1024)
      c.lapack_panel = panel;
    else if (const toml::node* n = lapack->get("panel"))
      errors.push_back(where(source, *n) + ": 'lapack.panel' must be 32 to 1024; using 256");
    std::string calls = c.lapack_program_first ? "program" : "cpu-blas";
    read_value(*lapack, "cpu_calls", calls, source, errors);
    if (calls == "program" || calls == "cpu-blas")
      c.lapack_program_first = calls == "program";
    else if (const toml::node* n = lapack->get("cpu_calls"))
      errors.push_back(where(source, *n) +
                       ": 'lapack.cpu_calls' must be \"cpu-blas\" or \"program\"; using \"cpu-blas\"");
    std::string lu = c.lapack_lu_panels_on_gpu ? "gpu" : "host";
    read_value(*lapack, "lu_panels", lu, source, errors);
    if (lu == "gpu" || lu == "host")
      c.lapack_lu_panels_on_gpu = lu == "gpu";
    else if (const toml::node* n = lapack->get("lu_panels"))
      errors.push_back(where(source, *n) + ": 'lapack.lu_panels' must be \"gpu\" or \"host\"; using \"gpu\"");
  }
  if (const toml::table* paths = t["paths"].as_table()) {
    unknown_keys(*paths, {"models", "cache"}, "paths.", source, errors);
    read_value(*paths, "models", c.model_dir, source, errors);
    read_value(*paths, "cache", c.cache_dir, source, errors);
  }
  if (const toml::table* log = t["log"].as_table()) {
    unknown_keys(*log, {"level"}, "log.", source, errors);
    std::string level = c.log_level;
    read_value(*log, "level", level, source, errors);
    if (level == "quiet" || level == "warn" || level == "info")
      c.log_level = level;
    else if (const toml::node* n = log->get("level"))
      errors.push_back(where(source, *n) + ": 'log.level' must be quiet, warn or info; using warn");
  }
  if (const toml::table* off = t["offload"].as_table()) {
    for (const auto& [k, v] : *off) {
      const std::string key(k.str());
      OffloadRule r;
      if (key != "default" && !kRoutines.count(key)) {
        errors.push_back(where(source, v) + ": unknown key 'offload." + key + "' (ignored)");
      } else if (!parse_rule(v, r)) {
        errors.push_back(where(source, v) + ": 'offload." + key +
                         "' must be \"always\", \"never\" or a number of flops >= 0; using the default");
      } else if (key == "default") {
        c.default_rule = r;
      } else {
        c.rules[key] = r;
      }
    }
  }
  return c;
}

std::vector<std::string> config_paths() {
  std::vector<std::string> p;
  if (const char* env = std::getenv("PTXBLAS_CONFIG"); env && *env) p.emplace_back(env);
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    p.push_back(std::string(xdg) + "/ptxblas/ptxblas.toml");
  else if (const char* home = std::getenv("HOME"); home && *home)
    p.push_back(std::string(home) + "/.config/ptxblas/ptxblas.toml");
  return p;
}

const Config& config() {
  static const Config c = [] {
    for (const std::string& path : config_paths()) {
      std::ifstream in(path);
      if (!in) {
        if (std::getenv("PTXBLAS_CONFIG") && path == std::getenv("PTXBLAS_CONFIG"))
          std::fprintf(stderr, "ptxblas: %s: cannot be read; using built-in defaults\n", path.c_str());
        continue;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      std::vector<std::string> errors;
      Config parsed = parse_config(ss.str(), path, errors);
      for (const std::string& e : errors) std::fprintf(stderr, "ptxblas: %s\n", e.c_str());
      return parsed;
    }
    return Config{};
  }();
  return c;
}

}  // namespace ptxblas::host
