/* ptxblas_demo — a plain cuBLAS program, written the way a user would write it.
 *
 * It knows nothing about ptxblas: it is linked against the real cuBLAS and cudart only. Run it
 * with LD_PRELOAD=libptxblas.so and the same GEMM calls are served by ptxblas instead; the
 * results are checked against a double-precision CPU reference either way.
 *
 * Without a GPU it cannot compute anything, so it reports why and, if ptxblas is preloaded, asks
 * ptxblas (found with dlsym, never linked) which kernels it would have generated. */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- error checking: every CUDA and cuBLAS status is checked; a failure ends the demo ---- */

#define CHECK_CUDA(call)                                                                    \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,            \
                    cudaGetErrorString(err_));                                              \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

#define CHECK_CUBLAS(call)                                                                  \
    do {                                                                                    \
        cublasStatus_t st_ = (call);                                                        \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,            \
                    cublasGetStatusString(st_));                                            \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* ---- the calls the demo makes ---- */

typedef enum { T_S, T_D, T_Z, T_H32 } elem_type;

typedef struct {
    elem_type type;
    char ta, tb;           /* 'N', 'T' or 'C' */
    int m, n, k;
    double ar, ai, br, bi; /* alpha and beta (imaginary parts used by Zgemm only) */
} gemm_case;

/* Two shapes per routine: a tidy square-ish one and a ragged one with a transposed or
 * conjugated operand. */
static const gemm_case cases[] = {
    {T_S, 'N', 'N', 512, 512, 512, 1.0, 0.0, 0.0, 0.0},
    {T_S, 'N', 'T', 1000, 777, 333, 1.5, 0.0, -0.5, 0.0},
    {T_D, 'N', 'N', 384, 256, 128, 1.0, 0.0, 1.0, 0.0},
    {T_D, 'T', 'N', 1000, 777, 333, -0.75, 0.0, 0.25, 0.0},
    {T_Z, 'N', 'N', 256, 192, 96, 0.8, -0.3, 0.1, 0.6},
    {T_Z, 'C', 'N', 1000, 777, 333, -0.5, 1.25, 0.75, -0.2},
    {T_H32, 'N', 'N', 1024, 1024, 256, 1.0, 0.0, 0.0, 0.0},
    {T_H32, 'T', 'N', 1000, 777, 333, 0.5, 0.0, 0.5, 0.0},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static const char* call_name(elem_type t) {
    switch (t) {
    case T_S: return "Sgemm";
    case T_D: return "Dgemm";
    case T_Z: return "Zgemm";
    case T_H32: return "GemmEx"; /* f16 A/B/C, CUBLAS_COMPUTE_32F */
    }
    return "?";
}

/* The type names ptxblas_describe_gemm understands. */
static const char* describe_type(elem_type t) {
    switch (t) {
    case T_S: return "S";
    case T_D: return "D";
    case T_Z: return "Z";
    case T_H32: return "H32";
    }
    return "?";
}

/* Relative Frobenius error a correct implementation stays well below: a few ulps of the
 * accumulation type times sqrt(k), plus the output rounding (f16 output dominates H32). */
static double tolerance(elem_type t) {
    switch (t) {
    case T_S: return 1e-5;
    case T_D: return 1e-12;
    case T_Z: return 1e-12;
    case T_H32: return 2e-3;
    }
    return 0.0;
}

static int is_complex(elem_type t) { return t == T_Z; }

/* Bytes per stored scalar (a complex element is two scalars). */
static size_t scalar_size(elem_type t) {
    switch (t) {
    case T_S: return sizeof(float);
    case T_D: return sizeof(double);
    case T_Z: return sizeof(double);
    case T_H32: return sizeof(uint16_t);
    }
    return 0;
}

static cublasOperation_t to_op(char c) {
    return c == 'N' ? CUBLAS_OP_N : c == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

/* ---- small helpers that keep the demo free of libm and of C++-only cuda_fp16.h ---- */

/* Only used to report errors, so a scaled Newton iteration is plenty. */
static double sqrt_pos(double x) { /* x must be finite and >= 0 */
    if (x <= 0.0) return 0.0;
    double scale = 1.0;
    while (x < 1.0) { x *= 4.0; scale *= 0.5; }
    while (x >= 4.0) { x *= 0.25; scale *= 2.0; }
    double y = 1.5;
    for (int i = 0; i < 8; ++i) y = 0.5 * (y + x / y);
    return y * scale;
}

/* IEEE binary16 <-> binary32, round to nearest even, subnormals included. */
static uint16_t float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
    if (ax < 0x38800000u) {                                  /* below 2^-14: subnormal half */
        float a;
        memcpy(&a, &ax, sizeof a);
        /* a * 2^24 is the subnormal's integer mantissa; adding 2^23 rounds it to even. */
        float r = (a * 16777216.0f + 8388608.0f) - 8388608.0f;
        return (uint16_t)(sign | (uint32_t)r);
    }
    uint32_t h = (ax >> 13) - ((127u - 15u) << 10);
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h; /* carry may bump the exponent */
    return (uint16_t)(sign | h);
}

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (e == 0) {
        float v = (float)mant * 5.9604644775390625e-8f; /* mant * 2^-24 */
        return (h & 0x8000u) ? -v : v;
    }
    if (e == 31)
        bits = sign | 0x7f800000u | (mant << 13);
    else
        bits = sign | ((e + 112u) << 23) | (mant << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* splitmix64: the same data on every platform and libc. */
static uint64_t rng_state = 0x5eed5eed12345678ull;
static double rand_pm1(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0; /* [-1, 1) */
}

/* Round a value to what the element type can hold, so the reference sees exactly the GPU's
 * inputs and only the GEMM itself is measured. */
static double quantize(elem_type t, double v) {
    switch (t) {
    case T_S: return (double)(float)v;
    case T_H32: return (double)half_to_float(float_to_half((float)v));
    default: return v;
    }
}

static void* xmalloc(size_t bytes) {
    void* p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* n scalars of doubles -> host buffer in the element type's storage format. */
static void* pack(elem_type t, const double* src, size_t n) {
    void* dst = xmalloc(n * scalar_size(t));
    for (size_t i = 0; i < n; ++i) {
        switch (t) {
        case T_S: ((float*)dst)[i] = (float)src[i]; break;
        case T_D:
        case T_Z: ((double*)dst)[i] = src[i]; break;
        case T_H32: ((uint16_t*)dst)[i] = float_to_half((float)src[i]); break;
        }
    }
    return dst;
}

static void unpack(elem_type t, const void* src, double* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        switch (t) {
        case T_S: dst[i] = ((const float*)src)[i]; break;
        case T_D:
        case T_Z: dst[i] = ((const double*)src)[i]; break;
        case T_H32: dst[i] = half_to_float(((const uint16_t*)src)[i]); break;
        }
    }
}

/* Column-major matrix with `rows` x `cols` elements (es scalars each), ld = rows. */
static double* random_matrix(elem_type t, size_t rows, size_t cols) {
    size_t es = is_complex(t) ? 2 : 1;
    size_t n = rows * cols * es;
    double* p = xmalloc(n * sizeof *p);
    for (size_t i = 0; i < n; ++i) p[i] = quantize(t, rand_pm1());
    return p;
}

/* op(X) as an explicit rows x cols column-major matrix, conjugated for 'C', so the reference
 * loop below runs over contiguous memory. X is stored with leading dimension ldx. */
static double* apply_op(const double* x, size_t ldx, char op, size_t rows, size_t cols,
                        size_t es) {
    double* out = xmalloc(rows * cols * es * sizeof *out);
    for (size_t j = 0; j < cols; ++j)
        for (size_t i = 0; i < rows; ++i) {
            size_t src = op == 'N' ? i + j * ldx : j + i * ldx;
            size_t dst = i + j * rows;
            for (size_t s = 0; s < es; ++s) out[dst * es + s] = x[src * es + s];
            if (es == 2 && op == 'C') out[dst * 2 + 1] = -out[dst * 2 + 1];
        }
    return out;
}

/* C := alpha * op(A) * op(B) + beta * C, all in double, ld(C) = m. */
static void reference_gemm(const gemm_case* g, const double* a, size_t lda, const double* b,
                           size_t ldb, double* c) {
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    size_t es = is_complex(g->type) ? 2 : 1;
    double* oa = apply_op(a, lda, g->ta, m, k, es);
    double* ob = apply_op(b, ldb, g->tb, k, n, es);
    double* acc = xmalloc(m * es * sizeof *acc);
    for (size_t j = 0; j < n; ++j) {
        memset(acc, 0, m * es * sizeof *acc);
        if (es == 1) {
            for (size_t p = 0; p < k; ++p) {
                double bv = ob[p + j * k];
                const double* col = oa + p * m;
                for (size_t i = 0; i < m; ++i) acc[i] += col[i] * bv;
            }
            for (size_t i = 0; i < m; ++i) c[i + j * m] = g->ar * acc[i] + g->br * c[i + j * m];
        } else {
            for (size_t p = 0; p < k; ++p) {
                double br = ob[2 * (p + j * k)], bi = ob[2 * (p + j * k) + 1];
                const double* col = oa + 2 * p * m;
                for (size_t i = 0; i < m; ++i) {
                    double xr = col[2 * i], xi = col[2 * i + 1];
                    acc[2 * i] += xr * br - xi * bi;
                    acc[2 * i + 1] += xr * bi + xi * br;
                }
            }
            for (size_t i = 0; i < m; ++i) {
                double* cij = c + 2 * (i + j * m);
                double sr = acc[2 * i], si = acc[2 * i + 1], cr = cij[0], ci = cij[1];
                cij[0] = g->ar * sr - g->ai * si + g->br * cr - g->bi * ci;
                cij[1] = g->ar * si + g->ai * sr + g->br * ci + g->bi * cr;
            }
        }
    }
    free(acc);
    free(ob);
    free(oa);
}

/* ---- ptxblas, if preloaded: looked up at run time so the demo never depends on it ---- */

typedef int (*describe_fn)(const char*, char, char, int64_t, int64_t, int64_t, char*, size_t);
typedef const char* (*last_call_fn)(void);
typedef void (*counters_fn)(uint64_t*, uint64_t*);

/* ISO C has no object-to-function pointer conversion; copying the bits is the POSIX idiom. */
static void lookup(const char* name, void* fn_ptr, size_t fn_size) {
    void* sym = dlsym(RTLD_DEFAULT, name);
    memset(fn_ptr, 0, fn_size);
    if (sym) memcpy(fn_ptr, &sym, fn_size);
}

/* ---- one GEMM on the GPU ---- */

static int run_case(cublasHandle_t handle, const gemm_case* g, last_call_fn last_call) {
    size_t es = is_complex(g->type) ? 2 : 1;
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    size_t a_rows = g->ta == 'N' ? m : k, a_cols = g->ta == 'N' ? k : m;
    size_t b_rows = g->tb == 'N' ? k : n, b_cols = g->tb == 'N' ? n : k;
    size_t na = a_rows * a_cols * es, nb = b_rows * b_cols * es, nc = m * n * es;
    size_t ss = scalar_size(g->type);

    double* a = random_matrix(g->type, a_rows, a_cols);
    double* b = random_matrix(g->type, b_rows, b_cols);
    double* c = random_matrix(g->type, m, n);

    void* ha = pack(g->type, a, na);
    void* hb = pack(g->type, b, nb);
    void* hc = pack(g->type, c, nc);
    void *da = NULL, *db = NULL, *dc = NULL;
    CHECK_CUDA(cudaMalloc(&da, na * ss));
    CHECK_CUDA(cudaMalloc(&db, nb * ss));
    CHECK_CUDA(cudaMalloc(&dc, nc * ss));
    CHECK_CUDA(cudaMemcpy(da, ha, na * ss, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, hb, nb * ss, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dc, hc, nc * ss, cudaMemcpyHostToDevice));

    cublasOperation_t opa = to_op(g->ta), opb = to_op(g->tb);
    int lda = (int)a_rows, ldb = (int)b_rows, ldc = g->m;
    switch (g->type) {
    case T_S: {
        float alpha = (float)g->ar, beta = (float)g->br;
        CHECK_CUBLAS(cublasSgemm(handle, opa, opb, g->m, g->n, g->k, &alpha, da, lda, db, ldb,
                                 &beta, dc, ldc));
        break;
    }
    case T_D: {
        double alpha = g->ar, beta = g->br;
        CHECK_CUBLAS(cublasDgemm(handle, opa, opb, g->m, g->n, g->k, &alpha, da, lda, db, ldb,
                                 &beta, dc, ldc));
        break;
    }
    case T_Z: {
        cuDoubleComplex alpha = make_cuDoubleComplex(g->ar, g->ai);
        cuDoubleComplex beta = make_cuDoubleComplex(g->br, g->bi);
        CHECK_CUBLAS(cublasZgemm(handle, opa, opb, g->m, g->n, g->k, &alpha, da, lda, db, ldb,
                                 &beta, dc, ldc));
        break;
    }
    case T_H32: {
        /* With CUBLAS_COMPUTE_32F, alpha and beta are floats. */
        float alpha = (float)g->ar, beta = (float)g->br;
        CHECK_CUBLAS(cublasGemmEx(handle, opa, opb, g->m, g->n, g->k, &alpha, da, CUDA_R_16F,
                                  lda, db, CUDA_R_16F, ldb, &beta, dc, CUDA_R_16F, ldc,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        break;
    }
    }
    /* Surfaces asynchronous kernel faults here rather than at some later call. */
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(hc, dc, nc * ss, cudaMemcpyDeviceToHost));
    /* Read ptxblas's record before anything else could go through it. */
    const char* served_by = last_call ? last_call() : NULL;

    double* got = xmalloc(nc * sizeof *got);
    unpack(g->type, hc, got, nc);
    reference_gemm(g, a, a_rows, b, b_rows, c); /* c becomes the reference result */

    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < nc; ++i) {
        double d = got[i] - c[i];
        num += d * d;
        den += c[i] * c[i];
    }
    double ratio = den > 0.0 ? num / den : num;
    /* A NaN or Inf anywhere in the result makes the ratio non-finite: report it as it is. */
    int finite = ratio == ratio && ratio <= 1e300;
    double rel = finite ? sqrt_pos(ratio) : ratio;
    int pass = finite && rel <= tolerance(g->type);

    printf("%-6s %c %c %dx%dx%d  rel.err %.1e  %s", call_name(g->type), g->ta, g->tb, g->m, g->n,
           g->k, rel, pass ? "PASS" : "FAIL");
    if (served_by) printf("  [ptxblas: %s]", served_by);
    printf("\n");

    CHECK_CUDA(cudaFree(dc));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(da));
    free(got);
    free(hc);
    free(hb);
    free(ha);
    free(c);
    free(b);
    free(a);
    return pass;
}

/* ---- no GPU: say so, and let ptxblas (if preloaded) describe what it would have done ---- */

static int describe_only(void) {
    describe_fn describe;
    lookup("ptxblas_describe_gemm", &describe, sizeof describe);
    if (!describe) {
        printf("ptxblas is not preloaded (no ptxblas_describe_gemm symbol); nothing to show.\n"
               "Run with LD_PRELOAD=/path/to/libptxblas.so to see which kernels it would "
               "generate.\n");
        return 0;
    }
    printf("ptxblas is preloaded; the kernels it would generate for these calls:\n");
    for (int i = 0; i < NCASES; ++i) {
        const gemm_case* g = &cases[i];
        char line[512];
        int rc = describe(describe_type(g->type), g->ta, g->tb, g->m, g->n, g->k, line,
                          sizeof line);
        printf("%-6s %c %c %dx%dx%d  %s\n", call_name(g->type), g->ta, g->tb, g->m, g->n, g->k,
               rc == 0 ? line : "(ptxblas_describe_gemm failed)");
    }
    return 0;
}

int main(void) {
    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        printf("no CUDA GPU/driver on this machine: %s\n",
               err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA devices found");
        return describe_only();
    }

    last_call_fn last_call;
    counters_fn counters;
    lookup("ptxblas_last_call", &last_call, sizeof last_call);
    lookup("ptxblas_counters", &counters, sizeof counters);

    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("GPU 0: %s (sm_%d%d); GEMMs served by %s\n", prop.name, prop.major, prop.minor,
           last_call ? "ptxblas (preloaded)" : "cuBLAS");

    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));
    int passed = 0;
    for (int i = 0; i < NCASES; ++i) passed += run_case(handle, &cases[i], last_call);
    CHECK_CUBLAS(cublasDestroy(handle));

    printf("%d/%d checks passed\n", passed, (int)NCASES);
    if (counters) {
        uint64_t served = 0, forwarded = 0;
        counters(&served, &forwarded);
        printf("ptxblas: %llu calls served by its kernels, %llu forwarded to cuBLAS\n",
               (unsigned long long)served, (unsigned long long)forwarded);
    }
    return passed == NCASES ? 0 : 1;
}
