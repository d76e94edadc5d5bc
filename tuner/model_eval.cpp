#include "model_eval.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "dataset.hpp"
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

  std::string error;
  std::optional<model::Model> m = model::load_model(opt.model_dir, error);
  if (!m) throw std::runtime_error(error);
  if (m->device_key != device)
    std::fprintf(stderr, "note: model %s is for %s, this GPU is %s\n", opt.model_dir.c_str(), m->device_key.c_str(),
                 device.c_str());
  model::Picker picker(std::move(*m));
  std::ifstream in(opt.shapes);
  if (!in) throw std::runtime_error("cannot read " + opt.shapes);
  const std::vector<EvalShape> shapes = read_eval_shapes(in);
  std::ofstream out(opt.out);
  if (!out) throw std::runtime_error("cannot write " + opt.out);
  out << "type,transa,transb,m,n,k,model_tflops,oracle_tflops,cublas_tflops,model_config,oracle_config\n";

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  cublasSetStream(h, stream);
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(opt.minutes * 60);
  // Every shape's candidates first (the model's pick first; the heuristic's pick joins the
  // oracle's set, so the oracle is at least as good as the library without a model), compiled
  // by parallel JIT workers, then timed.
  std::vector<std::vector<gen::Tuning>> all;
  std::vector<std::vector<gen::Tuning>> first_sight;  // per shape: the heuristic's pick and the model's k best
  std::vector<int> heuristic_at;
  std::vector<Sample> to_compile;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const model::Problem& p = shapes[i].problem;
    std::vector<gen::Tuning> c = eval_candidates(picker, p, opt.top, opt.random, opt.seed + i);
    // First: what dispatch runs, the model's pick unless it does not clearly beat the heuristic's.
    const gen::Tuning heuristic = dispatch::tuning_of(
        dispatch::plan_gemm(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, prop.multiProcessorCount));
    const gen::Tuning runs = picker.pick(p, heuristic);
    if (auto it = std::find(c.begin(), c.end(), runs); it != c.end()) c.erase(it);
    c.insert(c.begin(), runs);
    auto it = std::find(c.begin(), c.end(), heuristic);
    const int at = static_cast<int>(it - c.begin());
    if (it == c.end()) c.push_back(heuristic);
    for (const gen::Tuning& t : c) to_compile.push_back(Sample{device, p, t, std::nullopt});
    std::vector<gen::Tuning> fs = picker.top(p, std::min(opt.first_sight_k, opt.top + 1));
    fs.push_back(heuristic);
    first_sight.push_back(std::move(fs));
    all.push_back(std::move(c));
    heuristic_at.push_back(at);
  }
  warm_jit_cache(to_compile, opt.jit_workers, budget.count() / 2);
  Progress bar("eval", static_cast<long>(shapes.size()));
  long rows = 0;
  std::vector<double> model_ratio, heuristic_ratio, cublas_ratio, first_sight_ratio;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    if (std::chrono::steady_clock::now() - start >= budget) break;
    const model::Problem& p = shapes[si].problem;
    const Buffers buf(p);
    const std::vector<gen::Tuning>& cands = all[si];
    gen::KernelConfig base;
    base.data = p.data;
    base.op_a = p.op_a;
    base.op_b = p.op_b;
    double model_s = -1, best_s = -1, heuristic_s = -1, first_sight_s = -1;
    const std::vector<gen::Tuning>& fs = first_sight[si];
    std::string best_name;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const dispatch::Plan plan = dispatch::plan_from_tuning(p.data, false, p.op_a, p.op_b, p.m, p.n, p.k, cands[i]);
      std::string why;
      const double secs = time_plan(p, plan, buf, stream, opt.timing, why);
      if (i == 0) model_s = secs;
      if (static_cast<int>(i) == heuristic_at[si]) heuristic_s = secs;
      if (secs > 0 && (best_s < 0 || secs < best_s)) best_s = secs, best_name = gen::tuning_name(base, cands[i]);
      if (secs > 0 && std::find(fs.begin(), fs.end(), cands[i]) != fs.end() &&
          (first_sight_s < 0 || secs < first_sight_s))
        first_sight_s = secs;
    }
    const double cublas_s = time_cublas(h, p, buf, stream, opt.timing);
    const double f = flops_of(p) * 1e-12;
    char line[512];
    std::snprintf(line, sizeof line, "%c,%c,%c,%lld,%lld,%lld,%.6g,%.6g,%.6g,%s,%s (of %zu)\n", type_code(p.data),
                  gen::op_letter(p.op_a) - 'a' + 'A', gen::op_letter(p.op_b) - 'a' + 'A', static_cast<long long>(p.m),
                  static_cast<long long>(p.n), static_cast<long long>(p.k), model_s > 0 ? f / model_s : 0.0,
                  best_s > 0 ? f / best_s : 0.0, f / cublas_s, gen::tuning_name(base, cands[0]).c_str(),
                  best_name.c_str(), cands.size());
    out << line;
    out.flush();
    if (model_s > 0 && best_s > 0) {
      model_ratio.push_back(best_s / model_s);
      cublas_ratio.push_back(cublas_s / model_s);
      if (heuristic_s > 0) heuristic_ratio.push_back(best_s / heuristic_s);
      if (first_sight_s > 0) first_sight_ratio.push_back(best_s / first_sight_s);
    }
    bar.step(++rows);
  }
  bar.done();
  auto summary = [](const char* what, std::vector<double> v) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    double lg = 0;
    for (double x : v) lg += std::log(x);
    std::printf("%-26s median %.3f  worst %.3f  geomean %.3f  (%zu shapes)\n", what, v[v.size() / 2], v.front(),
                std::exp(lg / static_cast<double>(v.size())), v.size());
  };
  summary("model / oracle:", model_ratio);
  summary("heuristic / oracle:", heuristic_ratio);
  {
    const std::string what = "first sight, k = " + std::to_string(opt.first_sight_k) + " / oracle:";
    summary(what.c_str(), first_sight_ratio);
  }
  summary("model / cuBLAS:", cublas_ratio);
  cublasDestroy(h);
  cudaStreamDestroy(stream);
  std::printf("evaluated %ld of %zu shapes\n", rows, shapes.size());
  return rows;
}

}  // namespace ptxblas::tuner
