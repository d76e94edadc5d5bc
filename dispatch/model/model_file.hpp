// A model file pair for one device, in models/<device key>/:
//   model.toml   metadata (format, device, features, widths, normalisation, training record)
//   weights.bin  the layers' weights then biases, float32 little-endian, in layer order
// Or model.toml alone, naming a sibling device's folder whose model this device runs
// (`same_model_as`). Format documented in models/README.md. Loading never throws: a bad file gives
// an error line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlp.hpp"

namespace ptxblas::model {

inline constexpr const char* kModelFormat = "ptxblas-mlp-1";

struct Model {
  std::string device_key;          // e.g. "nvidia-h100-80gb-hbm3-sm90"
  std::string device_name;         // as the driver reports it
  int sm = 0;                      // 10 * major + minor
  std::vector<float> mean, stddev; // per feature, applied before the network
  Mlp mlp;                         // predicts log2(TFLOP/s)
  std::string trained_with;        // free text: command, samples, cross-validation error
  double max_flops = 0;            // the largest problem (2mnk) it was trained on; 0: not recorded
  float trust_margin = 0.15f;      // log2: the dispatcher takes the model's pick over the
                                   // heuristic's plan only when predicted this much faster
  int max_stages = 2;              // the most shared stages its rows measured (files before the
                                   // cp.async stages have no key: 2); the picker offers no more
  // Whether its rows measured cp.async stages (its space then holds them, so dispatch does not
  // lower its picks to them afterwards).
  bool knows_async_stages() const { return max_stages > 2; }
  int members = 1;                 // > 1: mlp is an ensemble of this many networks, their mean
  bool trust_all_members = false;  // an ensemble's pick replaces the heuristic's plan only if
                                   // every member also predicts it faster (beside trust_margin)
};

// "NVIDIA H100 80GB HBM3", 90 -> "nvidia-h100-80gb-hbm3-sm90".
std::string device_key(const std::string& device_name, int sm);

// Writes model.toml and weights.bin into dir (created if needed). Throws std::runtime_error.
void save_model(const Model& m, const std::filesystem::path& dir);

// Reads dir/model.toml and its weights; on any problem returns nothing and sets `error` to one
// line naming the file and what is wrong.
std::optional<Model> load_model(const std::filesystem::path& dir, std::string& error);

}  // namespace ptxblas::model
