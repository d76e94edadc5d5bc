// f64 mma.sync m16n8k8 (one DMMA.16x8x8 on sm_90) issue and latency on this GPU: each warp runs
// CH independent accumulator chains (CH DMMAs in flight per warp, each chain dependent on itself),
// one block of W warps per SM, so W / 4 warps per SM sub-partition. TFLOP/s per (CH, W) say how
// many DMMAs in flight a sub-partition needs to keep the FP64 tensor pipe busy, and the 1 x 4 row
// gives the DMMA's dependent-issue latency. MIX = 1 adds one DADD per DMMA on other registers
// (the FP64 pipe beside the tensor pipe); MIX = 2 one integer op instead (LOP3, another pipe).
// Build: nvcc -O3 -arch=sm_90 -o dmma_chains scripts/probes/dmma_chains.cu   (perf notes §153)
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
template <int CH, int MIX> __global__ void k(double* out, int iters) {
  double a[4], b[2], c[CH][4], x = threadIdx.x * 1e-7;
  unsigned u = threadIdx.x;
  for (int i = 0; i < 4; ++i) a[i] = threadIdx.x * 1e-3 + i;
  for (int i = 0; i < 2; ++i) b[i] = threadIdx.x * 2e-3 + i;
  for (int j = 0; j < CH; ++j) for (int i = 0; i < 4; ++i) c[j][i] = 0;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int r = 0; r < 16 / CH; ++r)
#pragma unroll
      for (int j = 0; j < CH; ++j) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
                     : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
        if (MIX == 1) asm volatile("add.f64 %0, %0, %1;" : "+d"(x) : "d"(a[0]));
        if (MIX == 2) asm volatile("xor.b32 %0, %0, 0x80000000;" : "+r"(u));
      }
  }
  double s = x + u;
  for (int j = 0; j < CH; ++j) for (int i = 0; i < 4; ++i) s += c[j][i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int CH, int MIX> int run(int warps, int sms) {
  double* out; CK(cudaMalloc(&out, sizeof(double) * sms * 32 * warps));
  const int iters = 2048;
  k<CH, MIX><<<sms, 32 * warps>>>(out, 8); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0); k<CH, MIX><<<sms, 32 * warps>>>(out, iters); CK(cudaGetLastError()); cudaEventRecord(e1);
  CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1);
  const double mmas_per_warp = 16.0 * iters, flops = 2.0 * 16 * 8 * 8 * mmas_per_warp * sms * warps;
  int clock_khz = 0; cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  // Cycles per DMMA of one warp (at the reported clock), and per DMMA issued by a sub-partition.
  const double cycles = ms * 1e-3 * clock_khz * 1e3;
  printf("%d,%d,%d,%.2f,%.1f,%.2f\n", CH, MIX, warps / 4, flops / ms / 1e9, cycles / mmas_per_warp,
         cycles / (mmas_per_warp * warps / 4));
  cudaFree(out); return 0;
}
int main() {
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  printf("chains_per_warp,mix,warps_per_subpartition,tflops,cycles_per_dmma_per_warp,cycles_per_dmma_per_subpartition\n");
  // Blocks of 16 warps or more fail to launch where CH's registers do not fit (the run in perf
  // notes §153 printed garbage for them before this check): those rows print the error instead.
  for (int w : {4, 8, 16, 32}) {
    run<1, 0>(w, sms); run<2, 0>(w, sms); run<4, 0>(w, sms); run<8, 0>(w, sms); run<16, 0>(w, sms);
    run<4, 1>(w, sms); run<4, 2>(w, sms); run<8, 1>(w, sms);
  }
}
