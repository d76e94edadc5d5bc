#include "host_math.hpp"

#include <cuComplex.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>

namespace gputest {
namespace {

template <class T>
void put(std::vector<unsigned char>& out, std::size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

template <class T>
T get(const std::vector<unsigned char>& in, std::size_t i) {
  T v;
  std::memcpy(&v, in.data() + i * sizeof(T), sizeof(T));
  return v;
}

double half_round(double x) { return __half2float(__float2half_rn(static_cast<float>(x))); }
double bf16_round(double x) { return __bfloat162float(__float2bfloat16_rn(static_cast<float>(x))); }

// Unit roundoff of the accumulation: ptxblas accumulates half data in f32 whatever the compute
// type; cuBLAS may accumulate COMPUTE_16F in f16.
double unit_acc(const Entry& e, bool cublas) {
  if (cublas && e.compute_f16) return std::ldexp(1.0, -11);
  return (e.elem == Elem::F64 || e.elem == Elem::C64) ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
}

double unit_out(Elem t) {
  switch (t) {
    case Elem::F16: return std::ldexp(1.0, -11);
    case Elem::BF16: return std::ldexp(1.0, -8);
    case Elem::F32:
    case Elem::C32: return std::ldexp(1.0, -24);
    case Elem::F64:
    case Elem::C64: return std::ldexp(1.0, -53);
  }
  return 1;
}

// Below this, absolute errors are rounding to subnormals or flush-to-zero of the accumulator.
double tiny(Elem t) { return t == Elem::F16 ? std::ldexp(1.0, -23) : 1e-30; }

cd op_at(const std::vector<cd>& x, std::int64_t ld, cublasOperation_t op, std::int64_t r, std::int64_t c) {
  if (op == CUBLAS_OP_N) return x[static_cast<std::size_t>(r + c * ld)];
  const cd v = x[static_cast<std::size_t>(c + r * ld)];
  return op == CUBLAS_OP_C ? std::conj(v) : v;
}

}  // namespace

cd round_to(Elem e, cd v) {
  switch (e) {
    case Elem::F16: return half_round(v.real());
    case Elem::BF16: return bf16_round(v.real());
    case Elem::F32: return static_cast<float>(v.real());
    case Elem::F64: return v.real();
    case Elem::C32: return {static_cast<float>(v.real()), static_cast<float>(v.imag())};
    case Elem::C64: return v;
  }
  return v;
}

cd round_to(Scal s, cd v) {
  switch (s) {
    case Scal::F16: return round_to(Elem::F16, v);
    case Scal::F32: return round_to(Elem::F32, v);
    case Scal::F64: return round_to(Elem::F64, v);
    case Scal::C32: return round_to(Elem::C32, v);
    case Scal::C64: return round_to(Elem::C64, v);
  }
  return v;
}

std::vector<unsigned char> encode(Elem e, const std::vector<cd>& v) {
  std::vector<unsigned char> out(v.size() * elem_bytes(e));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (e) {
      case Elem::F16: put(out, i, __float2half_rn(static_cast<float>(v[i].real()))); break;
      case Elem::BF16: put(out, i, __float2bfloat16_rn(static_cast<float>(v[i].real()))); break;
      case Elem::F32: put(out, i, static_cast<float>(v[i].real())); break;
      case Elem::F64: put(out, i, v[i].real()); break;
      case Elem::C32:
        put(out, i, make_cuComplex(static_cast<float>(v[i].real()), static_cast<float>(v[i].imag())));
        break;
      case Elem::C64: put(out, i, make_cuDoubleComplex(v[i].real(), v[i].imag())); break;
    }
  }
  return out;
}

std::vector<cd> decode(Elem e, const std::vector<unsigned char>& bytes) {
  std::vector<cd> v(bytes.size() / elem_bytes(e));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (e) {
      case Elem::F16: v[i] = __half2float(get<__half>(bytes, i)); break;
      case Elem::BF16: v[i] = __bfloat162float(get<__nv_bfloat16>(bytes, i)); break;
      case Elem::F32: v[i] = get<float>(bytes, i); break;
      case Elem::F64: v[i] = get<double>(bytes, i); break;
      case Elem::C32: {
        const cuComplex z = get<cuComplex>(bytes, i);
        v[i] = {z.x, z.y};
        break;
      }
      case Elem::C64: {
        const cuDoubleComplex z = get<cuDoubleComplex>(bytes, i);
        v[i] = {z.x, z.y};
        break;
      }
    }
  }
  return v;
}

std::vector<unsigned char> encode(Scal s, cd v) {
  switch (s) {
    case Scal::F16: return encode(Elem::F16, {v});
    case Scal::F32: return encode(Elem::F32, {v});
    case Scal::F64: return encode(Elem::F64, {v});
    case Scal::C32: return encode(Elem::C32, {v});
    case Scal::C64: return encode(Elem::C64, {v});
  }
  return {};
}

cd random_value(Elem e, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double re = u(rng);
  const double im = is_complex(e) ? u(rng) : 0.0;
  return round_to(e, {re, im});
}

std::int64_t a_rows(const Gemm& g) { return g.ta == CUBLAS_OP_N ? g.m : g.k; }
std::int64_t a_cols(const Gemm& g) { return g.ta == CUBLAS_OP_N ? g.k : g.m; }
std::int64_t b_rows(const Gemm& g) { return g.tb == CUBLAS_OP_N ? g.k : g.n; }
std::int64_t b_cols(const Gemm& g) { return g.tb == CUBLAS_OP_N ? g.n : g.k; }

Reference reference(const Gemm& g, const Entry& e, const std::vector<cd>& a, const std::vector<cd>& b,
                    const std::vector<cd>& c) {
  Reference r;
  const auto mn = static_cast<std::size_t>(g.m * g.n);
  r.c.assign(mn, 0.0);
  r.bound.assign(mn, 0.0);
  r.bound_cublas.assign(mn, 0.0);
  const bool complex = is_complex(e.elem);
  const double cplx = complex ? 2.0 : 1.0;
  const double gamma = 2.0 * cplx * static_cast<double>(g.k + 4) * unit_acc(e, false);
  const double gamma_cublas = 2.0 * cplx * static_cast<double>(g.k + 4) * unit_acc(e, true);
  // op(X) with unit stride along k, for a fast inner loop: real types as one plane; complex types
  // as real and imaginary planes and each element's magnitude, taken once (std::abs is a hypot;
  // taken per product it made the complex references ~7x slower).
  const auto mk = static_cast<std::size_t>(g.m * g.k), kn = static_cast<std::size_t>(g.k * g.n);
  std::vector<double> ar(mk), br(kn), ai, bi, aa, ba;
  if (complex) ai.resize(mk), aa.resize(mk), bi.resize(kn), ba.resize(kn);
  // Row r of op(A) or column r of op(B) at [l + r * k].
  auto planes = [&](std::int64_t count, auto value, std::vector<double>& re, std::vector<double>& im,
                    std::vector<double>& mag) {
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t l = 0; l < g.k; ++l) {
        const cd v = value(r, l);
        const auto at = static_cast<std::size_t>(l + r * g.k);
        re[at] = v.real();
        if (complex) im[at] = v.imag(), mag[at] = std::abs(v);
      }
  };
  planes(g.m, [&](std::int64_t i, std::int64_t l) { return op_at(a, g.lda, g.ta, i, l); }, ar, ai, aa);
  planes(g.n, [&](std::int64_t j, std::int64_t l) { return op_at(b, g.ldb, g.tb, l, j); }, br, bi, ba);
  for (std::int64_t j = 0; j < g.n; ++j) {
    for (std::int64_t i = 0; i < g.m; ++i) {
      const auto x = static_cast<std::size_t>(i * g.k), y = static_cast<std::size_t>(j * g.k);
      cd sum = 0.0;
      double abs_sum = 0.0;
      if (complex) {
        // The products as std::complex forms them (re: ac - bd, im: ad + bc), summed in order.
        double sr = 0.0, si = 0.0;
        for (std::int64_t l = 0; l < g.k; ++l) {
          const double xr = ar[x + l], xi = ai[x + l], yr = br[y + l], yi = bi[y + l];
          sr += xr * yr - xi * yi;
          si += xr * yi + xi * yr;
          abs_sum += aa[x + l] * ba[y + l];
        }
        sum = cd(sr, si);
      } else {
        double s = 0.0;
        for (std::int64_t l = 0; l < g.k; ++l) {
          s += ar[x + l] * br[y + l];
          abs_sum += std::fabs(ar[x + l] * br[y + l]);
        }
        sum = s;
      }
      cd v = g.alpha * sum;
      double mag = std::abs(g.alpha) * abs_sum;
      if (g.beta != 0.0) {
        const cd old = c[static_cast<std::size_t>(i + j * g.ldc)];
        v += g.beta * old;
        mag += std::abs(g.beta) * std::abs(old);
      }
      const auto at = static_cast<std::size_t>(i + j * g.m);
      r.c[at] = v;
      const double rounding = 2.0 * cplx * unit_out(e.elem) * std::abs(v) + tiny(e.elem);
      r.bound[at] = gamma * mag + rounding;
      r.bound_cublas[at] = gamma_cublas * mag + rounding;
    }
  }
  return r;
}

}  // namespace gputest
