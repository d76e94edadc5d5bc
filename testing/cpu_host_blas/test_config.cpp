// ptxblas.toml: every setting read, bad keys and values named with file and line and replaced by
// defaults, a file that does not parse ignored as a whole; the offload policy's decisions.
#include <gtest/gtest.h>

#include "config.hpp"
#include "offload_policy.hpp"

namespace {

using namespace ptxblas::host;

TEST(Config, ReadsEverySetting) {
  std::vector<std::string> errors;
  const Config c = parse_config(R"(
[cpu]
blas = "/opt/openblas/libopenblas.so.0"
gflops = 800
[gpu]
device = 1
keep_mib = 512
memory_mib = 30000
tile_mib = 256
[paths]
models = "/m"
cache = "/c"
[dispatch]
benchmark_top_k = 4
[log]
level = "info"
[lapack]
panel = 128
cpu_calls = "program"
lu_panels = "host"
[offload]
default = 1e8
gemm = "always"
trsm = "never"
syrk = 5e9
)", "test.toml", errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(c.cpu_blas, "/opt/openblas/libopenblas.so.0");
  EXPECT_EQ(c.cpu_gflops, 800);
  EXPECT_EQ(c.gpu_device, 1);
  EXPECT_EQ(c.gpu_keep_mib, 512);
  EXPECT_EQ(c.gpu_memory_mib, 30000);
  EXPECT_EQ(c.gpu_tile_mib, 256);
  EXPECT_EQ(c.model_dir, "/m");
  EXPECT_EQ(c.cache_dir, "/c");
  EXPECT_EQ(c.benchmark_top_k, 4);
  EXPECT_EQ(c.log_level, "info");
  EXPECT_EQ(c.lapack_panel, 128);
  EXPECT_TRUE(c.lapack_program_first);
  EXPECT_FALSE(c.lapack_lu_panels_on_gpu);
  EXPECT_EQ(c.rule("gemm").mode, OffloadRule::Mode::Always);
  EXPECT_EQ(c.rule("trsm").mode, OffloadRule::Mode::Never);
  EXPECT_EQ(c.rule("syrk").min_flops, 5e9);
  EXPECT_EQ(c.rule("symm").min_flops, 1e8);  // from default
}

TEST(Config, BadKeysAndValuesKeepDefaults) {
  std::vector<std::string> errors;
  const Config c = parse_config(R"(
[cpu]
blas = 42
colour = "blue"
gflops = -5
[gpu]
device = -2
keep_mib = -1
[log]
level = "loud"
[offload]
gemm = "sometimes"
gemv = 1e6
[extra]
x = 1
[dispatch]
benchmark_top_k = 99
[lapack]
panel = 8
cpu_calls = "sometimes"
lu_panels = "cpu"
)", "bad.toml", errors);
  const Config d;
  EXPECT_EQ(c.cpu_blas, d.cpu_blas);
  EXPECT_EQ(c.gpu_device, 0);
  EXPECT_EQ(c.log_level, "warn");
  EXPECT_EQ(c.rule("gemm").min_flops, d.default_rule.min_flops);
  EXPECT_EQ(c.cpu_gflops, d.cpu_gflops);
  EXPECT_EQ(c.gpu_keep_mib, d.gpu_keep_mib);
  EXPECT_EQ(c.benchmark_top_k, 0);
  EXPECT_EQ(c.lapack_panel, d.lapack_panel);
  EXPECT_FALSE(c.lapack_program_first);
  EXPECT_TRUE(c.lapack_lu_panels_on_gpu);
  ASSERT_EQ(errors.size(), 13u);
  auto mentions = [&](const std::string& key, const std::string& line) {
    for (const std::string& e : errors)
      if (e.find(key) != std::string::npos && e.find("bad.toml:" + line) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(mentions("'blas'", "3"));
  EXPECT_TRUE(mentions("'cpu.colour'", "4"));
  EXPECT_TRUE(mentions("'cpu.gflops'", "5"));
  EXPECT_TRUE(mentions("gpu.device", ""));
  EXPECT_TRUE(mentions("'gpu.keep_mib'", "8"));
  EXPECT_TRUE(mentions("'log.level'", "10"));
  EXPECT_TRUE(mentions("'offload.gemm'", "12"));
  EXPECT_TRUE(mentions("'offload.gemv'", "13"));
  EXPECT_TRUE(mentions("'extra'", "14"));
  EXPECT_TRUE(mentions("'dispatch.benchmark_top_k'", "17"));
  EXPECT_TRUE(mentions("'lapack.panel'", "19"));
  EXPECT_TRUE(mentions("'lapack.cpu_calls'", "20"));
  EXPECT_TRUE(mentions("'lapack.lu_panels'", "21"));
}

TEST(Config, BadTileLimitsKeepDefaults) {
  std::vector<std::string> errors;
  const Config c = parse_config("[gpu]\nmemory_mib = -4\ntile_mib = \"big\"\n", "tiles.toml", errors);
  const Config d;
  EXPECT_EQ(c.gpu_memory_mib, d.gpu_memory_mib);
  EXPECT_EQ(c.gpu_tile_mib, d.gpu_tile_mib);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("tiles.toml:2"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("'gpu.memory_mib'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("tiles.toml:3"), std::string::npos) << errors[1];
  EXPECT_NE(errors[1].find("tile_mib"), std::string::npos) << errors[1];
}

TEST(Config, UnparsableFileKeepsAllDefaults) {
  std::vector<std::string> errors;
  const Config c = parse_config("[cpu\nblas = \"x\"\n", "broken.toml", errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("broken.toml:1"), std::string::npos) << errors[0];
  EXPECT_EQ(c.cpu_blas, "");
  EXPECT_EQ(c.source, "built-in defaults");
}

TEST(OffloadPolicy, Decisions) {
  const OffloadRule always{OffloadRule::Mode::Always, 0}, never{OffloadRule::Mode::Never, 0},
      threshold{OffloadRule::Mode::Threshold, 1e9};
  const double cpu = 500e9;
  EXPECT_EQ(place(never, 1e15, 1e6, cpu, true).where, Where::Cpu);
  EXPECT_EQ(place(always, 1, 1, cpu, true).where, Where::Gpu);
  EXPECT_EQ(place(always, 1e15, 1, cpu, false).where, Where::Cpu);  // no device path: CPU whatever the rule
  EXPECT_EQ(place(threshold, 1e8, 1e3, cpu, true).where, Where::Cpu);
  EXPECT_EQ(place(threshold, 1e12, 1e8, cpu, true).where, Where::Gpu);
  EXPECT_EQ(place(threshold, 2e9, 1e12, cpu, true).where, Where::Cpu);  // copies dominate
  // A LAPACK trailing update, 8192 x 8192 x 64 (C read and written): ~10 flops a byte stays on a
  // 500 GFLOP/s CPU, goes to the GPU when the CPU is ten times slower.
  const double flops = 2.0 * 8192 * 8192 * 64, bytes = 8.0 * (2 * 8192 * 64 + 2 * 8192 * 8192);
  EXPECT_EQ(place(threshold, flops, bytes, cpu, true).where, Where::Cpu);
  EXPECT_EQ(place(threshold, flops, bytes, cpu / 10, true).where, Where::Gpu);
  // A square 4096^3 GEMM: the GPU, copies and all.
  EXPECT_EQ(place(threshold, 2.0 * 4096 * 4096 * 4096, 8.0 * 4 * 4096 * 4096, cpu, true).where, Where::Gpu);
}

// A factorization's host round trips (one per panel) count against the GPU: dpotrf at n = 2048 in
// 8 panels goes to the GPU (~4.7 ms against 5.7 on the CPU), in 64 panels it would not.
TEST(OffloadPolicy, FactorizationSteps) {
  const OffloadRule threshold{OffloadRule::Mode::Threshold, 2e9};
  const double n = 2048, flops = n * n * n / 3, bytes = 2 * 8 * n * n, cpu = 500e9;
  EXPECT_EQ(place(threshold, flops, bytes, cpu, true, 8).where, Where::Gpu);
  EXPECT_EQ(place(threshold, flops, bytes, cpu, true, 64).where, Where::Cpu);
  // The default of one step is a BLAS call's.
  EXPECT_EQ(place(threshold, flops, bytes, cpu, true).where, Where::Gpu);
}

}  // namespace
