// Which performance model serves a device: models/<device key>/ found beside the library
// (or under $PTXBLAS_MODEL_DIR), loaded once per key. Without one, dispatch uses the heuristic
// and says so once on stderr, naming ptxblas-tune.
#pragma once

#include <string>

#include "decision_store.hpp"
#include "kernel_cache.hpp"
#include "picker.hpp"

namespace ptxblas::dispatch {

// The picker for this device, or nullptr (no model, or a bad one: warned once).
model::Picker* picker_for(const DeviceInfo& dev);

// The first-sight decisions for this device (decisions_path of its key; created on first use).
DecisionStore& decision_store_for(const DeviceInfo& dev);

// Folders searched for models, in order.
std::vector<std::string> model_dirs();

}  // namespace ptxblas::dispatch
