/* ptxblas — the library's own C entry points (ELF version node PTXBLAS_0).
 *
 * Everything else libptxblas.so exports carries the cuBLAS names and ABI (version node
 * libcublas.so.13) and is declared by <cublas_v2.h>. These few functions let tests, benchmarks and
 * the demo ask what ptxblas did, without knowing its internals. All are thread safe and never
 * touch the GPU. */
#ifndef PTXBLAS_PTXBLAS_H
#define PTXBLAS_PTXBLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the calling thread's last cuBLAS-API call through ptxblas did: the name of the generated
 * kernel that served it (e.g. "simt_s_nt_64x64x8_4x4"; a strided batch's ends in "_bt"), followed by " kg=<n>" when K was split
 * into n slices and " packed=A" ("B", "AB") when operands ran as aligned copies; or
 * "forwarded: <reason>", "error: <status>" or "none". The string stays valid until the thread's
 * next call. */
const char* ptxblas_last_call(void);

/* Process-wide counters since load: calls served by ptxblas kernels and calls forwarded to the
 * real cuBLAS. Either pointer may be NULL. */
void ptxblas_counters(uint64_t* served, uint64_t* forwarded);

/* Describe, without a GPU, the kernel ptxblas would generate for a GEMM:
 *   type: "S", "D", "C", "Z", "H" (f16 data, f16 scalars), "H32" (f16 data, f32 compute),
 *         "B" (bf16 data, f32 compute);
 *   transa/transb: 'N', 'T' or 'C'.
 * Writes one line (kernel name, PTX size, predicted registers and shared memory) into buf.
 * Returns 0, or -1 for an unknown type or op. */
int ptxblas_describe_gemm(const char* type, char transa, char transb, int64_t m, int64_t n,
                          int64_t k, char* buf, size_t buflen);

/* For benchmarks: make the calling thread's GEMMs (cuBLAS API) run one tile instead of the
 * dispatcher's pick, e.g. "mma 128 64 16 32 32 1 2": family (simt, mma or wgmma), block tile ML
 * NL U, thread (simt), warp (mma) or warpgroup (wgmma) tile MS NS, vector width, and optionally kg
 * K slices, store_pad (0 or 1, mma only), shared stages (1 to 6; wgmma 2 to 8), kl (1, 2 or 4:
 * the K-step split over that many groups of the block's threads or warps) and raster (0: blocks
 * in launch order; 2 to 64, a power of two: groups of that many row tiles; -1: the dispatcher's
 * rule, as when absent) and ks (1, 2 or 4: accumulator sets per thread, taking the K-step's rows
 * or mma steps in turn) and batch_tiles (strided wgmma batches: entries a block runs one after
 * another, 1 to 63) and unbounded (0 or 1: SIMT cp.async stages copy without bounds checks where a
 * tile lies inside the matrix, as the dispatcher's f32 vector-stage plans may). A call for
 * which the tile is illegal (wgmma: also one whose A or B is not 16-byte aligned with leading
 * dimensions a multiple of 8, or a device other than sm_90) is forwarded to the real cuBLAS. NULL or "" restores the dispatcher.
 * Returns 0, or -1 for a malformed spec. Never touches the GPU. */
int ptxblas_force_tile(const char* spec);

/* The first-sight benchmark for the whole process: with k > 0, the first GEMM of each new shape
 * (cuBLAS API, a device with a performance model) times the heuristic's plan and the model's k
 * best-predicted configurations on its own operands (into scratch, one synchronisation of its
 * stream; never while the stream is captured) and keeps the fastest for that shape, in memory and
 * in <cache>/decisions-<device key>.txt, read at the next start. k = 0 turns it off, k < 0
 * returns to ptxblas.toml's dispatch.benchmark_top_k (default 0). Returns 0, or -1 for k > 16.
 * Never touches the GPU itself. */
int ptxblas_set_benchmark_top_k(int k);

/* Tiling of host (Fortran, CBLAS) calls offloaded to the GPU, for the whole process, in MiB:
 * memory_mib, the device memory one call may use (0: three quarters of the free memory; a call
 * whose operands do not fit runs in tiles that do, or on the CPU when even the narrowest do not);
 * tile_mib, the operand data per tile when a call is cut so that one tile's copies overlap
 * another's kernels (0: calls that fit run whole). A negative value returns to ptxblas.toml's
 * gpu.memory_mib / gpu.tile_mib (defaults 0 and 512). Returns 0. Never touches the GPU itself. */
int ptxblas_set_offload_tiling(long long memory_mib, long long tile_mib);

#ifdef __cplusplus
}
#endif

#endif
