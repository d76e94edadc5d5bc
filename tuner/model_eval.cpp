#include "model_eval.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "dataset.hpp"
#include "dispatch_mirror.hpp"
#include "eval_candidates.hpp"
#include "model_file.hpp"
#include "picker.hpp"
#include "problem_configs.hpp"
#include "progress.hpp"
#include "bench_runner.hpp"

namespace ptxblas::tuner {
namespace {

cublasOperation_t cublas_op(gen::Op op) {
  return op == gen::Op::N ? CUBLAS_OP_N : op == gen::Op::T ? CUBLAS_OP_T : CUBLAS_OP_C;
}

cudaDataType cuda_type(gen::DataType t) {
  switch (t) {
    case gen::DataType::F16: return CUDA_R_16F;
    case gen::DataType::BF16: return CUDA_R_16BF;
    case gen::DataType::F32: return CUDA_R_32F;
    case gen::DataType::F64: return CUDA_R_64F;
    case gen::DataType::C32: return CUDA_C_32F;
    case gen::DataType::C64: return CUDA_C_64F;
  }
  return CUDA_R_32F;
}

// C = op(A) op(B) through cublasGemmEx with the compute type ptxblas serves for this data type
// (f32 for f16/bf16, as the tuner's kernels accumulate).
double time_cublas(cublasHandle_t h, const model::Problem& p, const Buffers& buf, cudaStream_t stream,
                   const TimingOptions& opt) {
  const bool f64 = p.data == gen::DataType::F64 || p.data == gen::DataType::C64;
  const double one64[2] = {1, 0}, zero64[2] = {0, 0};
  const float one32[2] = {1, 0}, zero32[2] = {0, 0};
  const void* alpha = f64 ? static_cast<const void*>(one64) : one32;
  const void* beta = f64 ? static_cast<const void*>(zero64) : zero32;
  const cudaDataType t = cuda_type(p.data);
  const auto lda = p.op_a == gen::Op::N ? p.m : p.k, ldb = p.op_b == gen::Op::N ? p.k : p.n;
  auto call = [&] {
    const cublasStatus_t st =
        cublasGemmEx(h, cublas_op(p.op_a), cublas_op(p.op_b), static_cast<int>(p.m), static_cast<int>(p.n),
                     static_cast<int>(p.k), alpha, buf.a, t, static_cast<int>(lda), buf.b, t, static_cast<int>(ldb),
                     beta, buf.c, t, static_cast<int>(p.m), f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cublasGemmEx: ") + cublasGetStatusName(st));
  };
  return median_seconds(call, stream, opt);
}

}  // namespace

long run_eval(const EvalOptions& opt) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) throw std::runtime_error("no GPU");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  const std::string device = model::device_key(prop.name, prop.major * 10 + prop.minor);

  if (opt.model_dirs.empty()) throw std::runtime_error("eval needs a model");
  std::vector<std::unique_ptr<model::Picker>> pickers;
  for (const std::string& dir : opt.model_dirs) {
    std::string error;
    std::optional<model::Model> m = model::load_model(dir, error);
    if (!m) throw std::runtime_error(error);
    if (m->device_key != device)
      std::fprintf(stderr, "note: model %s is for %s, this GPU is %s\n", dir.c_str(), m->device_key.c_str(),
                   device.c_str());
    pickers.push_back(std::make_unique<model::Picker>(std::move(*m)));
  }
  const std::size_t models = pickers.size();
  model::Picker& picker = *pickers.front();
  std::ifstream in(opt.shapes);
  if (!in) throw std::runtime_error("cannot read " + opt.shapes);
  const std::vector<EvalShape> shapes = read_eval_shapes(in);
  std::ofstream out(opt.out);
  if (!out) throw std::runtime_error("cannot write " + opt.out);
  out << "type,transa,transb,m,n,k,model_tflops,oracle_tflops,cublas_tflops,model_config,oracle_config\n";
  std::ofstream per_model;
  if (models > 1) {
    per_model.open(opt.out + ".models.csv");
    if (!per_model) throw std::runtime_error("cannot write " + opt.out + ".models.csv");
    per_model << "model,type,transa,transb,m,n,k,model_tflops,oracle_tflops,model_config\n";
  }

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  cublasSetStream(h, stream);
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(opt.minutes * 60);
  // Every shape's candidates first (each model's pick, then the first model's runners-up and
  // random points; the heuristic's pick joins the oracle's set, so the oracle is at least as good
  // as the library without a model), compiled by parallel JIT workers, then timed.
  struct ShapeCandidates {
    std::vector<gen::Tuning> all;
    std::vector<std::size_t> runs;  // per model: the index of what dispatch runs with it
    std::size_t heuristic = 0;
    std::size_t choice = 0;  // the first model's own choice as it runs (== runs[0] unless dispatch overrides it)
    std::vector<gen::Tuning> first_sight;  // the heuristic's pick and the first model's k best
  };
  std::vector<ShapeCandidates> cands_of;
  int not_the_models_choice = 0;  // shapes whose plan is a narrow, skinny or rebalanced one
  std::vector<Sample> to_compile;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const model::Problem& p = shapes[i].problem;
    ShapeCandidates sc;
    std::vector<gen::Tuning> rest = eval_candidates(picker, p, opt.top, opt.random, opt.seed + i);
    // What dispatch runs (dispatched_tuning): with each model, its pick unless it does not clearly
    // beat the heuristic's plan as dispatch weighs it, or the narrow / skinny plan dispatch takes
    // without asking the model; with no model, the heuristic's plan.
    const int sms = prop.multiProcessorCount;
    const gen::Tuning heuristic = dispatched_tuning(nullptr, p, sms);
    auto index_of = [&](const gen::Tuning& t) {
      auto it = std::find(sc.all.begin(), sc.all.end(), t);
      if (it != sc.all.end()) return static_cast<std::size_t>(it - sc.all.begin());
      sc.all.push_back(t);
      return sc.all.size() - 1;
    };
    for (auto& pk : pickers) sc.runs.push_back(index_of(dispatched_tuning(pk.get(), p, sms)));
    sc.choice = index_of(run_after_pick(p, model_choice(picker, p, sms), knows_async(picker)));
    if (sc.choice != sc.runs.front()) ++not_the_models_choice;
    for (const gen::Tuning& t : rest) index_of(t);
    sc.heuristic = index_of(heuristic);
    // First sight times the heuristic's plan as timed_model_plan weighs it (no narrow-only or
    // rebalanced form) beside the model's k best (all among `rest`).
    sc.first_sight = picker.top(p, std::min(opt.first_sight_k, opt.top + 1));
    sc.first_sight.push_back(sc.all[index_of(run_after_pick(p, heuristic_fallback(p, sms, true), true))]);
    for (const gen::Tuning& t : sc.all) to_compile.push_back(Sample{device, p, t, std::nullopt});
    cands_of.push_back(std::move(sc));
  }
  warm_jit_cache(to_compile, opt.jit_workers, budget.count() / 2);
  Progress bar("eval", static_cast<long>(shapes.size()));
  long rows = 0;
  std::vector<std::vector<double>> model_ratio(models);
  std::vector<double> heuristic_ratio, cublas_ratio, first_sight_ratio, first_sight_confirmed, overridden_ratio;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    if (std::chrono::steady_clock::now() - start >= budget) break;
    const model::Problem& p = shapes[si].problem;
    const Buffers buf(p);
    const ShapeCandidates& sc = cands_of[si];
    gen::KernelConfig base;
    base.data = p.data;
    base.op_a = p.op_a;
    base.op_b = p.op_b;
    auto time_one = [&](std::size_t i) {
      // Timed as dispatch would run it (the f32 vector-stage lowering where the call allows it).
      const dispatch::Plan plan =
          as_dispatched(p, dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, sc.all[i]), prop.multiProcessorCount);
      std::string why;
      return time_plan(p, plan, buf, stream, opt.timing, why);  // < 0: refused
    };
    std::vector<double> secs(sc.all.size());
    std::size_t best = 0;
    double first_sight_s = -1;
    std::size_t first_sight_pick = 0;  // what first-sight timing would keep: its candidates' fastest in the first pass
    for (std::size_t i = 0; i < sc.all.size(); ++i) {
      secs[i] = time_one(i);
      if (secs[i] > 0 && (secs[best] <= 0 || secs[i] < secs[best])) best = i;
      if (secs[i] > 0 && std::find(sc.first_sight.begin(), sc.first_sight.end(), sc.all[i]) != sc.first_sight.end() &&
          (first_sight_s < 0 || secs[i] < first_sight_s)) {
        first_sight_s = secs[i];
        first_sight_pick = i;
      }
    }
    // The first pass's best and first sight compare within the first pass (before confirmation).
    if (first_sight_s > 0 && secs[best] > 0) first_sight_ratio.push_back(secs[best] / first_sight_s);
    // Confirmation: the finalists again, in turn, each one's median of the rounds.
    std::vector<std::size_t> finalists = sc.runs;
    finalists.push_back(sc.choice);
    if (first_sight_s > 0) finalists.push_back(first_sight_pick);
    finalists.push_back(sc.heuristic);
    finalists.push_back(best);
    std::sort(finalists.begin(), finalists.end());
    finalists.erase(std::unique(finalists.begin(), finalists.end()), finalists.end());
    std::erase_if(finalists, [&](std::size_t i) { return secs[i] <= 0; });
    if (opt.confirm_rounds > 0) {
      std::vector<std::vector<double>> again(finalists.size());
      for (int r = 0; r < opt.confirm_rounds; ++r)
        for (std::size_t f = 0; f < finalists.size(); ++f) {
          const std::size_t at = (f + static_cast<std::size_t>(r)) % finalists.size();  // a new order each round
          again[at].push_back(time_one(finalists[at]));
        }
      for (std::size_t f = 0; f < finalists.size(); ++f) {
        std::erase_if(again[f], [](double t) { return t <= 0; });  // a refused re-timing is no time
        std::sort(again[f].begin(), again[f].end());
        // The median; of an even count, the mean of the middle two.
        const std::size_t n = again[f].size();
        secs[finalists[f]] = n == 0 ? -1 : n % 2 ? again[f][n / 2] : 0.5 * (again[f][n / 2 - 1] + again[f][n / 2]);
      }
    }
    double best_s = -1;
    std::string best_name;
    for (std::size_t i : finalists)
      if (secs[i] > 0 && (best_s < 0 || secs[i] < best_s)) best_s = secs[i], best_name = gen::tuning_name(base, sc.all[i]);
    const double model_s = secs[sc.runs.front()], heuristic_s = secs[sc.heuristic];
    const double cublas_s = time_cublas(h, p, buf, stream, opt.timing);
    const double f = flops_of(p) * 1e-12;
    const char tc = type_code(p.data), ta = gen::op_letter(p.op_a) - 'a' + 'A', tb = gen::op_letter(p.op_b) - 'a' + 'A';
    char line[512];
    std::snprintf(line, sizeof line, "%c,%c,%c,%lld,%lld,%lld,%.6g,%.6g,%.6g,%s,%s (of %zu)\n", tc, ta, tb,
                  static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                  model_s > 0 ? f / model_s : 0.0, best_s > 0 ? f / best_s : 0.0, f / cublas_s,
                  gen::tuning_name(base, sc.all[sc.runs.front()]).c_str(), best_name.c_str(), sc.all.size());
    out << line;
    out.flush();
    for (std::size_t mi = 0; mi < models; ++mi) {
      const double s_m = secs[sc.runs[mi]];
      if (s_m > 0 && best_s > 0) model_ratio[mi].push_back(best_s / s_m);
      if (!per_model.is_open()) continue;
      std::snprintf(line, sizeof line, "%zu,%c,%c,%c,%lld,%lld,%lld,%.6g,%.6g,%s\n", mi + 1, tc, ta, tb,
                    static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                    s_m > 0 ? f / s_m : 0.0, best_s > 0 ? f / best_s : 0.0,
                    gen::tuning_name(base, sc.all[sc.runs[mi]]).c_str());
      per_model << line;
      per_model.flush();
    }
    if (first_sight_s > 0 && secs[first_sight_pick] > 0 && best_s > 0)
      first_sight_confirmed.push_back(best_s / secs[first_sight_pick]);
    if (sc.choice != sc.runs.front() && model_s > 0 && secs[sc.choice] > 0) {
      overridden_ratio.push_back(secs[sc.choice] / model_s);
      std::printf("\n%c %c%c %lldx%lldx%lld: dispatch runs %s, %.4g TFLOP/s; the model chose %s, %.4g\n", tc, ta, tb,
                  static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                  gen::tuning_name(base, sc.all[sc.runs.front()]).c_str(), f / model_s,
                  gen::tuning_name(base, sc.all[sc.choice]).c_str(), f / secs[sc.choice]);
    }
    if (model_s > 0 && best_s > 0) {
      cublas_ratio.push_back(cublas_s / model_s);
      if (heuristic_s > 0) heuristic_ratio.push_back(best_s / heuristic_s);
    }
    bar.step(++rows);
  }
  bar.done();
  auto summary = [](const std::string& what, std::vector<double> v) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    double lg = 0;
    for (double x : v) lg += std::log(x);
    std::printf("%-30s median %.3f  worst %.3f  geomean %.3f  (%zu shapes)\n", what.c_str(), v[v.size() / 2], v.front(),
                std::exp(lg / static_cast<double>(v.size())), v.size());
  };
  for (std::size_t mi = 0; mi < models; ++mi)
    summary(models == 1 ? std::string("model / oracle:") : "model " + std::to_string(mi + 1) + " / oracle:",
            model_ratio[mi]);
  summary("heuristic / oracle:", heuristic_ratio);
  summary("first sight, k = " + std::to_string(opt.first_sight_k) + " / oracle (1st pass):", first_sight_ratio);
  // The same choice re-timed with the finalists: what a process with dispatch.benchmark_top_k = k
  // would run, chosen by one timing and measured like the model's pick.
  summary("first sight, k = " + std::to_string(opt.first_sight_k) + " / oracle (confirmed):", first_sight_confirmed);
  summary("model / cuBLAS:", cublas_ratio);
  summary("dispatch's override / model's choice:", overridden_ratio);
  for (std::size_t mi = 0; mi < models && models > 1; ++mi)
    std::printf("model %zu: %s\n", mi + 1, opt.model_dirs[mi].c_str());
  std::printf("dispatch ran another plan than the first model's choice (narrow, skinny, re-split) on %d of %zu shapes\n",
              not_the_models_choice, shapes.size());
  std::printf("confirmation: finalists re-timed %d times in turn\n", opt.confirm_rounds);
  cublasDestroy(h);
  cudaStreamDestroy(stream);
  std::printf("evaluated %ld of %zu shapes\n", rows, shapes.size());
  return rows;
}

}  // namespace ptxblas::tuner
