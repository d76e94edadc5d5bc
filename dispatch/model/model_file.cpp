#include "model_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <toml++/toml.h>

#include "features.hpp"

namespace ptxblas::model {
namespace {

namespace fs = std::filesystem;

// FNV-1a over the weight bytes: detects truncation and corruption.
std::uint64_t fnv1a(const std::vector<float>& v) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(float); ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << std::hex << v;
  return os.str();
}

std::vector<float> flatten(const Mlp& mlp) {
  std::vector<float> all;
  for (const DenseLayer& l : mlp.layers()) {
    all.insert(all.end(), l.w.begin(), l.w.end());
    all.insert(all.end(), l.b.begin(), l.b.end());
  }
  return all;
}

template <class T>
toml::array to_array(const std::vector<T>& v) {
  toml::array a;
  for (const T& x : v) a.push_back(x);
  return a;
}

// A scalar key: `fallback` where the key is absent, its value where it holds the kind T asks
// for (an integer for integers, an integer or a float for doubles, a boolean for bool), and
// nothing where it holds anything else, so a damaged key is an error, never a silent default.
template <class T>
std::optional<T> scalar(const toml::table& t, const char* key, T fallback) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  if constexpr (std::is_same_v<T, bool>) {
    if (!n->is_boolean()) return std::nullopt;
  } else if constexpr (std::is_integral_v<T>) {
    if (!n->is_integer()) return std::nullopt;
  } else {
    if (!n->is_number()) return std::nullopt;
  }
  return n->value<T>();
}

// Numbers of a TOML array, or nothing if it is missing or holds a non-number.
std::optional<std::vector<double>> numbers(const toml::node* n) {
  const toml::array* a = n ? n->as_array() : nullptr;
  if (!a) return std::nullopt;
  std::vector<double> v;
  for (const toml::node& x : *a) {
    if (auto d = x.value<double>())
      v.push_back(*d);
    else
      return std::nullopt;
  }
  return v;
}

}  // namespace

std::string device_key(const std::string& device_name, int sm) {
  std::string k;
  for (char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!k.empty() && k.back() != '-')
      k += '-';
  }
  while (!k.empty() && k.back() == '-') k.pop_back();
  return k + "-sm" + std::to_string(sm);
}

void save_model(const Model& m, const fs::path& dir) {
  fs::create_directories(dir);
  const std::vector<float> weights = flatten(m.mlp);
  std::vector<int> widths = m.mlp.widths();
  std::vector<int> groups;
  for (const DenseLayer& l : m.mlp.layers()) groups.push_back(l.groups);
  toml::table t{
      {"format", kModelFormat},
      {"device_key", m.device_key},
      {"device_name", m.device_name},
      {"sm", m.sm},
      {"features", to_array(feature_names())},
      {"widths", to_array(widths)},
      {"mean", to_array(m.mean)},
      {"stddev", to_array(m.stddev)},
      {"target", "log2 TFLOP/s"},
      {"weights_file", "weights.bin"},
      {"weights_count", static_cast<std::int64_t>(weights.size())},
      {"weights_fnv1a", hex(fnv1a(weights))},
      {"trained_with", m.trained_with},
      {"max_flops", m.max_flops},
      {"max_stages", m.max_stages},
      {"trust_margin", static_cast<double>(m.trust_margin)},
  };
  // Only an ensemble's file has the key, so single networks' files read as before.
  if (std::any_of(groups.begin(), groups.end(), [](int g) { return g != 1; })) t.insert("groups", to_array(groups));
  if (m.members > 1) t.insert("members", m.members);
  if (m.trust_all_members) t.insert("trust_all_members", true);
  std::ofstream meta(dir / "model.toml");
  meta << "# ptxblas performance model (format documented in models/README.md)\n" << t << "\n";
  std::ofstream bin(dir / "weights.bin", std::ios::binary);
  bin.write(reinterpret_cast<const char*>(weights.data()), static_cast<std::streamsize>(weights.size() * sizeof(float)));
  if (!meta || !bin) throw std::runtime_error("cannot write model into " + dir.string());
}

// follow_alias: whether `same_model_as` may be followed (one step only, so no cycles).
static std::optional<Model> load_model_or_throw(const fs::path& dir, std::string& error, bool follow_alias) {
  const fs::path meta_path = dir / "model.toml";
  auto fail = [&](const std::string& what) -> std::optional<Model> {
    error = meta_path.string() + ": " + what;
    return std::nullopt;
  };
  toml::table t;
  try {
    t = toml::parse_file(meta_path.string());
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "line " << e.source().begin.line << ": " << e.description();
    return fail(os.str());
  }
  if (t["format"].value_or(std::string{}) != kModelFormat) return fail("format is not " + std::string(kModelFormat));
  // A device that runs a sibling's model (the same chip with other memory: the H200 runs the
  // H100's) names it instead of holding a copy of its weights.
  if (const toml::node* alias = t.get("same_model_as")) {
    const std::string key = alias->value_or(std::string{});
    const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
    if (!plain) return fail("same_model_as must be a device key (a-z, 0-9, -)");
    if (!follow_alias) return fail("names a model through same_model_as, and so does the folder naming it (one step only)");
    const fs::path sibling = (dir / "..").lexically_normal() / key;
    if (!fs::exists(sibling / "model.toml")) return fail("same_model_as names " + key + ", which has no model.toml beside it");
    return load_model_or_throw(sibling, error, false);
  }
  Model m;
  m.device_key = t["device_key"].value_or(std::string{});
  m.device_name = t["device_name"].value_or(std::string{});
  const std::optional<std::int64_t> sm = scalar<std::int64_t>(t, "sm", 0);
  if (!sm || *sm < 0 || *sm > 1000) return fail("sm must be an integer compute capability (e.g. 90)");
  m.sm = static_cast<int>(*sm);
  m.trained_with = t["trained_with"].value_or(std::string{});
  const std::optional<double> max_flops = scalar(t, "max_flops", 0.0);
  if (!max_flops || !(*max_flops >= 0)) return fail("max_flops must be a number >= 0");
  m.max_flops = *max_flops;
  const std::optional<std::int64_t> max_stages = scalar<std::int64_t>(t, "max_stages", 2);
  if (!max_stages || *max_stages < 1 || *max_stages > gen::kMaxAsyncStages) return fail("max_stages must be an integer 1 to 6");
  m.max_stages = static_cast<int>(*max_stages);
  const std::optional<double> margin = scalar(t, "trust_margin", 0.15);
  if (!margin || !(*margin >= 0 && *margin <= 2)) return fail("trust_margin must be a number 0 to 2 (log2)");
  m.trust_margin = static_cast<float>(*margin);
  const auto feats = t["features"].as_array();
  if (!feats || static_cast<int>(feats->size()) != feature_count()) return fail("features differ from this library's");
  for (std::size_t i = 0; i < feats->size(); ++i)
    if ((*feats)[i].value_or(std::string{}) != feature_names()[i])
      return fail("feature " + std::to_string(i) + " is not " + feature_names()[i]);
  const auto widths = numbers(t.get("widths")), mean = numbers(t.get("mean")), stddev = numbers(t.get("stddev"));
  if (!widths || widths->size() < 2) return fail("widths missing or too short");
  if (static_cast<int>(widths->front()) != feature_count() || widths->back() != 1)
    return fail("widths must start at the feature count and end at 1");
  if (!mean || !stddev || mean->size() != feats->size() || stddev->size() != feats->size())
    return fail("mean/stddev missing or of the wrong length");
  for (double s : *stddev)
    if (!(s > 0)) return fail("stddev must be positive");
  m.mean.assign(mean->begin(), mean->end());
  m.stddev.assign(stddev->begin(), stddev->end());

  const std::size_t layer_count = widths->size() - 1;
  std::vector<double> groups(layer_count, 1.0);
  if (const toml::node* g = t.get("groups")) {
    const auto given = numbers(g);
    if (!given || given->size() != layer_count) return fail("groups must hold one number per layer");
    groups = *given;
  }
  std::size_t expected = 0;
  for (std::size_t i = 0; i < layer_count; ++i) {
    if ((*widths)[i] < 1 || (*widths)[i] > 65536) return fail("implausible layer width");
    const double g = groups[i];
    if (!(g >= 1) || g != std::floor(g) || std::fmod((*widths)[i], g) != 0 || std::fmod((*widths)[i + 1], g) != 0)
      return fail("layer " + std::to_string(i) + "'s groups must divide its widths");
    expected += static_cast<std::size_t>((*widths)[i] / g * (*widths)[i + 1] + (*widths)[i + 1]);
  }
  if (t["weights_count"].value_or(std::int64_t{-1}) != static_cast<std::int64_t>(expected))
    return fail("weights_count does not match the widths");
  const fs::path bin_path = dir / t["weights_file"].value_or(std::string("weights.bin"));
  std::ifstream bin(bin_path, std::ios::binary);
  std::vector<float> w(expected);
  bin.read(reinterpret_cast<char*>(w.data()), static_cast<std::streamsize>(expected * sizeof(float)));
  if (!bin || bin.gcount() != static_cast<std::streamsize>(expected * sizeof(float)) || bin.peek() != EOF)
    return fail(bin_path.filename().string() + " is missing, truncated or too long");
  if (t["weights_fnv1a"].value_or(std::string{}) != hex(fnv1a(w)))
    return fail(bin_path.filename().string() + " does not match its checksum");

  std::vector<DenseLayer> layers;
  std::size_t at = 0;
  for (std::size_t i = 0; i + 1 < widths->size(); ++i) {
    DenseLayer l;
    l.in = static_cast<int>((*widths)[i]);
    l.out = static_cast<int>((*widths)[i + 1]);
    l.groups = static_cast<int>(groups[i]);
    const std::size_t nw = static_cast<std::size_t>(l.in / l.groups) * static_cast<std::size_t>(l.out);
    l.w.assign(w.begin() + static_cast<std::ptrdiff_t>(at), w.begin() + static_cast<std::ptrdiff_t>(at + nw));
    at += nw;
    l.b.assign(w.begin() + static_cast<std::ptrdiff_t>(at), w.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(l.out)));
    at += static_cast<std::size_t>(l.out);
    layers.push_back(std::move(l));
  }
  m.mlp = Mlp(std::move(layers));
  const std::optional<std::int64_t> members = scalar<std::int64_t>(t, "members", 1);
  if (!members || *members < 1 || *members > 64) return fail("members must be an integer 1 to 64");
  m.members = static_cast<int>(*members);
  if (m.members > 1) {
    try {
      m.mlp.member(m.members, 0);
    } catch (const std::invalid_argument&) {
      return fail("the layers are not an ensemble of " + std::to_string(m.members) + " members");
    }
  }
  const std::optional<bool> all = scalar(t, "trust_all_members", false);
  if (!all) return fail("trust_all_members must be true or false");
  m.trust_all_members = *all;
  return m;
}

std::optional<Model> load_model(const fs::path& dir, std::string& error) {
  try {
    return load_model_or_throw(dir, error, true);
  } catch (const std::exception& e) {
    error = (dir / "model.toml").string() + ": " + e.what();
    return std::nullopt;
  }
}

}  // namespace ptxblas::model
