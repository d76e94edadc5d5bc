// Configuration fuzz (the generator issue): random configurations of both instruction families,
// pipeline options and K splits, forced through ptxblas_force_tile onto random ragged problems
// (K not a multiple of U included), each checked against the float64 reference and the real
// cuBLAS on fresh data with NaN-poisoned C. Draws the library refuses as illegal are forwarded
// and not counted; the test needs PTXBLAS_FUZZ_CONFIGS (default 240) served ones.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "entries.hpp"
#include "gemm_check.hpp"
#include "gpu_env.hpp"

namespace gputest {
namespace {

template <std::size_t N>
int pick(std::mt19937_64& rng, const int (&values)[N]) {
  return values[rng() % N];
}

// "simt|mma ML NL U MS NS VEC KG STORE_PAD STAGES KL RASTER KS" from the generator's value ranges
// (stages 3 and 4: the cp.async pipeline; raster -1: the launcher's rule); many draws are illegal
// for the type (the library says so by forwarding).
std::string random_spec(std::mt19937_64& rng, bool mma) {
  // The tuning space's ranges (the bundled model picks from all of it: 256-wide blocks, 16 and 32
  // thread tiles); ~17% of draws are legal.
  static constexpr int kBlock[] = {16, 32, 64, 128, 256}, kSimtU[] = {4, 8, 16}, kMmaU[] = {8, 16, 32},
                       kThread[] = {1, 2, 4, 8, 16, 32}, kVec[] = {1, 2, 4}, kWarpM[] = {8, 16, 32, 64},
                       kWarpN[] = {8, 16, 32, 64}, kKg[] = {1, 1, 1, 2, 3, 5, 12};
  const int ml = pick(rng, kBlock), nl = pick(rng, kBlock), kg = pick(rng, kKg), stages = 1 + static_cast<int>(rng() % 4);
  std::string s = mma ? "mma " : "simt ";
  s += std::to_string(ml) + " " + std::to_string(nl) + " " + std::to_string(pick(rng, mma ? kMmaU : kSimtU)) + " ";
  if (mma)
    s += std::to_string(pick(rng, kWarpM)) + " " + std::to_string(pick(rng, kWarpN)) + " 1 ";
  else
    s += std::to_string(pick(rng, kThread)) + " " + std::to_string(pick(rng, kThread)) + " " +
         std::to_string(pick(rng, kVec)) + " ";
  static constexpr int kKl[] = {1, 1, 2, 4};           // KernelConfig::kl
  static constexpr int kRaster[] = {-1, -1, 0, 2, 4, 8};  // KernelConfig::raster (problems span 1-10 row tiles)
  static constexpr int kKs[] = {1, 1, 2, 4};               // KernelConfig::ks
  s += std::to_string(kg) + " " + std::to_string(mma ? static_cast<int>(rng() % 2) : 0) + " " + std::to_string(stages) +
       " " + std::to_string(pick(rng, kKl)) + " " + std::to_string(pick(rng, kRaster)) + " " +
       std::to_string(pick(rng, kKs));
  return s;
}

// A name ends in "_s<stages>" exactly when stages > 1.
bool stages_suffix_matches(const std::string& name, int stages) {
  const std::string last = name.substr(name.rfind('_') + 1);
  const bool has = last.size() == 2 && last[0] == 's' && last[1] >= '2' && last[1] <= '9';
  return stages > 1 ? last == "s" + std::to_string(stages) : !has;
}

// Removes `suffix` from the end of the name, if it ends so.
bool strip_suffix(std::string& name, const std::string& suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  name.resize(name.size() - suffix.size());
  return true;
}

// Removes `tag` + count ("_kl2") from the name; true when the name has it exactly when count > 1
// and with this count.
bool take_count_suffix(std::string& name, const std::string& tag, int count) {
  const std::size_t at = name.find(tag);
  if (at == std::string::npos) return count == 1;
  const std::string suffix = tag + std::to_string(count);
  if (count == 1 || name.compare(at, suffix.size(), suffix) != 0) return false;
  name.erase(at, suffix.size());
  return true;
}

// Whether the kernel name ("mma_d_nt_64x64x8_32x32_p_s2 kg=3", or "..._s3_vc" / "_vca" / "_vcb"
// where the launcher chose vector copies, "_fs" where it fused the split, "_r<G>" for a raster) is
// the forced spec's tile: family, block and warp/thread tile, store_pad, stages and raster (none
// for -1: these problems are far smaller than the launcher's rule); no split when kg = 1 (a kg > 1
// may still run unsplit when K is too shallow for it).
bool runs_forced_tile(const std::string& kernel, const std::string& spec) {
  char family[8] = {};
  int ml, nl, u, ms, ns, vec, kg, pad, stages, kl, raster, ks;
  if (std::sscanf(spec.c_str(), "%7s %d %d %d %d %d %d %d %d %d %d %d %d", family, &ml, &nl, &u, &ms, &ns, &vec, &kg,
                  &pad, &stages, &kl, &raster, &ks) != 13)
    return false;
  std::string name = kernel.substr(0, kernel.find(' '));
  if (raster > 0 && !strip_suffix(name, "_r" + std::to_string(raster))) return false;  // the last suffix
  // Split-K finished in the GEMM (the launcher's variant): "..._s3_vc_fs kg=2".
  if (strip_suffix(name, "_fs") && kernel.find(" kg=") == std::string::npos) return false;
  strip_suffix(name, "_lf");  // Z's planar loop fetching late (the launcher's variant at K >= 256, §157)
  strip_suffix(name, "_ce");  // clamped edges (the launcher's variant for f64's 64x32x16 16x32, §151)
  for (const char* vc : {"_vc", "_vca", "_vcb"}) strip_suffix(name, vc);  // vector copies, of both operands or one
  // KL's and KS's suffixes follow the stages' ("..._s3_kl2_ks2_vc").
  if (!take_count_suffix(name, "_kl", kl) || !take_count_suffix(name, "_ks", ks)) return false;
  const std::string tile = "_" + std::to_string(ml) + "x" + std::to_string(nl) + "x" + std::to_string(u) + "_" +
                           std::to_string(ms) + "x" + std::to_string(ns);
  return name.rfind(std::string(family) + "_", 0) == 0 && name.find(tile) != std::string::npos &&
         (pad == 1) == (name.find("_p") != std::string::npos) && stages_suffix_matches(name, stages) &&
         (kg > 1 || kernel.find(" kg=") == std::string::npos);
}

TEST(ConfigFuzz, RandomLegalConfigurationsMatchTheReference) {
  SKIP_WITHOUT_GPU();
  const auto force = reinterpret_cast<int (*)(const char*)>(ptxblas_symbol("ptxblas_force_tile"));
  const ForcedTile clear_at_end("");  // cleared however the test ends
  const char* env = std::getenv("PTXBLAS_FUZZ_CONFIGS");
  const int wanted = env && *env ? std::atoi(env) : 240;
  Handle h;
  std::mt19937_64 rng(test_seed() ^ 0xF022ull);
  // Entries with a tensor-core family (mma) and without (simt only for S and C).
  const char* kEntries[] = {"Sgemm", "Dgemm", "Cgemm", "Zgemm", "Hgemm", "GemmEx_R16BF_C32F", "GemmEx_R16F_C32F"};
  constexpr cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  int served = 0, draws = 0;
  while (served < wanted && draws < 40 * wanted) {
    ++draws;
    const Entry& e = entry_named(kEntries[rng() % std::size(kEntries)]);
    const bool mma_type = e.elem != Elem::F32 && e.elem != Elem::C32;
    const std::string spec = random_spec(rng, mma_type && rng() % 4 != 0);
    ASSERT_EQ(force(spec.c_str()), 0) << spec;
    std::uniform_int_distribution<std::int64_t> mn(1, 150), kd(1, 300);  // K = 0 multiplies nothing
    Gemm g{kOps[rng() % 3], kOps[rng() % 3], mn(rng), mn(rng), kd(rng), 0, 0, 0, {1.25, -0.5}, {0, 0}};
    if (rng() % 2) g.beta = {-0.5, 0.75};
    g.lda = leading_dim(a_rows(g), rng() % 2, rng);
    g.ldb = leading_dim(b_rows(g), rng() % 2, rng);
    g.ldc = leading_dim(g.m, rng() % 2, rng);
    CheckOptions opt;
    opt.expect_served = false;  // an illegal draw is forwarded; judged below
    const CheckResult r = check_gemm(e, g, h.get(), rng, opt);
    if (r.kernel.rfind("forwarded: forced tile illegal", 0) == 0) continue;
    EXPECT_EQ(r.failure, "") << e.name << " " << spec << ": " << describe(e, g) << " -> " << r.kernel;
    EXPECT_TRUE(runs_forced_tile(r.kernel, spec)) << "forced " << spec << ", ran " << r.kernel;
    ++served;
  }
  std::printf("[ fuzz    ] %d configurations served and checked, %d draws\n", served, draws);
  EXPECT_GE(served, wanted) << "too few legal draws";
}

}  // namespace
}  // namespace gputest
