#include "model_registry.hpp"

#include "config.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

namespace ptxblas::dispatch {
namespace {

namespace fs = std::filesystem;

std::shared_mutex g_mutex;  // read on every GEMM call, written once per device
std::map<std::string, std::unique_ptr<model::Picker>> g_pickers;  // nullptr: none for this key

// The folder holding libptxblas.so (the build copies models/ beside it).
std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) && info.dli_fname)
    return fs::path(info.dli_fname).parent_path().string();
  return ".";
}

bool quiet() { return host::config().log_level == "quiet"; }

std::unique_ptr<model::Picker> load_for(const std::string& key) {
  std::string tried, error;
  for (const std::string& dir : model_dirs()) {
    const fs::path p = fs::path(dir) / key;
    std::error_code ec;
    if (!fs::exists(p / "model.toml", ec)) {
      tried += (tried.empty() ? "" : ", ") + p.string();
      continue;
    }
    if (auto m = model::load_model(p, error)) return std::make_unique<model::Picker>(std::move(*m));
    if (!quiet()) std::fprintf(stderr, "ptxblas: warning: %s; using the built-in heuristic\n", error.c_str());
    return nullptr;
  }
  if (!quiet())
    std::fprintf(stderr,
               "ptxblas: no performance model for %s (looked in %s); using the built-in heuristic. "
               "Tune this GPU with ptxblas-tune.\n",
               key.c_str(), tried.c_str());
  return nullptr;
}

}  // namespace

std::vector<std::string> model_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("PTXBLAS_MODEL_DIR"); env && *env) dirs.emplace_back(env);
  if (!host::config().model_dir.empty()) dirs.push_back(host::config().model_dir);
  dirs.push_back((fs::path(library_dir()) / "models").string());
  return dirs;
}

model::Picker* picker_for(const DeviceInfo& dev) {
  {
    std::shared_lock lock(g_mutex);
    if (auto it = g_pickers.find(dev.model_key); it != g_pickers.end()) return it->second.get();
  }
  std::unique_lock lock(g_mutex);
  auto it = g_pickers.find(dev.model_key);
  if (it == g_pickers.end()) it = g_pickers.emplace(dev.model_key, load_for(dev.model_key)).first;
  return it->second.get();
}

DecisionStore& decision_store_for(const DeviceInfo& dev) {
  // Read on every GEMM call while dispatch.benchmark_top_k is on: a shared lock, as for pickers.
  static std::shared_mutex mutex;
  static std::map<std::string, std::unique_ptr<DecisionStore>> stores;
  {
    std::shared_lock lock(mutex);
    if (auto it = stores.find(dev.model_key); it != stores.end()) return *it->second;
  }
  std::unique_lock lock(mutex);
  auto& s = stores[dev.model_key];
  if (!s) s = std::make_unique<DecisionStore>(decisions_path(dev.model_key));
  return *s;
}

}  // namespace ptxblas::dispatch
