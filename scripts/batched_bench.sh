#!/usr/bin/env bash
# On the lent GPU machine, from the repository root with build/bin carried: ptxblas-bench-batched
# (strided-batched GEMM, ptxblas against cuBLAS side by side) with its table and CSV in the folder
# given first (default: $OUT, else build/bench-logs), as batched-bench.txt and batched-bench.csv.
# Further arguments go to the benchmark (e.g. --shapes FILE, --filter H). Exit status: the
# benchmark's (0 every row ok, 1 a mismatch, error or forwarded row, 2 a failed call).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-${OUT:-build/bench-logs}}
[ $# -gt 0 ] && shift
mkdir -p "$dir"
"${BUILD_DIR:-build}/bin/ptxblas-bench-batched" --csv "$dir/batched-bench.csv" "$@" | tee "$dir/batched-bench.txt"
