// ptxblas-bench-batched: strided-batched GEMM, ptxblas (dlopen'ed libptxblas.so) against the real
// cuBLAS in one process, on the same buffers and stream, timed alternately with CUDA events
// (medians over two blocks each, after warm-up; timing.hpp), ptxblas's C checked against cuBLAS's.
// Shapes: built in (attention / bmm sizes), or --shapes FILE with one `TYPE TRANSA TRANSB M N K
// BATCH` a line ('#' starts a comment). TYPE: S, D, C, Z (cublas?gemmStridedBatched); H and B
// (cublasGemmStridedBatchedEx on f16 / bf16 with f32 compute and scalars, as torch.bmm calls it).
// Entries are packed (stride = one entry), alpha = 1, beta = 0 (--beta-one: the timed calls add to
// C with beta = 1; the check keeps beta = 0).
// --pointers: the same shapes through cublas{S,D,C,Z}gemmBatched instead (device arrays of the
// packed entries' pointers, one array per operand and operand set; H and B rows dropped, as
// cublasHgemmBatched and cublasGemmBatchedEx are not ptxblas's); rows' type is then "SP", "DP", ...
// Prints a table and `geomean ratio` per type last; writes the table as CSV (--csv).
// Exit status: 0 all served and matching, 1 a mismatch, an error or a forwarded call, 2 a failed
// CUDA/cuBLAS call or bad arguments. Without a GPU it says so and exits 0.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "buffers.hpp"
#include "check.hpp"
#include "cli_checks.hpp"
#include "gemm_call.hpp"
#include "gpu_session.hpp"
#include "status.hpp"
#include "suite.hpp"
#include "timing.hpp"

namespace {

struct Batched {
  bench::Shape s;  // one entry (s.name: unused)
  std::int64_t batch;
};

// Attention / bmm shapes for the half types and S; D and Z a couple each.
std::vector<Batched> builtin_shapes() {
  struct Row {
    char ta, tb;
    std::int64_t m, n, k, batch;
  };
  const Row common[] = {{'T', 'N', 128, 128, 64, 64},   {'N', 'N', 512, 512, 64, 96},
                        {'T', 'N', 1024, 1024, 128, 32}, {'N', 'N', 64, 64, 64, 512},
                        {'N', 'N', 2048, 2048, 2048, 8}, {'N', 'N', 32, 32, 32, 1024}};
  std::vector<Batched> v;
  for (char type : {'H', 'B', 'S'})
    for (const Row& r : common) v.push_back({{type, r.ta, r.tb, r.m, r.n, r.k, ""}, r.batch});
  v.push_back({{'D', 'T', 'N', 128, 128, 64, ""}, 64});
  v.push_back({{'D', 'N', 'N', 1024, 1024, 1024, ""}, 8});
  v.push_back({{'Z', 'T', 'N', 128, 128, 64, ""}, 64});
  v.push_back({{'Z', 'N', 'N', 512, 512, 512, ""}, 8});
  return v;
}

std::vector<Batched> read_shapes(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::vector<Batched> v;
  std::string line;
  for (int no = 1; std::getline(f, line); ++no) {
    line.erase(std::min(line.find('#'), line.size()));
    std::istringstream in(line);
    std::string type, ta, tb, extra;
    Batched b{};
    if (!(in >> type)) continue;  // blank
    const bool ok = (in >> ta >> tb >> b.s.m >> b.s.n >> b.s.k >> b.batch) && !(in >> extra) && type.size() == 1 &&
                    std::string("SDCZHB").find(type[0]) != std::string::npos && ta.size() == 1 && tb.size() == 1 &&
                    std::string("NTC").find(ta[0]) != std::string::npos &&
                    std::string("NTC").find(tb[0]) != std::string::npos && b.s.m > 0 && b.s.n > 0 && b.s.k > 0 &&
                    b.batch > 0 && std::max({b.s.m, b.s.n, b.s.k, b.batch}) <= INT32_MAX;
    if (!ok)
      throw std::runtime_error(path + ":" + std::to_string(no) +
                               ": expected `TYPE TRANSA TRANSB M N K BATCH` (TYPE one of S D C Z H B, ops N T C, "
                               "sizes 1..2^31-1)");
    b.s.type = type[0];
    b.s.transa = ta[0];
    b.s.transb = tb[0];
    v.push_back(b);
  }
  return v;
}

// cublasGemmStridedBatchedEx's C entry (C++ sees an overload too).
using StridedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                       const void*, const void*, cudaDataType, int, long long, const void*,
                                       cudaDataType, int, long long, const void*, void*, cudaDataType, int, long long,
                                       int, cublasComputeType_t, cublasGemmAlgo_t);

struct Entries {
  decltype(&cublasSgemmStridedBatched) s;
  decltype(&cublasDgemmStridedBatched) d;
  decltype(&cublasCgemmStridedBatched) c;
  decltype(&cublasZgemmStridedBatched) z;
  StridedExFn ex;
  // Arrays of pointers (--pointers).
  decltype(&cublasSgemmBatched) sp;
  decltype(&cublasDgemmBatched) dp;
  decltype(&cublasCgemmBatched) cp;
  decltype(&cublasZgemmBatched) zp;
};

const Entries kCublas{&cublasSgemmStridedBatched, &cublasDgemmStridedBatched, &cublasCgemmStridedBatched,
                      &cublasZgemmStridedBatched, static_cast<StridedExFn>(&cublasGemmStridedBatchedEx),
                      &cublasSgemmBatched,        &cublasDgemmBatched,        &cublasCgemmBatched,
                      &cublasZgemmBatched};

// ptxblas's, from the library bench::load_ptxblas opened: the strided-batched entries, or with
// `pointers` the pointer-array ones (the others left null); exits 2 naming a missing one.
Entries ptxblas_entries(const std::string& path, bool pointers) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  auto get = [&](const char* name) {
    void* f = lib ? dlsym(lib, name) : nullptr;
    if (!f) {
      std::fprintf(stderr, "%s lacks %s\n", path.c_str(), name);
      std::exit(2);
    }
    return f;
  };
  Entries e{};
  if (pointers) {
    e.sp = reinterpret_cast<decltype(Entries::sp)>(get("cublasSgemmBatched"));
    e.dp = reinterpret_cast<decltype(Entries::dp)>(get("cublasDgemmBatched"));
    e.cp = reinterpret_cast<decltype(Entries::cp)>(get("cublasCgemmBatched"));
    e.zp = reinterpret_cast<decltype(Entries::zp)>(get("cublasZgemmBatched"));
    return e;
  }
  e.s = reinterpret_cast<decltype(Entries::s)>(get("cublasSgemmStridedBatched"));
  e.d = reinterpret_cast<decltype(Entries::d)>(get("cublasDgemmStridedBatched"));
  e.c = reinterpret_cast<decltype(Entries::c)>(get("cublasCgemmStridedBatched"));
  e.z = reinterpret_cast<decltype(Entries::z)>(get("cublasZgemmStridedBatched"));
  e.ex = reinterpret_cast<StridedExFn>(get("cublasGemmStridedBatchedEx"));
  return e;
}

cublasOperation_t op(char o) { return o == 'N' ? CUBLAS_OP_N : o == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

// One entry's elements of A, B and C; the strides are these.
struct Sizes {
  bench::Layout l;
  long long sa, sb, sc;
};

Sizes sizes(const bench::Shape& s) {
  const bench::Layout l = bench::layout(s);
  return {l, static_cast<long long>(l.a_elems), static_cast<long long>(l.b_elems), static_cast<long long>(l.c_elems)};
}

// 1 and 0 in every scalar type (f32 for H and B): alpha is 1, beta either.
constexpr float f1 = 1, f0 = 0;
constexpr double d1 = 1, d0 = 0;
constexpr cuComplex c1{1, 0}, c0{0, 0};
constexpr cuDoubleComplex z1{1, 0}, z0{0, 0};

// beta in each scalar type: 1 (the timed calls with --beta-one) or 0.
struct Betas {
  const float* f;
  const double* d;
  const cuComplex* c;
  const cuDoubleComplex* z;
};
Betas betas(bool one) { return one ? Betas{&f1, &d1, &c1, &z1} : Betas{&f0, &d0, &c0, &z0}; }

// A batch's arguments as both entry-point families take them.
struct Args {
  Sizes z;
  int m, n, k, lda, ldb, ldc, count;
  cublasOperation_t ta, tb;
};

Args args_of(const Batched& b) {
  const bench::Shape& s = b.s;
  const Sizes z = sizes(s);
  return {z,
          static_cast<int>(s.m),
          static_cast<int>(s.n),
          static_cast<int>(s.k),
          static_cast<int>(z.l.lda),
          static_cast<int>(z.l.ldb),
          static_cast<int>(z.l.ldc),
          static_cast<int>(b.batch),
          op(s.transa),
          op(s.transb)};
}

// C = op(A) op(B) (+ C with beta_one) for every entry, in the call's scalar type (f32 for H and B).
cublasStatus_t run_batched(const Entries& e, cublasHandle_t h, const Batched& b, const void* A, const void* B,
                           void* C, bool beta_one) {
  const Args x = args_of(b);
  const Betas be = betas(beta_one);
  const bench::Shape& s = b.s;
  const Sizes& z = x.z;
  const int m = x.m, n = x.n, k = x.k, lda = x.lda, ldb = x.ldb, ldc = x.ldc, count = x.count;
  const cublasOperation_t ta = x.ta, tb = x.tb;
  switch (s.type) {
    case 'S':
      return e.s(h, ta, tb, m, n, k, &f1, static_cast<const float*>(A), lda, z.sa, static_cast<const float*>(B), ldb,
                 z.sb, be.f, static_cast<float*>(C), ldc, z.sc, count);
    case 'D':
      return e.d(h, ta, tb, m, n, k, &d1, static_cast<const double*>(A), lda, z.sa, static_cast<const double*>(B),
                 ldb, z.sb, be.d, static_cast<double*>(C), ldc, z.sc, count);
    case 'C':
      return e.c(h, ta, tb, m, n, k, &c1, static_cast<const cuComplex*>(A), lda, z.sa,
                 static_cast<const cuComplex*>(B), ldb, z.sb, be.c,
                 static_cast<cuComplex*>(C), ldc, z.sc, count);
    case 'Z':
      return e.z(h, ta, tb, m, n, k, &z1, static_cast<const cuDoubleComplex*>(A), lda, z.sa,
                 static_cast<const cuDoubleComplex*>(B), ldb, z.sb, be.z,
                 static_cast<cuDoubleComplex*>(C), ldc, z.sc, count);
    default: {  // H, B
      const cudaDataType t = s.type == 'H' ? CUDA_R_16F : CUDA_R_16BF;
      return e.ex(h, ta, tb, m, n, k, &f1, A, t, lda, z.sa, B, t, ldb, z.sb, be.f, C, t, ldc, z.sc, count,
                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
  }
}

// The same through cublas?gemmBatched: A, B and C are device arrays of the entries' pointers (S, D,
// C, Z only).
cublasStatus_t run_pointers(const Entries& e, cublasHandle_t h, const Batched& b, const void* A, const void* B,
                            void* C, bool beta_one) {
  const Args x = args_of(b);
  const Betas be = betas(beta_one);
  const bench::Shape& s = b.s;
  const int m = x.m, n = x.n, k = x.k, lda = x.lda, ldb = x.ldb, ldc = x.ldc, count = x.count;
  const cublasOperation_t ta = x.ta, tb = x.tb;
  switch (s.type) {
    case 'S':
      return e.sp(h, ta, tb, m, n, k, &f1, static_cast<const float* const*>(A), lda,
                  static_cast<const float* const*>(B), ldb, be.f, static_cast<float* const*>(C), ldc, count);
    case 'D':
      return e.dp(h, ta, tb, m, n, k, &d1, static_cast<const double* const*>(A), lda,
                  static_cast<const double* const*>(B), ldb, be.d, static_cast<double* const*>(C), ldc, count);
    case 'C':
      return e.cp(h, ta, tb, m, n, k, &c1, static_cast<const cuComplex* const*>(A), lda,
                  static_cast<const cuComplex* const*>(B), ldb, be.c, static_cast<cuComplex* const*>(C), ldc, count);
    case 'Z':
      return e.zp(h, ta, tb, m, n, k, &z1, static_cast<const cuDoubleComplex* const*>(A), lda,
                  static_cast<const cuDoubleComplex* const*>(B), ldb, be.z, static_cast<cuDoubleComplex* const*>(C),
                  ldc, count);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;  // H, B: dropped before
  }
}

struct Options {
  bool pointers = false;
  bool beta_one = false;
  std::string shapes;
  std::string csv = "batched-bench.csv";
  std::string filter;
  std::string library = bench::default_library_path();
  int reps = 0;
  double budget_ms = 200;
  int warmup = 2;
  std::uint64_t seed = 0;
  std::string force;  // ptxblas_force_tile's spec for ptxblas's calls ("": the dispatcher's pick)
};

struct Row {
  Batched b;
  std::string type;  // the shape's letter, "P" appended for --pointers
  double ptx_tflops = std::nan(""), cublas_tflops = std::nan("");
  std::string check, kernel;
};

// Operand sets enough to make ~2x L2 together (at most 8, ~4 GB), so that the timed calls do not
// find their inputs in L2 from the previous call; two C buffers for the check. With pointers: for
// each set (and each check C) device arrays of its packed entries' pointers too.
struct Buffers {
  std::vector<bench::DeviceBuffer> a, b, c;
  bench::DeviceBuffer check_ptx, check_ref;
  std::size_t c_bytes;
  std::vector<bench::DeviceBuffer> pa, pb, pc;
  std::vector<bench::DeviceBuffer> check_ptrs;  // check_ptx's, check_ref's
};

// `count` pointers `stride` bytes apart from `base`, as a device array.
bench::DeviceBuffer pointer_array(const void* base, std::size_t stride, std::size_t count) {
  std::vector<const void*> h(count);
  for (std::size_t i = 0; i < count; ++i) h[i] = static_cast<const unsigned char*>(base) + i * stride;
  bench::DeviceBuffer d(count * sizeof(void*));
  CUDA_CHECK(cudaMemcpy(d.get(), h.data(), count * sizeof(void*), cudaMemcpyHostToDevice));
  return d;
}

Buffers make_buffers(const Batched& x, bool pointers, std::size_t l2_bytes, std::uint64_t& rng) {
  const Sizes z = sizes(x.s);
  const std::size_t es = bench::elem_bytes(x.s.type), count = static_cast<std::size_t>(x.batch);
  const std::size_t a = z.l.a_elems * count, b = z.l.b_elems * count, c = z.l.c_elems * count;
  const std::size_t set_bytes = (a + b + c) * es;
  const std::size_t sets = std::clamp<std::size_t>(
      std::min((2 * l2_bytes + set_bytes - 1) / set_bytes, (std::size_t{4} << 30) / set_bytes), 1, 8);
  Buffers w{{}, {}, {}, bench::DeviceBuffer(c * es), bench::DeviceBuffer(c * es), c * es, {}, {}, {}, {}};
  for (std::size_t i = 0; i < sets; ++i) {
    w.a.emplace_back(a * es);
    w.b.emplace_back(b * es);
    w.c.emplace_back(c * es);
    bench::fill_random(x.s.type, a, w.a.back().get(), rng);
    bench::fill_random(x.s.type, b, w.b.back().get(), rng);
    CUDA_CHECK(cudaMemset(w.c.back().get(), 0, c * es));
    if (pointers) {
      w.pa.push_back(pointer_array(w.a.back().get(), z.l.a_elems * es, count));
      w.pb.push_back(pointer_array(w.b.back().get(), z.l.b_elems * es, count));
      w.pc.push_back(pointer_array(w.c.back().get(), z.l.c_elems * es, count));
    }
  }
  if (pointers) {
    w.check_ptrs.push_back(pointer_array(w.check_ptx.get(), z.l.c_elems * es, count));
    w.check_ptrs.push_back(pointer_array(w.check_ref.get(), z.l.c_elems * es, count));
  }
  CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may still be in flight
  return w;
}

std::vector<unsigned char> download(const bench::DeviceBuffer& d, std::size_t bytes) {
  std::vector<unsigned char> h(bytes);
  CUDA_CHECK(cudaMemcpy(h.data(), d.get(), bytes, cudaMemcpyDeviceToHost));
  return h;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

struct Ctx {
  cublasHandle_t handle;
  cudaStream_t stream;
  bench::CallTimer& timer;
  std::size_t l2_bytes;
  std::uint64_t rng;
  const Options& opt;
  Entries ptx;
};

// Warm-up, then ptxblas and cuBLAS in alternating blocks (two each), then the check.
Row run_one(Ctx& x, const Batched& b) {
  const bool pointers = x.opt.pointers;
  Buffers w = make_buffers(b, pointers, x.l2_bytes, x.rng);
  Row row;
  row.b = b;
  row.type = std::string(1, b.s.type) + (pointers ? "P" : "");
  // Operand set i's A and B, into C (check: which == 0 ptxblas's check C, 1 cuBLAS's, beta = 0; -1
  // the set's, timed).
  auto launch = [&](const Entries& e, std::size_t i, int which) {
    const bool beta_one = which < 0 && x.opt.beta_one;
    if (pointers)
      return run_pointers(e, x.handle, b, w.pa[i].get(), w.pb[i].get(),
                          which < 0 ? w.pc[i].get() : w.check_ptrs[static_cast<std::size_t>(which)].get(), beta_one);
    void* c = which < 0 ? w.c[i].get() : which == 0 ? w.check_ptx.get() : w.check_ref.get();
    return run_batched(e, x.handle, b, w.a[i].get(), w.b[i].get(), c, beta_one);
  };
  std::size_t next = 0;  // rotating operand set of the next call
  cublasStatus_t ptx_status = CUBLAS_STATUS_SUCCESS;
  auto call = [&](const Entries& e, bool ptx) {
    const std::size_t i = next++ % w.a.size();
    const cublasStatus_t st = launch(e, i, -1);
    if (ptx) {
      if (st != CUBLAS_STATUS_SUCCESS && ptx_status == CUBLAS_STATUS_SUCCESS) ptx_status = st;
      return st == CUBLAS_STATUS_SUCCESS;
    }
    CUBLAS_CHECK(st);
    return true;
  };
  const std::function<bool()> ptx_call = [&] { return call(x.ptx, true); };
  const std::function<bool()> ref_call = [&] { return call(kCublas, false); };

  for (int i = 0; i < x.opt.warmup; ++i) {
    ptx_call();
    ref_call();
  }
  CUDA_CHECK(cudaStreamSynchronize(x.stream));
  const std::string warm = bench::last_ptxblas_call();
  const bool ptx_ok = ptx_status == CUBLAS_STATUS_SUCCESS && !starts_with(warm, "error");

  auto reps_for = [&](const std::function<bool()>& f) {
    if (x.opt.reps > 0) return x.opt.reps;
    std::vector<float> probe;
    return x.timer.time(3, f, probe) ? bench::auto_reps(bench::median(probe), x.opt.budget_ms) : 5;
  };
  const int ptx_reps = ptx_ok ? reps_for(ptx_call) : 0, ref_reps = reps_for(ref_call);
  std::vector<float> ptx_ms, ref_ms;
  for (int round = 0; round < 2; ++round) {
    if (ptx_ok && !x.timer.time((ptx_reps + 1) / 2, ptx_call, ptx_ms)) ptx_ms.clear();
    x.timer.time((ref_reps + 1) / 2, ref_call, ref_ms);
  }
  // The timed calls' kernel (cuBLAS's calls leave ptxblas's last call alone).
  const std::string timed = ptx_ok ? bench::last_ptxblas_call() : warm;
  const double flops = bench::flops(b.s) * static_cast<double>(b.batch);
  row.cublas_tflops = flops / bench::median(ref_ms) * 1e-9;

  // Both into NaN-poisoned C from operand set 0.
  CUDA_CHECK(cudaMemsetAsync(w.check_ptx.get(), 0xFF, w.c_bytes, x.stream));
  CUDA_CHECK(cudaMemsetAsync(w.check_ref.get(), 0xFF, w.c_bytes, x.stream));
  const cublasStatus_t sp = launch(x.ptx, 0, 0);
  // With --beta-one the check (beta = 0) may plan another kernel than the timed calls: both named.
  // The timed beta-1 plans are checked by the GPU tests, not here.
  const std::string checked = bench::last_ptxblas_call();
  row.kernel = checked;
  if (checked != timed && !starts_with(checked, "error")) row.kernel = timed + " (check: " + checked + ")";
  CUBLAS_CHECK(launch(kCublas, 0, 1));
  CUDA_CHECK(cudaStreamSynchronize(x.stream));
  if (!ptx_ok || ptx_ms.empty() || sp != CUBLAS_STATUS_SUCCESS || starts_with(row.kernel, "error")) {
    row.check = "ERROR";
    if (sp != CUBLAS_STATUS_SUCCESS) row.kernel = std::string("status ") + cublasGetStatusName(sp) + ": " + row.kernel;
    return row;
  }
  row.ptx_tflops = flops / bench::median(ptx_ms) * 1e-9;
  const bench::CheckResult c =
      bench::compare(b.s.type, b.s.k, download(w.check_ptx, w.c_bytes), download(w.check_ref, w.c_bytes));
  row.check = !c.ok ? "MISMATCH" : starts_with(timed, "forwarded") || starts_with(checked, "forwarded") ? "FORWARDED" : "ok";
  if (!c.ok)
    std::fprintf(stderr, "%s %c%c %lld %lld %lld x%lld: max relative difference %.3g (tolerance %.3g)%s\n",
                 row.type.c_str(),
                 b.s.transa, b.s.transb, static_cast<long long>(b.s.m), static_cast<long long>(b.s.n),
                 static_cast<long long>(b.s.k), static_cast<long long>(b.batch), c.rel_err, c.tolerance,
                 c.nan ? ", NaN or Inf in the output" : "");
  return row;
}

// The CSV has no quoting: commas become ';'.
std::string csv_field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  return s;
}

void print_row(std::FILE* f, const Row& r, bool csv) {
  const bench::Shape& s = r.b.s;
  const char trans[3] = {s.transa, s.transb, '\0'};
  const char* fmt = csv ? "%s,%s,%lld,%lld,%lld,%lld,%.4g,%.4g,%.4g,%s,%s\n"
                        : "%-4s %-5s %6lld %6lld %6lld %6lld %14.2f %13.2f %6.3f %-9s %s\n";
  std::fprintf(f, fmt, r.type.c_str(), trans, static_cast<long long>(s.m), static_cast<long long>(s.n),
               static_cast<long long>(s.k), static_cast<long long>(r.b.batch), r.ptx_tflops, r.cublas_tflops,
               r.ptx_tflops / r.cublas_tflops, r.check.c_str(), (csv ? csv_field(r.kernel) : r.kernel).c_str());
  std::fflush(f);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"ptxblas-bench-batched: strided-batched GEMM, ptxblas (dlopen'ed libptxblas.so) against cuBLAS"};
  app.add_flag("--pointers", o.pointers,
               "time cublas{S,D,C,Z}gemmBatched (device arrays of the entries' pointers) on the same shapes "
               "instead; H and B shapes are dropped");
  app.add_flag("--beta-one", o.beta_one, "timed calls with beta = 1 (C read and added to); the check keeps beta = 0");
  app.add_option("--shapes", o.shapes, "shape file: TYPE TRANSA TRANSB M N K BATCH per line (default: built in)");
  app.add_option("--csv", o.csv, "write the table to this CSV file (\"\": none)")->capture_default_str();
  app.add_option("--filter", o.filter, "only shapes of this type letter");
  app.add_option("--reps", o.reps, "timed calls per implementation and shape (default: auto, 5..200)")
      ->check(ptxblas::cli::kNonNegative);
  app.add_option("--max-ms", o.budget_ms, "auto reps: about this many ms per implementation and shape")
      ->capture_default_str()
      ->check(ptxblas::cli::kPositive);
  app.add_option("--warmup", o.warmup, "untimed calls per implementation first")->capture_default_str()
      ->check(ptxblas::cli::kNonNegative);
  app.add_option("--seed", o.seed, "seed of the random operands (default: fresh, printed)");
  app.add_option("--library", o.library, "libptxblas.so to load (default: $PTXBLAS_LIBRARY, else beside this binary)")
      ->capture_default_str();
  app.add_option("--force", o.force,
                 "run ptxblas's calls on this tile (ptxblas_force_tile's spec, e.g. \"wgmma 64 64 64 64 64 1 1 0 2 1 "
                 "-1 1 4\"); a shape it cannot serve shows FORWARDED");
  CLI11_PARSE(app, argc, argv);

  std::vector<Batched> shapes;
  try {
    shapes = o.shapes.empty() ? builtin_shapes() : read_shapes(o.shapes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::erase_if(shapes, [&](const Batched& b) { return !o.filter.empty() && o.filter != std::string(1, b.s.type); });
  // cublasHgemmBatched and cublasGemmBatchedEx go to cuBLAS: nothing of ptxblas's to time.
  if (o.pointers) std::erase_if(shapes, [](const Batched& b) { return b.s.type == 'H' || b.s.type == 'B'; });
  if (shapes.empty()) {
    std::fprintf(stderr, "no shape to run\n");
    return 2;
  }

  const std::optional<bench::GpuSession> session = bench::open_gpu_session(o.library);
  if (!session) return 0;
  const cudaDeviceProp& prop = session->prop;
  cublasHandle_t handle = session->handle;
  cudaStream_t stream = session->stream;
  const int version = session->cublas_version;
  if (o.seed == 0) o.seed = std::random_device{}() | 1ull;
  std::printf("device %s sm_%d%d SMs %d L2 %d MB\ncublas_version %d\nlibrary %s\nshapes %s (%zu)  seed %llu  beta %d\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, version,
              o.library.c_str(), o.shapes.empty() ? "built in" : o.shapes.c_str(), shapes.size(),
              static_cast<unsigned long long>(o.seed), o.beta_one ? 1 : 0);

  std::FILE* csv = nullptr;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (!csv) {
      std::perror(o.csv.c_str());
      return 2;
    }
    std::fprintf(csv, "type,trans,m,n,k,batch,ptxblas_tflops,cublas_tflops,ratio,check,kernel\n");
  }
  if (!o.force.empty()) {
    using ForceFn = int (*)(const char*);
    void* lib = dlopen(o.library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    const auto f = reinterpret_cast<ForceFn>(lib ? dlsym(lib, "ptxblas_force_tile") : nullptr);
    if (!f || f(o.force.c_str()) != 0) {
      std::fprintf(stderr, "--force: %s\n", f ? "malformed spec" : "the library lacks ptxblas_force_tile");
      return 2;
    }
    std::printf("forced tile %s\n", o.force.c_str());
  }
  bench::CallTimer timer(stream);
  Ctx ctx{handle,
          stream,
          timer,
          static_cast<std::size_t>(prop.l2CacheSize),
          o.seed,
          o,
          ptxblas_entries(o.library, o.pointers)};
  std::printf("%-4s %-5s %6s %6s %6s %6s %14s %13s %6s %-9s %s\n", "type", "trans", "m", "n", "k", "batch",
              "ptxblas_tflops", "cublas_tflops", "ratio", "check", "kernel");
  std::map<std::string, std::pair<double, int>> log_ratio;  // per type: sum of log(ratio), count
  bool all_ok = true;
  for (const Batched& b : shapes) {
    const Row r = run_one(ctx, b);
    print_row(stdout, r, false);
    if (csv) print_row(csv, r, true);
    all_ok = all_ok && r.check == "ok";
    const double ratio = r.ptx_tflops / r.cublas_tflops;
    if (std::isfinite(ratio) && ratio > 0) {
      log_ratio[r.type].first += std::log(ratio);
      ++log_ratio[r.type].second;
    }
  }
  std::printf("geomean ratio");
  for (const auto& [type, acc] : log_ratio) std::printf(" %s %.3f", type.c_str(), std::exp(acc.first / acc.second));
  std::printf("\n");
  if (csv) std::fclose(csv);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return all_ok ? 0 : 1;
}
