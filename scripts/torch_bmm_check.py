#!/usr/bin/env python3
"""PyTorch's bmm / matmul on 3-D tensors through ptxblas (a real client of the strided-batched
entry points: f32 bmm -> cublasSgemmStridedBatched, f16 / bf16 -> cublasGemmStridedBatchedEx).

  PTXBLAS_LOG=1 LD_PRELOAD=build/bin/libptxblas.so python3 scripts/torch_bmm_check.py

Each case is checked against a float64 product on the CPU (relative error over the largest
|A| |B| sum); the log lines on stderr say which kernel served each call. Exit status 1 when a
result is wrong. Needs PyTorch with CUDA (the device image has it)."""
import sys

import torch

CASES = [  # dtype, batch, m, n, k, tolerance relative to the sum of |products|
    (torch.float32, 8, 256, 192, 320, 1e-5),
    (torch.float32, 3, 33, 17, 45, 1e-5),
    (torch.float64, 4, 100, 130, 70, 1e-12),
    (torch.float16, 64, 128, 128, 64, 2e-3),
    (torch.bfloat16, 32, 512, 512, 64, 1e-2),
    (torch.float16, 5, 77, 91, 33, 2e-3),
]


def main():
    torch.manual_seed(0)
    bad = 0
    for dtype, batch, m, n, k, tol in CASES:
        a = torch.randn(batch, m, k, device="cuda").to(dtype)
        b = torch.randn(batch, k, n, device="cuda").to(dtype)
        c = torch.bmm(a, b)
        torch.cuda.synchronize()
        ref = torch.bmm(a.cpu().double(), b.cpu().double())
        scale = torch.bmm(a.cpu().double().abs(), b.cpu().double().abs()).max().item()
        err = (c.cpu().double() - ref).abs().max().item() / scale
        ok = err <= tol
        bad += not ok
        print("%-15s batch %4d %4d x %4d x %4d  max error %.2e (tol %.0e) %s" %
              (str(dtype), batch, m, n, k, err, tol, "ok" if ok else "WRONG"), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
