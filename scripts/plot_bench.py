#!/usr/bin/env python3
"""Plot ptxblas-bench's CSV: per type, ptxblas / cuBLAS (dispatcher's pick and oracle) per shape.

  scripts/plot_bench.py testing/reports/h100-bench.csv testing/reports/h100-bench.png

Needs matplotlib (tooling only: `pip install matplotlib`); the library and tests do not."""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    types = sorted({r["type"] for r in rows}, key="SDCZH".index)
    fig, axes = plt.subplots(len(types), 1, figsize=(12, 3.2 * len(types)), squeeze=False)
    for ax, t in zip(axes[:, 0], types):
        rs = [r for r in rows if r["type"] == t]
        x = range(len(rs))
        pick = [float(r["ptxblas_tflops"]) / float(r["cublas_tflops"]) for r in rs]
        oracle = [float(r.get("oracle_tflops") or "nan") / float(r["cublas_tflops"]) for r in rs]
        ax.bar([i - 0.2 for i in x], pick, width=0.4, label="dispatcher's pick / cuBLAS")
        if any(not math.isnan(v) for v in oracle):
            ax.bar([i + 0.2 for i in x], oracle, width=0.4, label="oracle / cuBLAS")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([r["name"] for r in rs], rotation=45, ha="right", fontsize=7)
        ax.set_ylabel(t + ": ratio to cuBLAS")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("ptxblas vs cuBLAS on " + src)
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
