// Model files: a round trip keeps every prediction; damaged files give one clear error line
// naming the file, never a crash or a half-loaded model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <utility>

#include "features.hpp"
#include "model_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ptxblas;

model::Model sample_model() {
  model::Model m;
  m.device_name = "NVIDIA H100 80GB HBM3";
  m.sm = 90;
  m.device_key = model::device_key(m.device_name, m.sm);
  m.mean.assign(static_cast<std::size_t>(model::feature_count()), 0.5f);
  m.stddev.assign(static_cast<std::size_t>(model::feature_count()), 2.0f);
  m.mlp = model::Mlp::random({model::feature_count(), 16, 8, 1}, 11);
  m.trained_with = "unit test";
  m.max_flops = 1.5e11;
  m.max_stages = 4;
  m.trust_margin = 0.25f;
  return m;
}

class ModelFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptxblas-model-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    model::save_model(sample_model(), dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string load_error() {
    std::string error;
    EXPECT_FALSE(model::load_model(dir_, error).has_value());
    EXPECT_NE(error.find("model.toml"), std::string::npos) << error;
    return error;
  }
  void rewrite_toml(const std::string& from, const std::string& to) {
    std::ifstream in(dir_ / "model.toml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ / "model.toml") << text;
  }
  fs::path dir_;
};

TEST(DeviceKey, IsReadableAndStable) {
  EXPECT_EQ(model::device_key("NVIDIA H100 80GB HBM3", 90), "nvidia-h100-80gb-hbm3-sm90");
  EXPECT_EQ(model::device_key("  NVIDIA  A100-SXM4-40GB ", 80), "nvidia-a100-sxm4-40gb-sm80");
}

TEST_F(ModelFile, RoundTripKeepsPredictions) {
  std::string error;
  const auto m = model::load_model(dir_, error);
  ASSERT_TRUE(m.has_value()) << error;
  const model::Model orig = sample_model();
  EXPECT_EQ(m->device_key, orig.device_key);
  EXPECT_EQ(m->sm, 90);
  EXPECT_EQ(m->mean, orig.mean);
  EXPECT_EQ(m->max_flops, 1.5e11);
  EXPECT_EQ(m->max_stages, 4);
  EXPECT_EQ(m->trust_margin, 0.25f);
  std::mt19937 rng(3);
  std::vector<float> x(static_cast<std::size_t>(model::feature_count()) * 10);
  for (float& v : x) v = std::uniform_real_distribution<float>(-3, 3)(rng);
  std::vector<float> a(10), b(10);
  orig.mlp.predict(x.data(), 10, a.data());
  m->mlp.predict(x.data(), 10, b.data());
  EXPECT_EQ(a, b);
}

TEST_F(ModelFile, NegativeMaxFlops) {
  rewrite_toml("max_flops = 150000000000", "max_flops = -1");
  EXPECT_NE(load_error().find("max_flops"), std::string::npos);
}

// Files written before the cp.async stages have no max_stages: their rows measured 1 and 2.
TEST_F(ModelFile, MaxStagesDefaultsToRegisterStagingAndIsChecked) {
  rewrite_toml("max_stages = 4\n", "");
  std::string error;
  const auto m = model::load_model(dir_, error);
  ASSERT_TRUE(m.has_value()) << error;
  EXPECT_EQ(m->max_stages, 2);
  std::ofstream(dir_ / "model.toml", std::ios::app) << "max_stages = 9\n";
  EXPECT_NE(load_error().find("max_stages"), std::string::npos);
}

TEST_F(ModelFile, TrustMarginIsChecked) {
  rewrite_toml("trust_margin = 0.25", "trust_margin = -0.5");
  EXPECT_NE(load_error().find("trust_margin"), std::string::npos);
}

// A key of the wrong kind is an error naming it, never its default taken silently.
TEST_F(ModelFile, KeysOfTheWrongKindAreErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"trust_margin = 0.25", "trust_margin = '0.25'"}, {"max_stages = 4", "max_stages = 4.5"},
      {"max_stages = 4", "max_stages = true"},          {"max_flops = 150000000000.0", "max_flops = 'big'"},
      {"sm = 90", "sm = 9.0"}};
  for (const auto& [from, to] : cases) {
    SetUp();
    rewrite_toml(from, to);
    const std::string key(from, std::string(from).find(' '));
    EXPECT_NE(load_error().find(key), std::string::npos) << to;
  }
}

TEST_F(ModelFile, TruncatedWeights) {
  fs::resize_file(dir_ / "weights.bin", fs::file_size(dir_ / "weights.bin") - 4);
  EXPECT_NE(load_error().find("truncated"), std::string::npos);
}

TEST_F(ModelFile, CorruptedWeights) {
  std::fstream f(dir_ / "weights.bin", std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(40);
  f.put('\x7f');
  f.close();
  EXPECT_NE(load_error().find("checksum"), std::string::npos);
}

TEST_F(ModelFile, MissingWeights) {
  fs::remove(dir_ / "weights.bin");
  EXPECT_NE(load_error().find("missing"), std::string::npos);
}

TEST_F(ModelFile, SyntaxErrorNamesTheLine) {
  rewrite_toml("format =", "format = = ");
  EXPECT_NE(load_error().find("line"), std::string::npos);
}

TEST_F(ModelFile, WrongFormatOrFeaturesOrWidths) {
  rewrite_toml("ptxblas-mlp-1", "ptxblas-mlp-0");
  EXPECT_NE(load_error().find("format"), std::string::npos);
  SetUp();
  rewrite_toml("log2_kg", "log2_kx");
  EXPECT_NE(load_error().find("feature"), std::string::npos);
  SetUp();
  rewrite_toml("weights_count = ", "weights_count = 1");
  EXPECT_NE(load_error().find("weights_count"), std::string::npos);
}

// A folder naming a sibling's model through same_model_as loads the sibling's, one step only.
class SameModelAs : public ModelFile {
 protected:
  void SetUp() override {
    ModelFile::SetUp();
    model::save_model(sample_model(), dir_ / "nvidia-h100-80gb-hbm3-sm90");
  }
  // Writes dir_/<key>/model.toml naming `target` (a TOML value, quoted or not).
  fs::path alias(const std::string& key, const std::string& target) {
    fs::create_directories(dir_ / key);
    std::ofstream(dir_ / key / "model.toml") << "format = \"ptxblas-mlp-1\"\ndevice_key = \"" << key
                                             << "\"\nsame_model_as = " << target << "\n";
    return dir_ / key;
  }
  std::string error_of(const fs::path& dir) {
    std::string error;
    EXPECT_FALSE(model::load_model(dir, error).has_value());
    return error;
  }
};

TEST_F(SameModelAs, LoadsTheSiblingsModel) {
  std::string error;
  // Also through a trailing separator: the sibling is found beside the folder, not inside it.
  const auto m = model::load_model(alias("nvidia-h200-sm90", "\"nvidia-h100-80gb-hbm3-sm90\"") / "", error);
  ASSERT_TRUE(m.has_value()) << error;
  const model::Model orig = sample_model();
  EXPECT_EQ(m->device_key, orig.device_key);
  EXPECT_EQ(m->trust_margin, orig.trust_margin);
  std::vector<float> x(static_cast<std::size_t>(model::feature_count()), 0.75f), a(1), b(1);
  orig.mlp.predict(x.data(), 1, a.data());
  m->mlp.predict(x.data(), 1, b.data());
  EXPECT_EQ(a, b);
}

TEST_F(SameModelAs, AMissingSiblingIsNamed) {
  const std::string error = error_of(alias("nvidia-h200-sm90", "\"nvidia-b200-sm100\""));
  EXPECT_NE(error.find("nvidia-h200-sm90/model.toml"), std::string::npos) << error;
  EXPECT_NE(error.find("nvidia-b200-sm100"), std::string::npos) << error;
}

TEST_F(SameModelAs, OnlyOneStep) {
  alias("nvidia-h200-sm90", "\"nvidia-h100-80gb-hbm3-sm90\"");
  const std::string error = error_of(alias("nvidia-h20-sm90", "\"nvidia-h200-sm90\""));
  EXPECT_NE(error.find("one step only"), std::string::npos) << error;
  // A folder naming itself stops the same way, never recursing.
  EXPECT_NE(error_of(alias("self-sm90", "\"self-sm90\"")).find("one step only"), std::string::npos);
}

TEST_F(SameModelAs, OnlyADeviceKey) {
  for (const char* bad : {"\"../nvidia-h100-80gb-hbm3-sm90\"", "\"\"", "\"NVIDIA-H100\"", "90"}) {
    const std::string error = error_of(alias("nvidia-h200-sm90", bad));
    EXPECT_NE(error.find("same_model_as must be a device key"), std::string::npos) << bad << ": " << error;
  }
}

// The bundled H200 folder names the bundled H100 model, which loads (models/README.md).
TEST(BundledModels, TheH200RunsTheH100Model) {
  std::string error;
  const auto h200 = model::load_model(fs::path(PTXBLAS_SOURCE_MODELS) / "nvidia-h200-sm90", error);
  ASSERT_TRUE(h200.has_value()) << error;
  const auto h100 = model::load_model(fs::path(PTXBLAS_SOURCE_MODELS) / "nvidia-h100-80gb-hbm3-sm90", error);
  ASSERT_TRUE(h100.has_value()) << error;
  EXPECT_EQ(h200->device_key, "nvidia-h100-80gb-hbm3-sm90");
  EXPECT_EQ(h200->mean, h100->mean);
  EXPECT_EQ(h200->members, h100->members);
}

TEST_F(ModelFile, MissingDirectory) {
  std::string error;
  EXPECT_FALSE(model::load_model(dir_ / "nope", error).has_value());
  EXPECT_FALSE(error.empty());
}

}  // namespace
